#ifndef NARUMI_ACCUMULATION_H_
#define NARUMI_ACCUMULATION_H_

namespace OpenMMNarumi {

/**
 * The kernels' accumulation methods.  Narumi to FixedPoint64 and TileSums are NarumiNonbondedForce::AccumulationMethod's,
 * with its values (static_asserts in CudaNarumiKernels.cpp); the paper's float pairs (methods C-E) are the kernels' only, for the
 * accuracy study, selected through NARUMI_DIAGNOSTICS (NarumiDiagnostics.h).
 */
enum class NarumiAccumulation : int {
    Narumi = 0, SingleFloat = 1, DoubleFloat = 2, FixedPoint64 = 3, TakahashiIitaka = 4, Nitadori = 5, ModifiedNitadori = 6,
    TileSums = 7
};

/** Methods whose forces are summed in the double buffer (forceDouble) and merged into OpenMM's at the end. */
inline bool narumiSumsForcesInDouble(NarumiAccumulation method) {
    return method == NarumiAccumulation::DoubleFloat || method == NarumiAccumulation::TakahashiIitaka ||
           method == NarumiAccumulation::Nitadori || method == NarumiAccumulation::ModifiedNitadori;
}

} // namespace OpenMMNarumi

#endif // NARUMI_ACCUMULATION_H_
