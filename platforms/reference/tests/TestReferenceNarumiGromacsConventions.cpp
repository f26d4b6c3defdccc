/**
 * NarumiNonbondedForce's GROMACS conventions on OpenMM's Reference platform (this project's double-precision kernel,
 * platforms/reference): tests/cpp/NarumiGromacsConventionsTests.h, held to double precision against its oracles.
 */

#include "NarumiGromacsConventionsTests.h"

INSTANTIATE_TEST_SUITE_P(Reference, NarumiGromacsConventionsTest, ::testing::Values(PlatformUnderTest{"Reference", "", 1e-10}), platformLabel);
