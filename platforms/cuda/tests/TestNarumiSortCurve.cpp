/**
 * The sort's curves (include/NarumiSortCurve.cuh) walked on the host: the curve of cubes visits every cell of its
 * grid exactly once, each after a face neighbour, for boxes of one to a few hundred cubes, and on one cube of 1024^3
 * cells it is the Hilbert curve of the default sort.  Host code: runs without a GPU.
 */
#include "NarumiSortCurve.cuh"
#include <gtest/gtest.h>
#include <cstdlib>
#include <string>
#include <vector>

using namespace OpenMMNarumi;

namespace {

/** Whether the curve of cubes through grid numbers its cells 0 to n - 1, every one after a face neighbour. */
::testing::AssertionResult isOneUnbrokenCurve(const NarumiCubeGrid& grid) {
    std::vector<unsigned char> turns = narumiCubeTurns(grid);
    const long edge = 1L << grid.cubeBits, nx = grid.cubes[0] * edge, ny = grid.cubes[1] * edge, nz = grid.cubes[2] * edge;
    std::vector<long> cellAt(nx * ny * nz, -1);
    for (long x = 0; x < nx; x++)
        for (long y = 0; y < ny; y++)
            for (long z = 0; z < nz; z++) {
                const unsigned int cell[3] = {(unsigned int) x, (unsigned int) y, (unsigned int) z};
                unsigned int key = cubeCurveKey(cell, grid, turns.data());
                if (key >= cellAt.size() || cellAt[key] >= 0)
                    return ::testing::AssertionFailure() << "cell (" << x << ", " << y << ", " << z << ") has key " << key
                                                         << ", out of range or taken";
                cellAt[key] = (x * ny + y) * nz + z;
            }
    for (size_t key = 1; key < cellAt.size(); key++) {
        long a = cellAt[key - 1], b = cellAt[key];
        long steps = std::labs(a / (ny * nz) - b / (ny * nz)) + std::labs((a / nz) % ny - (b / nz) % ny) + std::labs(a % nz - b % nz);
        if (steps != 1)
            return ::testing::AssertionFailure() << "key " << key << " is " << steps << " cells from key " << key - 1;
    }
    return ::testing::AssertionSuccess();
}

} // namespace

TEST(NarumiSortCurve, CubesMakeOneUnbrokenCurve) {
    const int cases[][4] = {{1, 1, 1, 3}, {2, 1, 1, 2}, {1, 2, 1, 2}, {1, 1, 2, 2}, {3, 2, 1, 2}, {2, 3, 2, 2},
                            {5, 3, 2, 2}, {1, 1, 3, 3}, {3, 3, 3, 2}, {4, 4, 1, 3}, {12, 11, 1, 2}, {2, 2, 2, 4}};
    for (const auto& c : cases) {
        NarumiCubeGrid grid{{c[0], c[1], c[2]}, c[3]};
        EXPECT_TRUE(isOneUnbrokenCurve(grid)) << c[0] << " x " << c[1] << " x " << c[2] << " cubes of 2^" << c[3] << " cells";
    }
}

TEST(NarumiSortCurve, OneCubeIsTheDefaultHilbertCurve) {
    NarumiCubeGrid one{{1, 1, 1}, 10};
    std::vector<unsigned char> turns = narumiCubeTurns(one);
    for (unsigned int i = 0; i < 200000; i++) {
        const unsigned int cell[3] = {(i * 7919u) % 1024, (i * 104729u) % 1024, (i * 1299709u) % 1024};
        ASSERT_EQ(cubeCurveKey(cell, one, turns.data()), hilbertKey(cell[0], cell[1], cell[2]))
            << "cell (" << cell[0] << ", " << cell[1] << ", " << cell[2] << ")";
    }
    EXPECT_EQ(hilbertKey(0, 0, 0), 0u);
    EXPECT_EQ(hilbertKey(1023, 0, 0), (1u << 30) - 1);  // the curve leaves along its first axis, as the turns assume
}
