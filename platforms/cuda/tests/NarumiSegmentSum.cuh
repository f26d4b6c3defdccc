#ifndef NARUMI_SEGMENT_SUM_CUH_
#define NARUMI_SEGMENT_SUM_CUH_

/**
 * The accumulation pattern of a force kernel, one thread per atom summing that atom's pair terms (Narumi et al.
 * 2008, Figure 8), on plain data: numSegments segments of `length` floats, one thread per segment.
 * Term i of segment s is values[i * numSegments + s], so that consecutive threads read consecutive words.
 * All pointers are device memory; the totals and the flag are added to atomically, so zero them first.
 * Both functions launch asynchronously on `stream` and return the launch's error.  Test-only (TestNarumiAccumulator):
 * the product's kernels accumulate through the same header, NarumiAccumulator.cuh.
 */

#include "NarumiCommon/NarumiAccumulator.cuh"
#include <cuda_runtime.h>

namespace OpenMMNarumi {

/**
 * Narumi accumulation.  segmentSums[s] is segment s's carried (normalized) accumulator; each in-range segment is
 * added to *totalFixedPoint (OpenMM's 2^32 fixed point), each out-of-range one sets *outOfRangeFlag instead.
 */
cudaError_t sumSegmentsNarumi(const float* values, int length, int numSegments, Common::NarumiAccumulator* segmentSums,
                              unsigned long long* totalFixedPoint, int* outOfRangeFlag, cudaStream_t stream = 0);

/** Plain float accumulation (Narumi's method A), for comparison: segmentSums[s] and a float atomicAdd into *total. */
cudaError_t sumSegmentsFloat(const float* values, int length, int numSegments, float* segmentSums, float* total,
                             cudaStream_t stream = 0);

} // namespace OpenMMNarumi

#endif // NARUMI_SEGMENT_SUM_CUH_
