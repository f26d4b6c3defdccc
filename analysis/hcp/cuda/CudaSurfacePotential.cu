// CUDA backend.  The host side owns memory and launch geometry; each kernel does one job:
//   exactCoulombKernel   sum_i q_i / d_i over all atoms, atom tiles staged in shared memory, several points per
//                        thread (register blocking), the atoms optionally split into chunks for small point sets
//   hcpCoulombKernel     the HCP walk of Daga et al., one thread per point; the warp walks the hierarchy in
//                        lockstep (a level is opened when any lane needs it, __any_sync), so the component records
//                        it reads are the same for all lanes; the top two levels are staged in shared memory
//   alpbPotentialKernel  potential = chargeScale * sum - monopoleScale * Q / r
// CUB reduces the atom chunks (DeviceSegmentedReduce) and sums the potentials (DeviceReduce).
// Arithmetic in single precision on coordinates relative to the molecule's centroid; sums over components and
// tiles accumulate in double.

#include "SurfacePotential.h"
#include "NarumiCommon/CudaAvailability.h"
#include "NarumiCommon/CudaError.h"
#include "NarumiCommon/CudaStream.h"
#include "NarumiCommon/DeviceBuffer.h"
#include "NarumiCommon/StageTimer.h"

#include <cub/cub.cuh>
#include <cuda_runtime.h>

#include <algorithm>
#include <stdexcept>
#include <string>

namespace OpenMMNarumi::Hcp {

using Common::checkCuda;
using Common::DeviceBuffer;

namespace {

// One level of components on the device: geometric centres, the negative and positive approximate charges
// (xyz, charge in w), and CSR offsets into the level below.
struct LevelView {
    const float4* centers;
    const float4* negative;
    const float4* positive;
    const int* childStart;
    int size;
};

struct HierarchyView {
    LevelView complexes, chains, residues;
    const float4* atoms;  // xyz, charge in w
};

constexpr unsigned kFullMask = 0xffffffffu;
constexpr int kExactBlock = 128;
constexpr int kPointsPerThread = 4;
constexpr int kHcpBlock = 128;

__device__ inline float distance2(const float4 a, const float4 b) {
    const float dx = a.x - b.x, dy = a.y - b.y, dz = a.z - b.z;
    return fmaf(dx, dx, fmaf(dy, dy, dz * dz));
}

__device__ inline float approximate(const LevelView& level, int k, const float4 point) {
    const float4 negative = level.negative[k], positive = level.positive[k];
    return negative.w * rsqrtf(distance2(negative, point)) + positive.w * rsqrtf(distance2(positive, point));
}

__global__ void __launch_bounds__(kExactBlock) exactCoulombKernel(const float4* __restrict__ points, int numPoints,
                                                                  const float4* __restrict__ atoms, int numAtoms,
                                                                  int atomsPerChunk, double* __restrict__ sums) {
    __shared__ float4 tile[kExactBlock];
    const int numChunks = gridDim.y;
    float4 point[kPointsPerThread];
    double sum[kPointsPerThread];
    for (int k = 0; k < kPointsPerThread; ++k) {
        const int p = (blockIdx.x * kPointsPerThread + k) * kExactBlock + threadIdx.x;
        point[k] = points[min(p, numPoints - 1)];
        sum[k] = 0;
    }
    const int atomBegin = blockIdx.y * atomsPerChunk;
    const int atomEnd = min(numAtoms, atomBegin + atomsPerChunk);
    for (int base = atomBegin; base < atomEnd; base += kExactBlock) {
        if (base + threadIdx.x < atomEnd) tile[threadIdx.x] = atoms[base + threadIdx.x];
        __syncthreads();
        const int count = min(kExactBlock, atomEnd - base);
        float partial[kPointsPerThread] = {};
#pragma unroll 4
        for (int j = 0; j < count; ++j) {
            const float4 atom = tile[j];
#pragma unroll
            for (int k = 0; k < kPointsPerThread; ++k)
                partial[k] = fmaf(atom.w, rsqrtf(distance2(atom, point[k])), partial[k]);
        }
        for (int k = 0; k < kPointsPerThread; ++k) sum[k] += partial[k];
        __syncthreads();
    }
    // Point-major layout: each point's chunk sums are one contiguous segment for CUB.
    for (int k = 0; k < kPointsPerThread; ++k) {
        const int p = (blockIdx.x * kPointsPerThread + k) * kExactBlock + threadIdx.x;
        if (p < numPoints) sums[static_cast<size_t>(p) * numChunks + blockIdx.y] = sum[k];
    }
}

// Copies one level's records into shared memory and points the view at the copy.
__device__ void stageLevel(LevelView& level, float4* records, int* starts) {
    for (int k = threadIdx.x; k < level.size; k += blockDim.x) {
        records[k] = level.centers[k];
        records[level.size + k] = level.negative[k];
        records[2 * level.size + k] = level.positive[k];
    }
    for (int k = threadIdx.x; k <= level.size; k += blockDim.x) starts[k] = level.childStart[k];
    level.centers = records;
    level.negative = records + level.size;
    level.positive = records + 2 * level.size;
    level.childStart = starts;
}

size_t stagedBytes(int numComplexes, int numChains) {
    return sizeof(float4) * 3 * (numComplexes + numChains) + sizeof(int) * (numComplexes + numChains + 2);
}

// thresholds2: squared residue, chain and complex thresholds (a component nearer than its threshold is opened).
template <bool kStageTopLevels>
__global__ void __launch_bounds__(kHcpBlock) hcpCoulombKernel(const float4* __restrict__ points, int numPoints,
                                                              HierarchyView h, float3 thresholds2,
                                                              double* __restrict__ sums) {
    extern __shared__ float4 staged[];
    if (kStageTopLevels) {
        const int records = 3 * (h.complexes.size + h.chains.size);
        int* starts = reinterpret_cast<int*>(staged + records);
        stageLevel(h.complexes, staged, starts);
        stageLevel(h.chains, staged + 3 * h.complexes.size, starts + h.complexes.size + 1);
        __syncthreads();
    }
    const int p = blockIdx.x * blockDim.x + threadIdx.x;
    const bool active = p < numPoints;  // idle lanes still take part in the warp votes
    const float4 point = points[min(p, numPoints - 1)];
    double total = 0;
    for (int c = 0; c < h.complexes.size; ++c) {
        const bool nearComplex = active && distance2(h.complexes.centers[c], point) < thresholds2.z;
        if (active && !nearComplex) total += approximate(h.complexes, c, point);
        if (!__any_sync(kFullMask, nearComplex)) continue;
        for (int s = h.complexes.childStart[c]; s < h.complexes.childStart[c + 1]; ++s) {
            const bool nearChain = nearComplex && distance2(h.chains.centers[s], point) < thresholds2.y;
            if (nearComplex && !nearChain) total += approximate(h.chains, s, point);
            if (!__any_sync(kFullMask, nearChain)) continue;
            float chainSum = 0;
            for (int r = h.chains.childStart[s]; r < h.chains.childStart[s + 1]; ++r) {
                const bool nearResidue = nearChain && distance2(h.residues.centers[r], point) < thresholds2.x;
                if (nearChain && !nearResidue) chainSum += approximate(h.residues, r, point);
                if (!__any_sync(kFullMask, nearResidue)) continue;
                float residueSum = 0;
                for (int a = h.residues.childStart[r]; a < h.residues.childStart[r + 1]; ++a) {
                    const float4 atom = h.atoms[a];
                    residueSum = fmaf(atom.w, rsqrtf(distance2(atom, point)), residueSum);
                }
                if (nearResidue) chainSum += residueSum;
            }
            total += chainSum;
        }
    }
    if (active) sums[p] = total;
}

__global__ void alpbPotentialKernel(const float4* __restrict__ points, const double* __restrict__ coulombSums,
                                    int numPoints, double chargeScale, double monopoleTerm,
                                    double* __restrict__ potentials) {
    const int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p < numPoints) potentials[p] = chargeScale * coulombSums[p] - monopoleTerm / points[p].w;
}

float4 toFloat4(const Vec3& x, const Vec3& origin, double w) {
    return make_float4(static_cast<float>(x[0] - origin[0]), static_cast<float>(x[1] - origin[1]),
                       static_cast<float>(x[2] - origin[2]), static_cast<float>(w));
}

struct DeviceLevel {
    DeviceBuffer<float4> centers, negative, positive;
    DeviceBuffer<int> childStart;

    void upload(const ComponentLevel& level, const Vec3& origin, cudaStream_t stream) {
        std::vector<float4> c(level.size()), n(level.size()), p(level.size());
        for (int k = 0; k < level.size(); ++k) {
            const ApproximateCharges& a = level.approximations[k];
            c[k] = toFloat4(level.centers[k], origin, 0);
            n[k] = toFloat4(a.negativeCenter, origin, a.negativeCharge);
            p[k] = toFloat4(a.positiveCenter, origin, a.positiveCharge);
        }
        centers.upload(c, stream);
        negative.upload(n, stream);
        positive.upload(p, stream);
        childStart.upload(level.childStart, stream);
        checkCuda(cudaStreamSynchronize(stream), "upload of the hierarchy");  // the host vectors die here
    }
    LevelView view() const {
        return {centers.data(), negative.data(), positive.data(), childStart.data(), static_cast<int>(centers.size())};
    }
};

class CudaBackend : public SurfacePotentialBackend {
public:
    explicit CudaBackend(int device) : device_(Common::selectCudaDevice(device, "the HCP surface potential")) {
        checkCuda(cudaDeviceGetAttribute(&numSMs_, cudaDevAttrMultiProcessorCount, device_), "cudaDeviceGetAttribute");
        checkCuda(cudaDeviceGetAttribute(&sharedPerBlock_, cudaDevAttrMaxSharedMemoryPerBlock, device_), "cudaDeviceGetAttribute");
    }
    ~CudaBackend() override {
        cudaSetDevice(device_);  // the members' memory and stream are freed on it
    }

    std::string name() const override { return "cuda"; }

    void setHierarchy(const ChargeHierarchy& hierarchy, const Vec3& origin) override {
        checkCuda(cudaSetDevice(device_), "cudaSetDevice");
        std::vector<float4> atoms(hierarchy.numAtoms());
        for (int a = 0; a < hierarchy.numAtoms(); ++a)
            atoms[a] = toFloat4(hierarchy.atomPositions[a], origin, hierarchy.atomCharges[a]);
        atoms_.upload(atoms, stream_);
        residues_.upload(hierarchy.residues, origin, stream_);
        chains_.upload(hierarchy.chains, origin, stream_);
        complexes_.upload(hierarchy.complexes, origin, stream_);
    }

    PotentialResult compute(const EvaluationPoints& evaluation, SummationMode mode, const HcpThresholds& thresholds,
                            const AlpbCoefficients& coefficients, double totalCharge) override {
        checkCuda(cudaSetDevice(device_), "cudaSetDevice");
        const int numPoints = static_cast<int>(evaluation.size());
        std::vector<float4> hostPoints(numPoints);
        for (int p = 0; p < numPoints; ++p) {
            const double* x = &evaluation.xyzr[4 * p];
            hostPoints[p] = make_float4(x[0], x[1], x[2], x[3]);
        }
        points_.upload(hostPoints, stream_);
        coulomb_.resize(numPoints);
        potentials_.resize(numPoints);
        timer_.start(stream_);
        if (mode == SummationMode::Exact)
            launchExact(numPoints);
        else
            launchHcp(numPoints, thresholds);
        const int finalizeBlocks = (numPoints + 255) / 256;
        alpbPotentialKernel<<<finalizeBlocks, 256, 0, stream_>>>(points_.data(), coulomb_.data(), numPoints,
                                                                 coefficients.chargeScale,
                                                                 coefficients.monopoleScale * totalCharge,
                                                                 potentials_.data());
        checkCuda(cudaGetLastError(), "alpbPotentialKernel launch");
        total_.resize(1);
        size_t tempBytes = 0;
        checkCuda(cub::DeviceReduce::Sum(nullptr, tempBytes, potentials_.data(), total_.data(), numPoints, stream_), "cub::DeviceReduce::Sum");
        temp_.resize(tempBytes);
        checkCuda(cub::DeviceReduce::Sum(temp_.data(), tempBytes, potentials_.data(), total_.data(), numPoints, stream_), "cub::DeviceReduce::Sum");
        timer_.mark("kernels and reductions", stream_);

        PotentialResult result;
        result.potentials.resize(numPoints);
        potentials_.download(result.potentials.data(), numPoints, stream_);
        total_.download(&result.total, 1, stream_);
        checkCuda(cudaStreamSynchronize(stream_), "surface potential kernels");
        result.deviceMilliseconds = timer_.finish().front().milliseconds;
        return result;
    }

private:
    void launchExact(int numPoints) {
        const int numAtoms = static_cast<int>(atoms_.size());
        const int pointsPerBlock = kExactBlock * kPointsPerThread;
        const int pointBlocks = (numPoints + pointsPerBlock - 1) / pointsPerBlock;
        // Few points: split the atoms into chunks so that every SM gets several blocks.
        const int wantedBlocks = 8 * numSMs_;
        int numChunks = std::max(1, std::min((wantedBlocks + pointBlocks - 1) / pointBlocks,
                                             (numAtoms + kExactBlock - 1) / kExactBlock));
        const int atomsPerChunk = ((numAtoms + numChunks - 1) / numChunks + kExactBlock - 1) / kExactBlock * kExactBlock;
        numChunks = (numAtoms + atomsPerChunk - 1) / atomsPerChunk;
        double* chunkSums = coulomb_.data();
        if (numChunks > 1) {
            chunkSums_.resize(static_cast<size_t>(numPoints) * numChunks);
            chunkSums = chunkSums_.data();
        }
        exactCoulombKernel<<<dim3(pointBlocks, numChunks), kExactBlock, 0, stream_>>>(
            points_.data(), numPoints, atoms_.data(), numAtoms, atomsPerChunk, chunkSums);
        checkCuda(cudaGetLastError(), "exactCoulombKernel launch");
        if (numChunks == 1) return;
        if (segmentPoints_ != numPoints || segmentChunks_ != numChunks) {
            std::vector<int> offsets(numPoints + 1);
            for (int p = 0; p <= numPoints; ++p) offsets[p] = p * numChunks;
            segmentOffsets_.upload(offsets, stream_);
            checkCuda(cudaStreamSynchronize(stream_), "upload of the segment offsets");
            segmentPoints_ = numPoints;
            segmentChunks_ = numChunks;
        }
        size_t tempBytes = 0;
        checkCuda(cub::DeviceSegmentedReduce::Sum(nullptr, tempBytes, chunkSums, coulomb_.data(), numPoints,
                                                  segmentOffsets_.data(), segmentOffsets_.data() + 1, stream_),
                  "cub::DeviceSegmentedReduce::Sum");
        temp_.resize(tempBytes);
        checkCuda(cub::DeviceSegmentedReduce::Sum(temp_.data(), tempBytes, chunkSums, coulomb_.data(), numPoints,
                                                  segmentOffsets_.data(), segmentOffsets_.data() + 1, stream_),
                  "cub::DeviceSegmentedReduce::Sum");
    }

    void launchHcp(int numPoints, const HcpThresholds& thresholds) {
        const HierarchyView view{complexes_.view(), chains_.view(), residues_.view(), atoms_.data()};
        const auto square = [](double h) { return static_cast<float>(h * h); };
        const float3 thresholds2 = make_float3(square(thresholds.residue), square(thresholds.chain), square(thresholds.complex));
        const int blocks = (numPoints + kHcpBlock - 1) / kHcpBlock;
        const size_t shared = stagedBytes(view.complexes.size, view.chains.size);
        if (shared <= static_cast<size_t>(sharedPerBlock_)) {
            hcpCoulombKernel<true><<<blocks, kHcpBlock, shared, stream_>>>(points_.data(), numPoints, view, thresholds2, coulomb_.data());
        } else {
            hcpCoulombKernel<false><<<blocks, kHcpBlock, 0, stream_>>>(points_.data(), numPoints, view, thresholds2, coulomb_.data());
        }
        checkCuda(cudaGetLastError(), "hcpCoulombKernel launch");
    }

    int device_;  // made current before the stream below is made on it
    int numSMs_ = 0, sharedPerBlock_ = 0;
    Common::CudaStream stream_;
    Common::StageTimer timer_;  // PotentialResult::deviceMilliseconds
    DeviceBuffer<float4> atoms_, points_;
    DeviceLevel residues_, chains_, complexes_;
    DeviceBuffer<double> coulomb_, chunkSums_, potentials_, total_;
    DeviceBuffer<int> segmentOffsets_;
    int segmentPoints_ = -1, segmentChunks_ = -1;
    DeviceBuffer<unsigned char> temp_;
};

}  // namespace

std::unique_ptr<SurfacePotentialBackend> createCudaBackend(int device) {
    return std::make_unique<CudaBackend>(device);
}

}  // namespace OpenMMNarumi::Hcp
