#ifndef NARUMI_DIAGNOSTICS_H_
#define NARUMI_DIAGNOSTICS_H_

#include "NarumiAccumulation.h"
#include "NarumiDeviceSettings.h"
#include <optional>
#include <string>

namespace OpenMMNarumi {

/**
 * The diagnostics of NarumiNonbondedForce on the CUDA platform: switches for measurements, tests and the accuracy
 * study, never for production runs, all in one environment variable that is read when a Context creates the force's
 * kernel, comma-separated settings, each a name or name=value:
 *
 *     NARUMI_DIAGNOSTICS=profile-stages,list-skin=0.14,accumulation=Nitadori
 *
 * Unset or empty: none, the production path.  A Context made with any prints one line to stderr saying which
 * (CudaNarumiKernelFactory.cpp).  Only accumulation changes the forces (to the paper's lossy float pairs); the others
 * change how the same sums are made, or time them.  Host code, no device needed.
 */
struct NarumiDiagnostics {
    /** The environment variable. */
    static constexpr const char* VARIABLE = "NARUMI_DIAGNOSTICS";

    /** profile-stages[=on|off]: time every stage with CUDA events and print the times when the Context is deleted. */
    std::optional<bool> profileStages;
    /** list-skin=NM, 0 to 1: a fixed skin for the neighbour list (0: rebuilt every evaluation), else chosen. */
    std::optional<double> listSkin;
    /** tile-chunks[=on|off]: computeTiles' warps take the list in chunks, or one fixed run each; else the GPU's setting. */
    std::optional<bool> tileChunks;
    /** search-warps=4|8: warps per thread block of the neighbour search; else chosen from the list's size. */
    std::optional<int> searchWarps;
    /** sums-in-double[=on|off]: Narumi's sums held in doubles or as float + int32 pairs; else the GPU's setting. */
    std::optional<bool> sumsInDouble;
    /** exclusion-stream[=on|off]: the exclusion pass on a stream of its own (the default; off while profiling). */
    std::optional<bool> exclusionStream;
    /** device-class=double-rate|float-rate: the settings chosen for that class of GPU of this one's size. */
    std::optional<NarumiDeviceClass> deviceClass;
    /** sort-curve=edges|cubes: periodic boxes sorted along the curve of cubes (NarumiSortCurve.cuh, the default) or
     * along the Hilbert curve over fractions of each edge, the default of 0.3.0 and before; true for cubes. */
    std::optional<bool> sortAlongCubes;
    /** accumulation=TakahashiIitaka|Nitadori|ModifiedNitadori: the paper's methods C-E instead of the force's method. */
    std::optional<NarumiAccumulation> accumulation;
    /** shared-carveout=0..100|driver: every kernel of the force in this preferred shared-memory carveout (percent), or
     * in the driver's choice per kernel (-1), instead of the carveout its pair kernel needs. */
    std::optional<int> sharedCarveout;
    /** tile-first-chunks=assigned|counter: computeTiles' warps each take their first chunk of the list as assigned
     * (true), or every chunk from the shared counter (false); else the GPU's setting. */
    std::optional<bool> tileFirstChunksAssigned;

    /**
     * The settings of a NARUMI_DIAGNOSTICS value ("" or blanks: none).  An unknown name, a bad value, a setting given
     * twice or an empty one is an OpenMMException that names it and lists the valid ones.
     */
    static NarumiDiagnostics parse(const std::string& settings);
    /** The settings of the environment's NARUMI_DIAGNOSTICS (none when it is unset). */
    static NarumiDiagnostics fromEnvironment();
    /** Whether any setting is given. */
    bool any() const;
    /** The settings given, as NARUMI_DIAGNOSTICS takes them, in a fixed order ("" for none). */
    std::string describe() const;
};

} // namespace OpenMMNarumi

#endif // NARUMI_DIAGNOSTICS_H_
