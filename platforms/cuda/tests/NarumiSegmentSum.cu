#include "NarumiSegmentSum.cuh"
#include <algorithm>

namespace OpenMMNarumi {

namespace {

constexpr int BLOCK_SIZE = 128;

int gridSize(int numSegments) {
    return std::max(1, (numSegments + BLOCK_SIZE - 1) / BLOCK_SIZE);
}

/**
 * Merge a thread's finished sum into a shared or global fixed-point buffer such as OpenMM's force buffer.
 * The paper needs no atomic on the (hi, lo) pair itself, since each thread owns its accumulator; merging threads
 * is integer addition, exact and order-independent.  An out-of-range sum is not added: it raises *outOfRangeFlag.
 */
__device__ inline void narumiAtomicAddFixedPoint(unsigned long long* target, int* outOfRangeFlag, const Common::NarumiAccumulator& a) {
    if (Common::narumiOutOfRange(a))
        atomicOr(outOfRangeFlag, 1);
    else
        atomicAdd(target, (unsigned long long) Common::narumiToFixedPoint(a));
}

__global__ void sumSegmentsNarumiKernel(const float* __restrict__ values, int length, int numSegments,
                                        Common::NarumiAccumulator* segmentSums, unsigned long long* totalFixedPoint,
                                        int* outOfRangeFlag) {
    for (int s = blockIdx.x * blockDim.x + threadIdx.x; s < numSegments; s += gridDim.x * blockDim.x) {
        Common::NarumiAccumulator sum = Common::narumiZero();
        // Figure 8's loop nest: a block of additions, then a carry, so lo never overflows.
        for (int start = 0; start < length; start += Common::NARUMI_CARRY_INTERVAL) {
            int end = min(start + Common::NARUMI_CARRY_INTERVAL, length);
            for (int i = start; i < end; i++)
                Common::narumiAdd(sum, values[(size_t) i * numSegments + s]);
            Common::narumiCarry(sum);
        }
        segmentSums[s] = sum;
        narumiAtomicAddFixedPoint(totalFixedPoint, outOfRangeFlag, sum);
    }
}

__global__ void sumSegmentsFloatKernel(const float* __restrict__ values, int length, int numSegments,
                                       float* segmentSums, float* total) {
    for (int s = blockIdx.x * blockDim.x + threadIdx.x; s < numSegments; s += gridDim.x * blockDim.x) {
        float sum = 0.0f;
        for (int i = 0; i < length; i++)
            sum += values[(size_t) i * numSegments + s];
        segmentSums[s] = sum;
        atomicAdd(total, sum);
    }
}

} // namespace

cudaError_t sumSegmentsNarumi(const float* values, int length, int numSegments, Common::NarumiAccumulator* segmentSums,
                              unsigned long long* totalFixedPoint, int* outOfRangeFlag, cudaStream_t stream) {
    sumSegmentsNarumiKernel<<<gridSize(numSegments), BLOCK_SIZE, 0, stream>>>(values, length, numSegments, segmentSums,
                                                                              totalFixedPoint, outOfRangeFlag);
    return cudaGetLastError();
}

cudaError_t sumSegmentsFloat(const float* values, int length, int numSegments, float* segmentSums, float* total,
                             cudaStream_t stream) {
    sumSegmentsFloatKernel<<<gridSize(numSegments), BLOCK_SIZE, 0, stream>>>(values, length, numSegments, segmentSums, total);
    return cudaGetLastError();
}

} // namespace OpenMMNarumi
