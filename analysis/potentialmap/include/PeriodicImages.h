#ifndef NARUMI_POTENTIAL_MAP_PERIODIC_IMAGES_H_
#define NARUMI_POTENTIAL_MAP_PERIODIC_IMAGES_H_

/**
 * The atoms a cutoff map needs: every periodic image of every atom that lies within the cutoff of the lattice's
 * box (its "reach region").  Summing all of those within rc of a point is the minimum-image sum whenever rc is at
 * most half of each box width, for rectangular and triclinic boxes alike, and the map kernels need no periodic
 * arithmetic at all: they see a non-periodic cloud of images.  Shared by the CPU and CUDA backends (double math).
 */

#include "PotentialMap.h"
#include <cmath>

#ifdef __CUDACC__
#define PM_HOST_DEVICE __host__ __device__
#else
#define PM_HOST_DEVICE
#endif

namespace OpenMMNarumi::PotentialMap {

struct ImageSet {
    bool periodic;
    double a[3], b[3], c[3];            // reduced box vectors (periodic only)
    int first[3];                       // lowest image index along a, b, c
    int count[3];                       // images along a, b, c (1, 1, 1 when not periodic)
    double regionLo[3], regionHi[3];    // the lattice's box grown by the cutoff (nm); images outside are dropped

    PM_HOST_DEVICE int numImages() const {
        return count[0] * count[1] * count[2];
    }

    /** Moves a position into the box [0, ax) x [0, by) x [0, cz) the way OpenMM does (c first, then b, then a). */
    PM_HOST_DEVICE void wrap(double p[3]) const {
        double n = floor(p[2] / c[2]);
        p[0] -= n * c[0]; p[1] -= n * c[1]; p[2] -= n * c[2];
        n = floor(p[1] / b[1]);
        p[0] -= n * b[0]; p[1] -= n * b[1];
        n = floor(p[0] / a[0]);
        p[0] -= n * a[0];
    }

    /** Image `image` (0 <= image < numImages()) of the raw position `position`; true if it lies in the region. */
    PM_HOST_DEVICE bool image(const double position[3], int image, double out[3]) const {
        out[0] = position[0]; out[1] = position[1]; out[2] = position[2];
        if (periodic) {
            wrap(out);
            int i = first[0] + image % count[0];
            int j = first[1] + (image / count[0]) % count[1];
            int k = first[2] + image / (count[0] * count[1]);
            out[0] += i * a[0] + j * b[0] + k * c[0];
            out[1] += j * b[1] + k * c[1];
            out[2] += k * c[2];
        }
        return out[0] >= regionLo[0] && out[0] <= regionHi[0] && out[1] >= regionLo[1] && out[1] <= regionHi[1] &&
               out[2] >= regionLo[2] && out[2] <= regionHi[2];
    }
};

/** The images of `box` (nullptr: none) that can reach the lattice's box grown by `reach` nm (host only). */
ImageSet makeImageSet(const Lattice& lattice, double reach, const PeriodicBox* box);

} // namespace OpenMMNarumi::PotentialMap

#endif // NARUMI_POTENTIAL_MAP_PERIODIC_IMAGES_H_
