/** RDFSampler on OpenMM's CPU platform (this project's kernel, platforms/reference): the shared behaviour of every platform. */

#include "RDFSamplerTests.h"

INSTANTIATE_TEST_SUITE_P(CPU, RDFSamplerTest, ::testing::Values(PlatformUnderTest{"CPU", "", 0.0}), platformLabel);
