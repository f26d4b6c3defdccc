/**
 * NarumiNonbondedForce on OpenMM's CPU platform (this project's double-precision kernel, platforms/reference): the
 * shared behaviour of every platform (tests/cpp/NarumiNonbondedForceTests.h), central differences included.
 */

#include "NarumiNonbondedForceTests.h"

INSTANTIATE_TEST_SUITE_P(CPU, NarumiNonbondedForceTest, ::testing::Values(PlatformUnderTest{"CPU", "", 1e-6}), platformLabel);
INSTANTIATE_TEST_SUITE_P(CPU, NarumiNonbondedForceGradientTest, ::testing::Values(PlatformUnderTest{"CPU", "", 1e-6}), platformLabel);
