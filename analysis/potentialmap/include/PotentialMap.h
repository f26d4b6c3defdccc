#ifndef NARUMI_POTENTIAL_MAP_H_
#define NARUMI_POTENTIAL_MAP_H_

/**
 * Electrostatic potential maps on a rectangular lattice (Rodrigues et al. 2008; Stone's DCS lecture).
 *
 * Units follow OpenMM: positions and lengths in nm, charges in e; map values in kJ/mol/e, that is
 *     V(p) = COULOMB_CONSTANT * sum_i q_i s(|p - r_i|) / |p - r_i|   (OpenMM's 1/(4 pi eps0) in kJ nm/(mol e^2))
 * with s = 1 (Method::Direct, every atom, no periodic images) or s(r) = (1 - r^2/rc^2)^2 for r < rc, else 0
 * (Method::Cutoff, every periodic image within rc: minimum image for rectangular and triclinic boxes), or the full
 * s = 1 sum approximated in linear time by multilevel summation (Method::Msm, either backend; its accuracy is set by
 * msmAccuracy or by the spacing and cutoff of its lattices, MsmNumerics.h), which with a periodic box is the Ewald
 * potential (with the neutralizing background of a charged cell).
 * A pair closer than COINCIDENCE_RADIUS is left out of the sum, so a lattice point on an atom gets the potential
 * of all the other atoms (finite, never NaN or infinity).
 *
 * Maps are stored x fastest: value (ix, iy, iz) is at index (iz * ny + iy) * nx + ix.
 */

#include <array>
#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "NarumiCommon/CoulombConstant.h"

namespace OpenMMNarumi::PotentialMap {

using Common::COULOMB_CONSTANT;
/** Pairs closer than this (nm) are skipped: 0.01 Angstrom, far below any bond length or useful lattice spacing. */
constexpr double COINCIDENCE_RADIUS = 1e-3;

using Vec3 = std::array<double, 3>;

enum class Method { Direct, Cutoff, Msm };
/** How each lattice point's sum is accumulated in single precision on the GPU (the CPU backend sums in double). */
enum class Accumulation {
    Compensated,  // terms summed in float in blocks of 32 atoms, blocks added with Knuth's TwoSum (default)
    Narumi,       // blocks added to Narumi's float + int32 accumulator (order independent; range +-2^20 kJ/mol/e)
    Float         // plain float sum, the fastest and least accurate
};
enum class Backend { Auto, Cpu, Cuda };

/** A rectangular lattice: point (i, j, k) is at origin + (i * spacing[0], j * spacing[1], k * spacing[2]). */
struct Lattice {
    Vec3 origin{0.0, 0.0, 0.0};
    Vec3 spacing{0.05, 0.05, 0.05};
    std::array<int, 3> dims{0, 0, 0};

    size_t numPoints() const {
        return (size_t) dims[0] * (size_t) dims[1] * (size_t) dims[2];
    }
    /** Throws std::invalid_argument naming the bad value. */
    void validate() const;
    /** The smallest lattice at `spacing` that covers the positions' bounding box plus `margin` on every side. */
    static Lattice boundingBox(const std::vector<Vec3>& positions, double margin, double spacing);
};

/** A periodic box in OpenMM's reduced form: a = (ax, 0, 0), b = (bx, by, 0), c = (cx, cy, cz). */
struct PeriodicBox {
    Vec3 a{0, 0, 0}, b{0, 0, 0}, c{0, 0, 0};
    /** Throws std::invalid_argument unless the vectors are finite, positive and in reduced form. */
    void validate() const;
};

struct Options {
    Method method = Method::Cutoff;
    double cutoff = 1.2;                          // nm, Method::Cutoff only
    double msmAccuracy = 1e-3;                    // Method::Msm: relative RMS error bound (sets the two below)
    double msmSpacing = 0;                        // Method::Msm: finest lattice spacing h (nm); 0: from msmAccuracy
    double msmCutoff = 0;                         // Method::Msm: short-range cutoff a (nm); 0: from msmAccuracy
    int msmOrder = 5;                             // Method::Msm: 5 (quintic basis, C3 splitting) or 3 (C1 cubic, C2)
    Accumulation accumulation = Accumulation::Compensated;
    Backend backend = Backend::Auto;              // Auto: CUDA when a device is present, otherwise the CPU
    int cpuThreads = 0;                           // CPU backend threads; 0: all hardware threads
    int cudaDevice = 0;                           // CUDA backend: the device it runs on
    std::vector<int> cudaDevices;                 // two or more: the map in z slabs over these devices (cudaDevice unused)
    int directSoftwareRsqrt = -1;                 // CUDA direct kernel: points of 16 per thread whose 1/r runs on
                                                  // the FMA pipe (0, 2, 4 or 6); -1: the default (4)
};

/** Seconds spent in each stage of the last frame (CUDA: device events; CPU: wall clock). */
using Timings = std::map<std::string, double>;

/** One backend's work; PotentialMapEngine validates everything before calling it. */
class MapBackend {
public:
    virtual ~MapBackend() = default;
    /** positions: numAtoms x 3 (nm); box: nullptr for a non-periodic system.  Writes the frame's map (host). */
    virtual void compute(const double* positions, const PeriodicBox* box, float* map) = 0;
    /** Adds the frame's map into the running sum kept by the backend (on the GPU for CUDA). */
    virtual void accumulate(const double* positions, const PeriodicBox* box) = 0;
    /** Copies the running sum (double, x fastest) to the host. */
    virtual void getSum(double* sum) = 0;
    virtual void resetSum() = 0;
    virtual Timings lastTimings() const = 0;
    virtual std::string name() const = 0;
};

/** The map engine: a fixed lattice, fixed charges and options; one call per frame. */
class PotentialMapEngine {
public:
    PotentialMapEngine(const Lattice& lattice, const std::vector<double>& charges, const Options& options);
    ~PotentialMapEngine();

    /** One frame's map, numPoints floats in kJ/mol/e.  positions: numAtoms x 3 doubles in nm. */
    void compute(const double* positions, const PeriodicBox* box, float* map);
    /** Adds one frame's map into the time average. */
    void accumulate(const double* positions, const PeriodicBox* box);
    /** The time average so far (kJ/mol/e, double); throws if no frame was accumulated. */
    void getAverage(double* average);
    /** The sum of the accumulated frames' maps (kJ/mol/e, double; zeros before the first frame): what parallel runs
     *  add up before dividing by their total frame count. */
    void getSum(double* sum);
    int numFrames() const {
        return frames;
    }
    void reset();

    const Lattice& lattice() const {
        return lattice_;
    }
    const Options& options() const {
        return options_;
    }
    size_t numAtoms() const {
        return charges_.size();
    }
    /** "cpu" or "cuda". */
    std::string backendName() const;
    Timings lastTimings() const;

    /** Whether this build has the CUDA backend and a CUDA device is visible. */
    static bool cudaAvailable();

private:
    void validateFrame(const double* positions, const PeriodicBox* box) const;
    Lattice lattice_;
    std::vector<double> charges_;
    Options options_;
    std::unique_ptr<MapBackend> backend_;
    int frames = 0;
};

/** The multilevel summation's h and a (nm): options.msmSpacing and msmCutoff, or those that the error model of
 *  MsmNumerics.h gives options.msmAccuracy for open or periodic boundaries (a periodic plan rounds h down to fit the
 *  cell). */
void msmParameters(const Options& options, bool periodic, double& spacing, double& cutoff);

/** The CPU backend (always built). */
std::unique_ptr<MapBackend> createCpuBackend(const Lattice& lattice, const std::vector<double>& charges, const Options& options);

} // namespace OpenMMNarumi::PotentialMap

#endif // NARUMI_POTENTIAL_MAP_H_
