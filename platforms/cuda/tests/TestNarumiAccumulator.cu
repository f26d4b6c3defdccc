/**
 * Narumi's accumulator on the GPU against exact host sums: accuracy, order independence, out-of-range detection and
 * exact conversion to OpenMM's 64-bit fixed point; and the paper's float-pair accumulators (methods C, D, E) against
 * a host transcription of its C code and against exact sums.  Every test skips (never passes) where no CUDA device is
 * present.
 */

#include "NarumiCommon/NarumiAccumulator.cuh"
#include "NarumiPairInteraction.cuh"
#include "NarumiTermAccumulators.cuh"
#include "PairExpression.cuh"
#include "NarumiSegmentSum.cuh"
#include <gtest/gtest.h>
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

using namespace OpenMMNarumi;
using namespace OpenMMNarumi::Common;

namespace {

#define ASSERT_CUDA(call)                                                                       \
    do {                                                                                        \
        cudaError_t status_ = (call);                                                           \
        ASSERT_EQ(status_, cudaSuccess) << #call << ": " << cudaGetErrorString(status_);        \
    } while (0)

const double LOW_UNITS_PER_ONE = 1.0 / NARUMI_LOW_UNIT;  // 2^25

/** Exactly what the accumulator adds for y, in units of 2^-25: y rounded to nearest (ties to even) on that grid. */
/** It depends on y alone, which is why the order cannot matter. */
long long narumiTermUnits(float y) {
    return std::llrint((double) y * LOW_UNITS_PER_ONE);  // exact product; llrint rounds half to even
}

/** Terms like pair forces in kJ/mol/nm: random sign, magnitude log-uniform in [1e-4, 1e3]. */
std::vector<float> pairForceLikeTerms(size_t count, unsigned seed) {
    std::mt19937 random(seed);
    std::uniform_real_distribution<double> exponent(-4.0, 3.0);
    std::bernoulli_distribution negative(0.5);
    std::vector<float> terms(count);
    for (float& term : terms)
        term = (float) ((negative(random) ? -1.0 : 1.0) * std::pow(10.0, exponent(random)));
    return terms;
}

/** Term i of segment s, in the column-major layout of NarumiSegmentSum.cuh. */
float& term(std::vector<float>& values, int numSegments, int i, int s) {
    return values[(size_t) i * numSegments + s];
}

struct SegmentSums {
    std::vector<NarumiAccumulator> narumi;
    std::vector<float> single;
    long long narumiTotal = 0;  // OpenMM fixed point
    float singleTotal = 0;
    int outOfRangeFlag = 0;
};

template <class T>
struct DeviceArray {
    T* data = nullptr;
    explicit DeviceArray(size_t count) {
        if (cudaMalloc(&data, std::max<size_t>(count, 1) * sizeof(T)) == cudaSuccess)
            cudaMemset(data, 0, std::max<size_t>(count, 1) * sizeof(T));
        else
            data = nullptr;
    }
    ~DeviceArray() {
        cudaFree(data);
    }
};

/** Sums each segment of `values` (length x numSegments, column-major) on the GPU with Narumi and with plain float. */
void sumOnDevice(const std::vector<float>& values, int length, int numSegments, SegmentSums& result) {
    DeviceArray<float> deviceValues(values.size()), singleSums(numSegments), singleTotal(1);
    DeviceArray<NarumiAccumulator> narumiSums(numSegments);
    DeviceArray<unsigned long long> narumiTotal(1);
    DeviceArray<int> flag(1);
    ASSERT_TRUE(deviceValues.data && singleSums.data && singleTotal.data && narumiSums.data && narumiTotal.data && flag.data);
    ASSERT_CUDA(cudaMemcpy(deviceValues.data, values.data(), values.size() * sizeof(float), cudaMemcpyHostToDevice));
    ASSERT_CUDA(sumSegmentsNarumi(deviceValues.data, length, numSegments, narumiSums.data, narumiTotal.data, flag.data));
    ASSERT_CUDA(sumSegmentsFloat(deviceValues.data, length, numSegments, singleSums.data, singleTotal.data));
    ASSERT_CUDA(cudaDeviceSynchronize());
    result.narumi.resize(numSegments);
    result.single.resize(numSegments);
    ASSERT_CUDA(cudaMemcpy(result.narumi.data(), narumiSums.data, numSegments * sizeof(NarumiAccumulator), cudaMemcpyDeviceToHost));
    ASSERT_CUDA(cudaMemcpy(result.single.data(), singleSums.data, numSegments * sizeof(float), cudaMemcpyDeviceToHost));
    ASSERT_CUDA(cudaMemcpy(&result.narumiTotal, narumiTotal.data, sizeof(long long), cudaMemcpyDeviceToHost));
    ASSERT_CUDA(cudaMemcpy(&result.singleTotal, singleTotal.data, sizeof(float), cudaMemcpyDeviceToHost));
    ASSERT_CUDA(cudaMemcpy(&result.outOfRangeFlag, flag.data, sizeof(int), cudaMemcpyDeviceToHost));
}

/** Each term rounded as Precision=double's sums round it (Narumi's grid and OpenMM's), with the error bits. */
__global__ void roundDoubleTerms(const double* terms, int count, long long* narumiGrid, long long* openmmGrid, int* errors) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count) {
        int narumiErrors = 0, openmmErrors = 0;
        narumiGrid[i] = narumiRoundedTerm<NARUMI_LOW_FRACTION_BITS>(terms[i], narumiErrors);
        openmmGrid[i] = narumiRoundedTerm<32>(terms[i], openmmErrors);
        errors[i] = narumiErrors | openmmErrors << 8;
    }
}

/** Precision=double's 1/sqrt on the GPU. */
__global__ void doubleRsqrt(const double* x, int count, double* result) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count)
        result[i] = narumiRsqrt(x[i]);
}

/**
 * Newton's-third-law form of the pair kernel: each term split once (narumiSplit), added to one sum and subtracted
 * from another, with a carry every NARUMI_CARRY_INTERVAL terms as the pair kernel carries after every tile.
 */
__global__ void sumSegmentsSplitKernel(const float* values, int length, int numSegments, NarumiAccumulator* added,
                                       NarumiAccumulator* subtracted) {
    for (int s = blockIdx.x * blockDim.x + threadIdx.x; s < numSegments; s += gridDim.x * blockDim.x) {
        NarumiAccumulator plus = narumiZero(), minus = narumiZero();
        for (int start = 0; start < length; start += NARUMI_CARRY_INTERVAL) {
            for (int i = start; i < min(start + NARUMI_CARRY_INTERVAL, length); i++) {
                NarumiSplitTerm term = narumiSplit(values[(size_t) i * numSegments + s]);
                narumiAddSplit(plus.hi, plus.lo, term);
                narumiSubtractSplit(minus.hi, minus.lo, term);
            }
            narumiCarry(plus);
            narumiCarry(minus);
        }
        added[s] = plus;
        subtracted[s] = minus;
    }
}

/** Each segment summed in order by one thread with a float-pair rule (PairExpression.cuh). */
template <PairExpressionRule RULE>
__global__ void sumSegmentsPairExpression(const float* values, int length, int numSegments, FloatPair* sums) {
    for (int s = blockIdx.x * blockDim.x + threadIdx.x; s < numSegments; s += gridDim.x * blockDim.x) {
        FloatPair sum = pairExpressionZero<RULE>();
        for (int i = 0; i < length; i++)
            sum = pairExpressionAdd<RULE>(sum, values[(size_t) i * numSegments + s]);
        sums[s] = sum;
    }
}

template <PairExpressionRule RULE>
std::vector<FloatPair> pairExpressionSumsOnDevice(const std::vector<float>& values, int length, int numSegments) {
    std::vector<FloatPair> sums(numSegments, FloatPair{NAN, NAN});
    DeviceArray<float> deviceValues(values.size());
    DeviceArray<FloatPair> deviceSums(numSegments);
    if (deviceValues.data && deviceSums.data &&
        cudaMemcpy(deviceValues.data, values.data(), values.size() * sizeof(float), cudaMemcpyHostToDevice) == cudaSuccess) {
        sumSegmentsPairExpression<RULE><<<(numSegments + 127) / 128, 128>>>(deviceValues.data, length, numSegments, deviceSums.data);
        cudaMemcpy(sums.data(), deviceSums.data, numSegments * sizeof(FloatPair), cudaMemcpyDeviceToHost);
    }
    return sums;
}

/** The paper's Figure 3 (Takahashi & Iitaka), transcribed operation by operation, in the host's IEEE float. */
FloatPair hostTakahashiIitaka(FloatPair a, float ys) {
    float zhs = a.hi + ys;
    float ws = zhs - a.hi;
    float z1s = ys - ws;
    float vs = zhs - ws;
    float z2s = vs - a.hi;
    float zls = z1s - z2s;
    float rs = a.lo + zls;
    float bhs = zhs + rs;
    float ts = bhs - zhs;
    return FloatPair{bhs, rs - ts};
}

/** The paper's Figure 5 with Figure 1 (Nitadori), likewise. */
FloatPair hostNitadori(FloatPair a, float ys) {
    float bhs = a.hi + ys;
    float ws = bhs - a.hi;
    float bls = ys - ws;
    return FloatPair{bhs, a.lo + bls};
}

/** Sum of a segment in long double (64-bit significand), compensated: exact to far below any float-pair error. */
long double exactSegmentSum(std::vector<float>& values, int numSegments, int length, int s) {
    long double sum = 0, compensation = 0;
    for (int i = 0; i < length; i++) {
        long double y = (long double) term(values, numSegments, i, s) - compensation;
        long double t = sum + y;
        compensation = (t - sum) - y;
        sum = t;
    }
    return sum;
}

class NarumiAccumulatorTest : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        int count = 0;
        cudaDeviceProp properties;
        if (cudaGetDeviceCount(&count) == cudaSuccess && count > 0 && cudaGetDeviceProperties(&properties, 0) == cudaSuccess)
            std::printf("GPU: %s (compute capability %d.%d)\n", properties.name, properties.major, properties.minor);
    }
    void SetUp() override {
        int count = 0;
        if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0)
            GTEST_SKIP() << "no CUDA device";
    }
};

// 1024 segments (atoms) of 1024 terms: 1,048,576 terms in all.
const int LENGTH = 1024;
const int SEGMENTS = 1024;

TEST_F(NarumiAccumulatorTest, SumsAreExactOnTheGridAndFarBetterThanFloat) {
    std::vector<float> values = pairForceLikeTerms((size_t) LENGTH * SEGMENTS, 2008);
    SegmentSums sums;
    ASSERT_NO_FATAL_FAILURE(sumOnDevice(values, LENGTH, SEGMENTS, sums));

    int wrongBits = 0, outOfRange = 0;
    long long totalUnits = 0;
    long double exactTotal = 0;
    double maxNarumiError = 0, maxFloatError = 0;
    for (int s = 0; s < SEGMENTS; s++) {
        long long units = 0;
        long double exact = 0;
        for (int i = 0; i < LENGTH; i++) {
            units += narumiTermUnits(term(values, SEGMENTS, i, s));
            exact += term(values, SEGMENTS, i, s);
        }
        const NarumiAccumulator& sum = sums.narumi[s];
        outOfRange += narumiOutOfRange(sum);
        wrongBits += narumiToFixedPoint(sum) != units * (1LL << NARUMI_FIXED_POINT_SHIFT) || narumiToDouble(sum) != units * NARUMI_LOW_UNIT ||
                     narumiUnitsInBinade(sum.hi, sum.lo) != units;  // the integer-only conversion of the pair kernel's tile sums
        maxNarumiError = std::max(maxNarumiError, (double) std::fabs(narumiToDouble(sum) - exact));
        maxFloatError = std::max(maxFloatError, (double) std::fabs(sums.single[s] - exact));
        totalUnits += units;
        exactTotal += exact;
    }
    std::printf("largest error of a segment sum: Narumi %.3g, float %.3g (resolution bound %.3g = %d terms x 2^-26)\n",
                maxNarumiError, maxFloatError, LENGTH * NARUMI_LOW_UNIT / 2, LENGTH);
    std::printf("error of the total of 2^20 terms: Narumi (fixed-point atomics) %.3g, float (float atomics) %.3g\n",
                (double) std::fabs(sums.narumiTotal / 4294967296.0 - exactTotal), (double) std::fabs(sums.singleTotal - exactTotal));
    EXPECT_EQ(outOfRange, 0);
    EXPECT_EQ(sums.outOfRangeFlag, 0);
    EXPECT_EQ(wrongBits, 0) << "segments whose sum differs from the exact sum of the terms rounded onto the 2^-25 grid";
    EXPECT_LE(maxNarumiError, LENGTH * NARUMI_LOW_UNIT / 2);  // each term loses at most half a 2^-25 unit
    EXPECT_LT(1000 * maxNarumiError, maxFloatError);
    EXPECT_EQ(sums.narumiTotal, totalUnits * (1LL << NARUMI_FIXED_POINT_SHIFT));
    EXPECT_LE((double) std::fabs(sums.narumiTotal / 4294967296.0 - exactTotal), (double) LENGTH * SEGMENTS * NARUMI_LOW_UNIT);
}

TEST_F(NarumiAccumulatorTest, AnyOrderGivesBitwiseTheSameSum) {
    std::vector<float> values = pairForceLikeTerms((size_t) LENGTH * SEGMENTS, 2009);
    std::vector<float> reversed(values.size()), shuffled(values.size());
    std::mt19937 random(7);
    std::vector<int> order(LENGTH);
    for (int s = 0; s < SEGMENTS; s++) {
        for (int i = 0; i < LENGTH; i++)
            order[i] = i;
        std::shuffle(order.begin(), order.end(), random);
        for (int i = 0; i < LENGTH; i++) {
            term(reversed, SEGMENTS, i, s) = term(values, SEGMENTS, LENGTH - 1 - i, s);
            term(shuffled, SEGMENTS, i, s) = term(values, SEGMENTS, order[i], s);
        }
    }
    SegmentSums a, b, c;
    ASSERT_NO_FATAL_FAILURE(sumOnDevice(values, LENGTH, SEGMENTS, a));
    ASSERT_NO_FATAL_FAILURE(sumOnDevice(reversed, LENGTH, SEGMENTS, b));
    ASSERT_NO_FATAL_FAILURE(sumOnDevice(shuffled, LENGTH, SEGMENTS, c));
    int narumiDiffers = 0, floatDiffers = 0;
    for (int s = 0; s < SEGMENTS; s++) {
        narumiDiffers += std::memcmp(&a.narumi[s], &b.narumi[s], sizeof(NarumiAccumulator)) != 0 ||
                         std::memcmp(&a.narumi[s], &c.narumi[s], sizeof(NarumiAccumulator)) != 0;
        floatDiffers += a.single[s] != b.single[s] || a.single[s] != c.single[s];
    }
    std::printf("segments whose sum changed with the order: Narumi %d, float %d of %d\n", narumiDiffers, floatDiffers, SEGMENTS);
    EXPECT_EQ(narumiDiffers, 0);
    EXPECT_EQ(a.narumiTotal, b.narumiTotal);
    EXPECT_EQ(a.narumiTotal, c.narumiTotal);
}

TEST_F(NarumiAccumulatorTest, OutOfRangeSumsAreFlaggedNeverWrapped) {
    const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
    // Each segment's terms, and whether the sum must be flagged; the range is [-2^20, 2^20) = [-1048576, 1048576).
    struct Case {
        std::vector<float> terms;
        bool flagged;
    };
    std::vector<Case> cases = {
        {{2e6f}, true},
        {{-2e6f}, true},
        {std::vector<float>(1100, 1000.0f), true},     // grows past 2^20 term by term
        {std::vector<float>(1048, 1000.0f), false},    // 1,048,000: just inside
        {{1e6f, 1e5f, -1e5f}, true},                   // back inside at the end, but it left the range: sticky
        {{nan}, true},
        {{inf}, true},
        {{-1048576.0f}, false},                        // the lowest representable value, -2^20
        {{1048575.75f}, false},                        // the highest, 2^20 - HI_UNIT
        {{1048576.0f}, true},                          // 2^20
        {{3.5f, -1.25f, 1e-3f}, false},
    };
    int length = 0;
    for (const Case& c : cases)
        length = std::max(length, (int) c.terms.size());
    int numSegments = cases.size();
    std::vector<float> values((size_t) length * numSegments, 0.0f);
    for (int s = 0; s < numSegments; s++)
        for (size_t i = 0; i < cases[s].terms.size(); i++)
            term(values, numSegments, i, s) = cases[s].terms[i];

    SegmentSums sums;
    ASSERT_NO_FATAL_FAILURE(sumOnDevice(values, length, numSegments, sums));
    long long inRangeUnits = 0;
    for (int s = 0; s < numSegments; s++) {
        EXPECT_EQ(narumiOutOfRange(sums.narumi[s]), cases[s].flagged) << "segment " << s;
        if (!cases[s].flagged) {
            long long units = 0;
            for (float y : cases[s].terms)
                units += narumiTermUnits(y);
            EXPECT_EQ(narumiToFixedPoint(sums.narumi[s]), units * (1LL << NARUMI_FIXED_POINT_SHIFT)) << "segment " << s;
            inRangeUnits += units;
        }
    }
    EXPECT_EQ(sums.outOfRangeFlag, 1);
    EXPECT_EQ(sums.narumiTotal, inRangeUnits * (1LL << NARUMI_FIXED_POINT_SHIFT)) << "flagged sums must not be merged";
}

TEST_F(NarumiAccumulatorTest, ConversionToOpenMMFixedPointIsExact) {
    const float unit = (float) NARUMI_LOW_UNIT;
    std::vector<float> singles = {0.0f, unit, -unit, 1.5f * unit, -1.5f * unit, 1e-9f, -1e-9f, 1.0f / 3, -1.0f / 3, 0.125f, -0.125f,
                                  0.375f, 3.14159265f, 100000.33f, -123456.789f, 1048575.75f, -1048576.0f};
    int numSegments = singles.size();
    SegmentSums sums;
    ASSERT_NO_FATAL_FAILURE(sumOnDevice(singles, 1, numSegments, sums));
    for (int s = 0; s < numSegments; s++) {
        const NarumiAccumulator& sum = sums.narumi[s];
        long long expected = narumiTermUnits(singles[s]) * (1LL << NARUMI_FIXED_POINT_SHIFT);
        ASSERT_FALSE(narumiOutOfRange(sum)) << singles[s];
        EXPECT_EQ(narumiToFixedPoint(sum), expected) << singles[s];
        // OpenMM's realToFixedPoint on the double value gives the same integer: no bits are lost on the way.
        EXPECT_EQ((long long) (narumiToDouble(sum) * 0x100000000), expected) << singles[s];
        // A term loses at most half a 2^-25 unit, and a term already on that grid nothing.
        double scaled = (double) singles[s] * LOW_UNITS_PER_ONE;
        EXPECT_LE(std::fabs(narumiToDouble(sum) - singles[s]), NARUMI_LOW_UNIT / 2) << singles[s];
        if (scaled == std::trunc(scaled))
            EXPECT_EQ(narumiToDouble(sum), singles[s]) << singles[s];
    }
}

TEST_F(NarumiAccumulatorTest, LowWordSurvivesTheLargestResiduals) {
    // Terms just below/above HI_UNIT/2 leave residuals that round to +-HI_UNIT/2 = 2^22 units of lo, every time.
    // After a carry lo can be 2^23 - 1; the paper's 2^LOWER_SHIFT = 512 more such terms would then exceed INT_MAX,
    // our 256 cannot.
    const long long residualUnits = 1LL << 22, carriedUnits = (1LL << 23) - 1;
    EXPECT_EQ(residualUnits * NARUMI_LOW_UNIT, NARUMI_HI_UNIT / 2);
    EXPECT_GT(carriedUnits + (1LL << NARUMI_LOWER_SHIFT) * residualUnits, (long long) INT_MAX);
    EXPECT_LT(carriedUnits + (long long) NARUMI_CARRY_INTERVAL * residualUnits, (long long) INT_MAX);

    const float below = std::nextafter(0.125f, 0.0f), above = std::nextafter(0.125f, 1.0f);
    std::vector<float> worst = {below, -below, above, -above};
    int length = 4096, numSegments = worst.size();
    std::vector<float> values((size_t) length * numSegments);
    for (int s = 0; s < numSegments; s++)
        for (int i = 0; i < length; i++)
            term(values, numSegments, i, s) = worst[s];
    SegmentSums sums;
    ASSERT_NO_FATAL_FAILURE(sumOnDevice(values, length, numSegments, sums));
    for (int s = 0; s < numSegments; s++) {
        EXPECT_FALSE(narumiOutOfRange(sums.narumi[s]));
        EXPECT_EQ(narumiToDouble(sums.narumi[s]), length * narumiTermUnits(worst[s]) * NARUMI_LOW_UNIT) << worst[s];
    }
}

TEST_F(NarumiAccumulatorTest, SplitTermsGiveNarumiAddsBitsAndTheirExactNegation) {
    // Pair-force-like terms plus ties on hi's grid (odd multiples of HI_UNIT/2) and on lo's, which the split and the
    // two-sum of narumiAdd break in different places.
    std::vector<float> values = pairForceLikeTerms((size_t) LENGTH * SEGMENTS, 2010);
    for (size_t i = 0; i < values.size(); i += 7)
        values[i] = (float) ((2 * (long long) (i % 4001) - 4001) * NARUMI_HI_UNIT / 2);
    for (size_t i = 3; i < values.size(); i += 11)
        values[i] = (float) ((2 * (long long) (i % 1001) - 1001) * NARUMI_LOW_UNIT / 2);
    SegmentSums reference;
    ASSERT_NO_FATAL_FAILURE(sumOnDevice(values, LENGTH, SEGMENTS, reference));
    DeviceArray<float> deviceValues(values.size());
    DeviceArray<NarumiAccumulator> added(SEGMENTS), subtracted(SEGMENTS);
    ASSERT_TRUE(deviceValues.data && added.data && subtracted.data);
    ASSERT_CUDA(cudaMemcpy(deviceValues.data, values.data(), values.size() * sizeof(float), cudaMemcpyHostToDevice));
    sumSegmentsSplitKernel<<<(SEGMENTS + 127) / 128, 128>>>(deviceValues.data, LENGTH, SEGMENTS, added.data, subtracted.data);
    ASSERT_CUDA(cudaGetLastError());
    std::vector<NarumiAccumulator> plus(SEGMENTS), minus(SEGMENTS);
    ASSERT_CUDA(cudaMemcpy(plus.data(), added.data, SEGMENTS * sizeof(NarumiAccumulator), cudaMemcpyDeviceToHost));
    ASSERT_CUDA(cudaMemcpy(minus.data(), subtracted.data, SEGMENTS * sizeof(NarumiAccumulator), cudaMemcpyDeviceToHost));
    int differ = 0, notNegated = 0;
    for (int s = 0; s < SEGMENTS; s++) {
        long long units = 0;
        for (int i = 0; i < LENGTH; i++)
            units += narumiTermUnits(term(values, SEGMENTS, i, s));
        ASSERT_FALSE(narumiOutOfRange(plus[s]) || narumiOutOfRange(minus[s])) << "segment " << s;
        differ += plus[s].hi != reference.narumi[s].hi || plus[s].lo != reference.narumi[s].lo ||
                  narumiToFixedPoint(plus[s]) != units * (1LL << NARUMI_FIXED_POINT_SHIFT);
        notNegated += narumiToFixedPoint(minus[s]) != -narumiToFixedPoint(plus[s]);
    }
    EXPECT_EQ(differ, 0) << "segments whose split sum is not narumiAdd's (hi, lo) after the carry";
    EXPECT_EQ(notNegated, 0) << "segments whose subtracted sum is not exactly minus the added one";
}

/**
 * Precision=double rounds its terms by a magic-number FMA below 2^(51 - fraction bits) and by the conversion above: both
 * must be rint(y * 2^bits) (ties to even) on either grid, with saturation and an error bit past OpenMM's range, so that
 * the exclusion pass still removes exactly what the pair kernel added.  Oracle: the host's llrint.
 */
TEST_F(NarumiAccumulatorTest, DoubleTermsRoundToNearestEvenOnEitherGrid) {
    std::mt19937 random(2026);
    std::uniform_real_distribution<double> exponent(-12.0, 9.5);
    std::bernoulli_distribution negative(0.5);
    std::vector<double> terms;
    for (int i = 0; i < 200000; i++)
        terms.push_back((negative(random) ? -1.0 : 1.0) * std::pow(10.0, exponent(random)));
    for (long long k = -2000; k <= 2000; k++) {   // ties on both grids
        terms.push_back((2 * k + 1) * std::ldexp(1.0, -26));
        terms.push_back((2 * k + 1) * std::ldexp(1.0, -33));
    }
    for (int bits : {19, 26, 31})   // either side of both magic limits and of OpenMM's range
        for (double edge : {std::ldexp(1.0, bits), -std::ldexp(1.0, bits)}) {
            terms.push_back(edge);
            terms.push_back(std::nextafter(edge, 0.0));
            terms.push_back(std::nextafter(edge, 2 * edge));
        }
    double inf = std::numeric_limits<double>::infinity();
    for (double special : {0.0, -0.0, inf, -inf, std::numeric_limits<double>::quiet_NaN()})
        terms.push_back(special);
    int count = (int) terms.size();
    DeviceArray<double> deviceTerms(count);
    DeviceArray<long long> narumiGrid(count), openmmGrid(count);
    DeviceArray<int> errors(count);
    ASSERT_TRUE(deviceTerms.data && narumiGrid.data && openmmGrid.data && errors.data);
    ASSERT_CUDA(cudaMemcpy(deviceTerms.data, terms.data(), count * sizeof(double), cudaMemcpyHostToDevice));
    roundDoubleTerms<<<(count + 255) / 256, 256>>>(deviceTerms.data, count, narumiGrid.data, openmmGrid.data, errors.data);
    ASSERT_CUDA(cudaGetLastError());
    std::vector<long long> narumi(count), openmm(count);
    std::vector<int> flags(count);
    ASSERT_CUDA(cudaMemcpy(narumi.data(), narumiGrid.data, count * sizeof(long long), cudaMemcpyDeviceToHost));
    ASSERT_CUDA(cudaMemcpy(openmm.data(), openmmGrid.data, count * sizeof(long long), cudaMemcpyDeviceToHost));
    ASSERT_CUDA(cudaMemcpy(flags.data(), errors.data, count * sizeof(int), cudaMemcpyDeviceToHost));
    auto expected = [](double y, int bits, bool& inRange) {
        inRange = std::fabs(y) < 2147483648.0;
        if (!inRange)
            return y > 0 ? 0x7fffffff00000000LL : (y < 0 ? -0x7fffffff00000000LL : 0LL);
        return std::llrint(std::ldexp(y, bits)) * (1LL << (32 - bits));
    };
    int wrong = 0, wrongFlags = 0;
    for (int i = 0; i < count; i++) {
        bool inRange;
        long long narumiExpected = expected(terms[i], NARUMI_LOW_FRACTION_BITS, inRange);
        long long openmmExpected = expected(terms[i], 32, inRange);
        int flagsExpected = inRange ? 0 : (NARUMI_ERROR_TERM_RANGE | NARUMI_ERROR_TERM_RANGE << 8);
        if (narumi[i] != narumiExpected || openmm[i] != openmmExpected) {
            if (wrong++ < 5)
                ADD_FAILURE() << "term " << terms[i] << ": " << narumi[i] << " / " << openmm[i] << ", expected " << narumiExpected
                              << " / " << openmmExpected;
        }
        wrongFlags += flags[i] != flagsExpected;
    }
    EXPECT_EQ(wrong, 0) << "terms rounded otherwise than rint on the grid";
    EXPECT_EQ(wrongFlags, 0) << "terms whose range error bit is wrong";
}

/** Precision=double's 1/sqrt(r^2) is within an ulp or so of the exact value (oracle: long double on the host). */
TEST_F(NarumiAccumulatorTest, DoubleRsqrtIsDoubleGrade) {
    std::mt19937 random(2027);
    std::uniform_real_distribution<double> exponent(-6.0, 3.0);
    std::vector<double> squaredDistances(100000);
    for (double& r2 : squaredDistances)
        r2 = std::pow(10.0, exponent(random));
    int count = (int) squaredDistances.size();
    DeviceArray<double> x(count), result(count);
    ASSERT_TRUE(x.data && result.data);
    ASSERT_CUDA(cudaMemcpy(x.data, squaredDistances.data(), count * sizeof(double), cudaMemcpyHostToDevice));
    doubleRsqrt<<<(count + 255) / 256, 256>>>(x.data, count, result.data);
    ASSERT_CUDA(cudaGetLastError());
    std::vector<double> values(count);
    ASSERT_CUDA(cudaMemcpy(values.data(), result.data, count * sizeof(double), cudaMemcpyDeviceToHost));
    double worst = 0;
    for (int i = 0; i < count; i++) {
        long double exact = 1.0L / std::sqrt((long double) squaredDistances[i]);
        worst = std::max(worst, (double) std::fabs((values[i] - exact) / exact));
    }
    std::printf("[ accuracy ] double rsqrt: largest relative error %.3g (double epsilon %.3g)\n", worst,
                std::numeric_limits<double>::epsilon());
    EXPECT_LE(worst, 2 * std::numeric_limits<double>::epsilon());
}

TEST_F(NarumiAccumulatorTest, FloatPairRulesAreThePapersCodeBitForBit) {
    std::vector<float> values = pairForceLikeTerms((size_t) LENGTH * SEGMENTS, 2011);
    std::vector<FloatPair> takahashi = pairExpressionSumsOnDevice<PairExpressionRule::TakahashiIitaka>(values, LENGTH, SEGMENTS);
    std::vector<FloatPair> nitadori = pairExpressionSumsOnDevice<PairExpressionRule::Nitadori>(values, LENGTH, SEGMENTS);
    std::vector<FloatPair> modified = pairExpressionSumsOnDevice<PairExpressionRule::ModifiedNitadori>(values, LENGTH, SEGMENTS);
    ASSERT_CUDA(cudaGetLastError());
    int differ[3] = {0, 0, 0};
    for (int s = 0; s < SEGMENTS; s++) {
        FloatPair c{0.0f, 0.0f}, d{0.0f, 0.0f}, e{(float) (3 << 20), 0.0f};  // Figure 6: LARGE = 3 << (21 - 1)
        for (int i = 0; i < LENGTH; i++) {
            float y = term(values, SEGMENTS, i, s);
            c = hostTakahashiIitaka(c, y);
            d = hostNitadori(d, y);
            e = hostNitadori(e, y);
        }
        differ[0] += std::memcmp(&c, &takahashi[s], sizeof(FloatPair)) != 0;
        differ[1] += std::memcmp(&d, &nitadori[s], sizeof(FloatPair)) != 0;
        differ[2] += std::memcmp(&e, &modified[s], sizeof(FloatPair)) != 0;
    }
    EXPECT_EQ(differ[0], 0) << "segments where C (Takahashi-Iitaka) differs from Figure 3";
    EXPECT_EQ(differ[1], 0) << "segments where D (Nitadori) differs from Figure 5";
    EXPECT_EQ(differ[2], 0) << "segments where E (modified Nitadori) differs from Figures 5-6";
}

TEST_F(NarumiAccumulatorTest, NitadoriNeedsItsFirstConditionTakahashiIitakaDoesNot) {
    // Small pair-force-like terms, then +Y and -Y: the exact sum is that of the small terms.  Y = 1e6 dwarfs the running
    // sum (|hi| < |Y|: D's two-sum drops hi's low bits, ~ulp(Y) = 0.06) but stays below E's LARGE = 3.1e6.
    const int length = 1002, segments = 256;
    const float large = 1.0e6f;
    std::vector<float> values = pairForceLikeTerms((size_t) length * segments, 2012);
    for (float& y : values)
        y *= 1e-3f;  // |y| <= 1
    for (int s = 0; s < segments; s++) {
        term(values, segments, length - 2, s) = large;
        term(values, segments, length - 1, s) = -large;
    }
    std::vector<FloatPair> c = pairExpressionSumsOnDevice<PairExpressionRule::TakahashiIitaka>(values, length, segments);
    std::vector<FloatPair> d = pairExpressionSumsOnDevice<PairExpressionRule::Nitadori>(values, length, segments);
    std::vector<FloatPair> e = pairExpressionSumsOnDevice<PairExpressionRule::ModifiedNitadori>(values, length, segments);
    ASSERT_CUDA(cudaGetLastError());
    double worstC = 0, worstE = 0, meanD = 0;
    for (int s = 0; s < segments; s++) {
        double exact = (double) exactSegmentSum(values, segments, length, s);
        worstC = std::max(worstC, std::fabs(pairExpressionValue<PairExpressionRule::TakahashiIitaka>(c[s]) - exact));
        worstE = std::max(worstE, std::fabs(pairExpressionValue<PairExpressionRule::ModifiedNitadori>(e[s]) - exact));
        meanD += std::fabs(pairExpressionValue<PairExpressionRule::Nitadori>(d[s]) - exact) / segments;
    }
    std::printf("errors after +-%g: C worst %.3g, E worst %.3g, D mean %.3g\n", large, worstC, worstE, meanD);
    // Bounds: 1e-8 is ~2^-46.5 of the largest partial sum (1e6); E's lo sums ~1000 residuals of up to 0.125 in float.
    // (A NumPy float32 simulation of this test gave C 9e-10, E 3e-6, D 0.016.)
    EXPECT_LT(worstC, 1e-8) << "Takahashi-Iitaka keeps about 2^-48 of the largest partial sum";
    EXPECT_LT(worstE, 3e-5) << "modified Nitadori: exact two-sums below LARGE; only lo's float rounding remains";
    EXPECT_GT(meanD, 1e-3) << "Nitadori's two-sum is exact only while |hi| >= |term|";
}

} // namespace
