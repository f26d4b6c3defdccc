/**
 * NarumiNonbondedForce's GROMACS conventions on OpenMM's CPU platform (this project's double-precision kernel,
 * platforms/reference, threaded): tests/cpp/NarumiGromacsConventionsTests.h, held to double precision.
 */

#include "NarumiGromacsConventionsTests.h"

INSTANTIATE_TEST_SUITE_P(CPU, NarumiGromacsConventionsTest, ::testing::Values(PlatformUnderTest{"CPU", "", 1e-10}), platformLabel);
