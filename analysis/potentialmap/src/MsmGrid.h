#ifndef NARUMI_POTENTIAL_MAP_MSM_GRID_H_
#define NARUMI_POTENTIAL_MAP_MSM_GRID_H_

/** The values of one multilevel-summation lattice (open or periodic), and the walk over a map's points. */

#include "NarumiCommon/ThreadPool.h"
#include "PotentialMap.h"
#include <array>
#include <cstddef>
#include <vector>

namespace OpenMMNarumi::PotentialMap {

struct MsmGrid {
    std::array<int, 3> dims{};
    std::vector<double> values;

    void allocate() {
        values.assign((size_t) dims[0] * dims[1] * dims[2], 0.0);
    }
    size_t index(int i, int j, int k) const {
        return (size_t) i + (size_t) dims[0] * ((size_t) j + (size_t) dims[1] * k);
    }
    /** index() of a periodic lattice's point, the indices wrapped into [0, dims). */
    size_t wrappedIndex(int i, int j, int k) const {
        auto wrap = [](int v, int size) { return ((v % size) + size) % size; };
        return index(wrap(i, dims[0]), wrap(j, dims[1]), wrap(k, dims[2]));
    }
};

/** body(p, index) for every point of map, p its position (nm), index its place in the map; rows shared out. */
template <class Body>
void forEachMapPoint(const Lattice& map, int threads, const Body& body) {
    const int nx = map.dims[0], ny = map.dims[1], nz = map.dims[2];
    Common::parallelFor((long) ny * nz, threads, [&](long row, int) {
        int j = (int) (row % ny), k = (int) (row / ny);
        for (int i = 0; i < nx; i++) {
            double p[3] = {map.origin[0] + i * map.spacing[0], map.origin[1] + j * map.spacing[1], map.origin[2] + k * map.spacing[2]};
            body(p, (size_t) row * nx + i);
        }
    });
}

} // namespace OpenMMNarumi::PotentialMap

#endif // NARUMI_POTENTIAL_MAP_MSM_GRID_H_
