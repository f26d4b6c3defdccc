#ifndef NARUMI_RDF_PAIR_MATH_H_
#define NARUMI_RDF_PAIR_MATH_H_

/**
 * The arithmetic of one atom pair, shared by the CPU and CUDA backends so that both count exactly the same pairs
 * in exactly the same bins: wrapping into the periodic cell (double), cell assignment (double), the minimum-image
 * squared distance and the bin index (IEEE single precision, explicit fmaf only).  The CUDA code is compiled with
 * -fmad=false and the C++ code with -ffp-contract=off, so no compiler contracts any other a*b+c.
 *
 * Boxes are OpenMM's reduced (lower-triangular) form: a = (ax,0,0), b = (bx,by,0), c = (cx,cy,cz).
 */

#include <cmath>

#ifdef __CUDACC__
#define RDF_HOST_DEVICE __host__ __device__ __forceinline__
#else
#define RDF_HOST_DEVICE inline
#endif

namespace OpenMMNarumi::Rdf {

enum class BoxKind { None = 0, Rectangular = 1, Triclinic = 2 };

/** A periodic box in double precision (host side of every frame). */
struct BoxDouble {
    BoxKind kind = BoxKind::None;
    double ax = 0, bx = 0, by = 0, cx = 0, cy = 0, cz = 0;
};

/** The same box rounded to float, with the reciprocals the pair loop multiplies by. */
struct BoxFloat {
    float ax, bx, by, cx, cy, cz;
    float invAx, invBy, invCz;
};

/** Reciprocals of the box diagonal, in double (wrapping, cells) and, rounded, in float (pair loop). */
struct BoxInverse {
    double invAx = 0, invBy = 0, invCz = 0;
};

inline BoxInverse boxInverse(const BoxDouble& box) {
    BoxInverse inverse;
    if (box.kind != BoxKind::None) {
        inverse.invAx = 1.0 / box.ax;
        inverse.invBy = 1.0 / box.by;
        inverse.invCz = 1.0 / box.cz;
    }
    return inverse;
}

inline BoxFloat boxFloat(const BoxDouble& box) {
    BoxInverse inverse = boxInverse(box);
    return BoxFloat{(float) box.ax, (float) box.bx, (float) box.by, (float) box.cx, (float) box.cy, (float) box.cz,
                    (float) inverse.invAx, (float) inverse.invBy, (float) inverse.invCz};
}

/** What decides the bin of a pair: a squared-distance prefilter, then floor(r * invWidth + offset) in [0, bins). */
struct Binning {
    float filterSq;   // (rMax * (1 + 1e-6))^2: never rejects a pair whose bin would be < bins
    float invWidth;   // bins / (rMax - rMin)
    float offset;     // -rMin * invWidth
    int bins;
};

RDF_HOST_DEVICE float rdfFma(float a, float b, float c) {
#ifdef __CUDA_ARCH__
    return __fmaf_rn(a, b, c);
#else
    return std::fma(a, b, c);
#endif
}

RDF_HOST_DEVICE float rdfRint(float x) {
#ifdef __CUDA_ARCH__
    return rintf(x);
#else
    return std::rint(x);
#endif
}

/** The smaller of two floats (inputs are never NaN on the CPU; a NaN padding atom stays NaN on the GPU). */
RDF_HOST_DEVICE float rdfMin(float a, float b) {
#ifdef __CUDA_ARCH__
    return fminf(a, b);
#else
    return a < b ? a : b;
#endif
}

/**
 * Squared minimum-image distance between two wrapped positions.  Rectangular: with both atoms in [0, L] each
 * component is min(|d|, L - |d|) (Levine et al., Eq. 8).  Triclinic: OpenMM's reduction along c, then b, then a,
 * which is the exact minimum image for every pair closer than min(ax, by, cz)/2 (docs/rdf.md).  Swapping the two
 * atoms gives bitwise the same value.
 */
template <BoxKind KIND>
RDF_HOST_DEVICE float distanceSquared(float xi, float yi, float zi, float xj, float yj, float zj, const BoxFloat& box) {
    float dx = xi - xj, dy = yi - yj, dz = zi - zj;
    if (KIND == BoxKind::Rectangular) {
        dx = std::fabs(dx);
        dy = std::fabs(dy);
        dz = std::fabs(dz);
        dx = rdfMin(dx, box.ax - dx);
        dy = rdfMin(dy, box.by - dy);
        dz = rdfMin(dz, box.cz - dz);
    } else if (KIND == BoxKind::Triclinic) {
        float nz = rdfRint(dz * box.invCz);
        dx = rdfFma(-nz, box.cx, dx);
        dy = rdfFma(-nz, box.cy, dy);
        dz = rdfFma(-nz, box.cz, dz);
        float ny = rdfRint(dy * box.invBy);
        dx = rdfFma(-ny, box.bx, dx);
        dy = rdfFma(-ny, box.by, dy);
        float nx = rdfRint(dx * box.invAx);
        dx = rdfFma(-nx, box.ax, dx);
    }
    return rdfFma(dx, dx, rdfFma(dy, dy, dz * dz));
}

/** Bin index of a pair (may be negative or >= bins: the caller tests the range). */
RDF_HOST_DEVICE int binIndex(float r2, const Binning& binning) {
#ifdef __CUDA_ARCH__
    return __float2int_rd(__fmaf_rn(__fsqrt_rn(r2), binning.invWidth, binning.offset));
#else
    return (int) std::floor(std::fma(std::sqrt(r2), binning.invWidth, binning.offset));
#endif
}

/** Wraps a position into the brick [0,ax) x [0,by) x [0,cz) by lattice translations (c first, then b, then a). */
RDF_HOST_DEVICE void wrapIntoBox(double& x, double& y, double& z, const BoxDouble& box, const BoxInverse& inverse) {
    double nz = std::floor(z * inverse.invCz);
    x = x - nz * box.cx;
    y = y - nz * box.cy;
    z = z - nz * box.cz;
    double ny = std::floor(y * inverse.invBy);
    x = x - ny * box.bx;
    y = y - ny * box.by;
    double nx = std::floor(x * inverse.invAx);
    x = x - nx * box.ax;
}

/** A grid of cells at least rMax wide: fractional cells of the periodic cell, or cells of a bounding box. */
struct CellGrid {
    int n[3] = {1, 1, 1};
    bool periodic = false;
    double origin[3] = {0, 0, 0};   // bounding-box corner (no box)
    double scale[3] = {0, 0, 0};    // cells per nm along x, y, z (no box)
    int numCells() const { return n[0] * n[1] * n[2]; }
};

RDF_HOST_DEVICE int clampCell(double s, int n) {
    int c = (int) s;
    return c < 0 ? 0 : (c >= n ? n - 1 : c);
}

/** Linear cell index (x fastest) of a wrapped position. */
RDF_HOST_DEVICE int cellIndex(double x, double y, double z, const CellGrid& grid, const BoxDouble& box,
                              const BoxInverse& inverse) {
    int c[3];
    if (grid.periodic) {
        // Fractional coordinates along a, b, c; cells are slabs between lattice planes, each at least rMax thick.
        double sc = z * inverse.invCz;
        double sb = (y - sc * box.cy) * inverse.invBy;
        double sa = (x - sb * box.bx - sc * box.cx) * inverse.invAx;
        double s[3] = {sa, sb, sc};
        for (int d = 0; d < 3; d++)
            c[d] = clampCell((s[d] - std::floor(s[d])) * grid.n[d], grid.n[d]);
    } else {
        double p[3] = {x, y, z};
        for (int d = 0; d < 3; d++)
            c[d] = clampCell((p[d] - grid.origin[d]) * grid.scale[d], grid.n[d]);
    }
    return c[0] + grid.n[0] * (c[1] + grid.n[1] * c[2]);
}

/**
 * The distinct cells next to cell coordinate c along one dimension (itself included): up to 3, fewer when the
 * grid has 1 or 2 cells (periodic: -1 and +1 are the same cell) or at the edge of a bounding box.  Returns the count.
 */
RDF_HOST_DEVICE int neighbourCoordinates(int c, int n, bool periodic, int out[3]) {
    int count = 0;
    for (int offset = -1; offset <= 1; offset++) {
        int v = c + offset;
        if (periodic)
            v = (v + n) % n;
        else if (v < 0 || v >= n)
            continue;
        bool seen = false;
        for (int k = 0; k < count; k++)
            seen = seen || out[k] == v;
        if (!seen)
            out[count++] = v;
    }
    return count;
}

} // namespace OpenMMNarumi::Rdf

#endif // NARUMI_RDF_PAIR_MATH_H_
