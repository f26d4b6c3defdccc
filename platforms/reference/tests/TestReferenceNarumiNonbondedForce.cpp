/**
 * NarumiNonbondedForce on OpenMM's Reference platform (this project's double-precision kernel, platforms/reference): the
 * shared behaviour of every platform (tests/cpp/NarumiNonbondedForceTests.h), central differences included.
 */

#include "NarumiNonbondedForceTests.h"

INSTANTIATE_TEST_SUITE_P(Reference, NarumiNonbondedForceTest, ::testing::Values(PlatformUnderTest{"Reference", "", 1e-6}), platformLabel);
INSTANTIATE_TEST_SUITE_P(Reference, NarumiNonbondedForceGradientTest, ::testing::Values(PlatformUnderTest{"Reference", "", 1e-6}), platformLabel);
