/** RDFSampler on OpenMM's Reference platform (this project's kernel, platforms/reference): the shared behaviour of every platform. */

#include "RDFSamplerTests.h"

INSTANTIATE_TEST_SUITE_P(Reference, RDFSamplerTest, ::testing::Values(PlatformUnderTest{"Reference", "", 0.0}), platformLabel);
