#ifndef NARUMI_ACCUMULATOR_DISPATCH_CUH_
#define NARUMI_ACCUMULATOR_DISPATCH_CUH_

/** From the run-time accumulation method to the accumulator type that the kernels take as a template parameter. */

#include "NarumiNonbondedLaunch.h"
#include "NarumiTermAccumulators.cuh"

namespace OpenMMNarumi {

/** An accumulator type passed as a value: typename decltype(tag)::type. */
template <class Accumulator>
struct NarumiAccumulatorTag {
    using type = Accumulator;
};

/**
 * Calls f(NarumiAccumulatorTag<A>{}) with the accumulator A of method (NarumiTermAccumulators.cuh), e.g.
 *
 *   narumiWithAccumulator(method, doublePairs, sumsInDouble, [&](auto tag) { launch<typename decltype(tag)::type>(...); });
 *
 * the one switch over the methods, shared by the stages whose kernels are templates over the accumulator.  With
 * doublePairs (Precision=double) Narumi, FixedPoint64, TileSums and DoubleFloat take double-precision pair terms; the float-pair
 * methods A and C-E are defined on float terms and keep them.  With sumsInDouble Narumi's float-pair sums are held in
 * doubles (NarumiGridInDoubleAccumulator: the same bits, for GPUs with fast double adds).
 */
template <class F>
void narumiWithAccumulator(NarumiAccumulation method, bool doublePairs, bool sumsInDouble, F&& f) {
    if (doublePairs) {
        switch (method) {
        case NarumiAccumulation::Narumi:
            f(NarumiAccumulatorTag<NarumiGridDoubleTermAccumulator>{});
            return;
        case NarumiAccumulation::FixedPoint64:
            f(NarumiAccumulatorTag<FixedPoint64DoubleTermAccumulator>{});
            return;
        case NarumiAccumulation::DoubleFloat:
            f(NarumiAccumulatorTag<DoubleDoubleTermAccumulator>{});
            return;
        case NarumiAccumulation::TileSums:
            f(NarumiAccumulatorTag<TileSumTermAccumulator<double>>{});
            return;
        default:
            break;
        }
    }
    switch (method) {
    case NarumiAccumulation::Narumi:
        if (sumsInDouble)
            f(NarumiAccumulatorTag<NarumiGridInDoubleAccumulator>{});
        else
            f(NarumiAccumulatorTag<NarumiTermAccumulator>{});
        break;
    case NarumiAccumulation::SingleFloat:
        f(NarumiAccumulatorTag<SingleFloatTermAccumulator>{});
        break;
    case NarumiAccumulation::DoubleFloat:
        f(NarumiAccumulatorTag<DoubleFloatTermAccumulator>{});
        break;
    case NarumiAccumulation::FixedPoint64:
        f(NarumiAccumulatorTag<FixedPoint64TermAccumulator>{});
        break;
    case NarumiAccumulation::TileSums:
        f(NarumiAccumulatorTag<TileSumTermAccumulator<float>>{});
        break;
    case NarumiAccumulation::TakahashiIitaka:
        f(NarumiAccumulatorTag<TakahashiIitakaTermAccumulator>{});
        break;
    case NarumiAccumulation::Nitadori:
        f(NarumiAccumulatorTag<NitadoriTermAccumulator>{});
        break;
    case NarumiAccumulation::ModifiedNitadori:
        f(NarumiAccumulatorTag<ModifiedNitadoriTermAccumulator>{});
        break;
    }
}

} // namespace OpenMMNarumi

#endif // NARUMI_ACCUMULATOR_DISPATCH_CUH_
