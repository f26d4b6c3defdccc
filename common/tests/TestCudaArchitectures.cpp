/**
 * CudaArchitectures against CUDA's compatibility rules, written out here case by case: SASS for sm_XY runs on X.Z
 * for Z >= Y only, PTX for compute_XY is compiled by the driver for any X.Y or newer, nothing below 7.5.
 */

#include "NarumiCommon/CudaArchitectures.h"
#include <gtest/gtest.h>
#include <stdexcept>

using namespace OpenMMNarumi::Common;

namespace {

/** The project's default list (CMakeLists.txt: NARUMI_DEFAULT_CUDA_ARCHITECTURES). */
const char* DEFAULT_LIST = "75-real;80-real;86-real;89-real;90-real;100-real;120";

} // namespace

TEST(CudaArchitectures, ParsesCMakeLists) {
    CudaArchitectures code = CudaArchitectures::parse(DEFAULT_LIST);
    EXPECT_EQ(code.sass, (std::vector<int>{75, 80, 86, 89, 90, 100, 120}));
    EXPECT_EQ(code.ptx, (std::vector<int>{120}));
    EXPECT_EQ(code.describe(), "SASS sm_75, sm_80, sm_86, sm_89, sm_90, sm_100, sm_120; PTX compute_120");
    // The compile definition's form, with commas; a bare number is both SASS and PTX.
    code = CudaArchitectures::parse("90,75-virtual");
    EXPECT_EQ(code.sass, (std::vector<int>{90}));
    EXPECT_EQ(code.ptx, (std::vector<int>{75, 90}));
    code = CudaArchitectures::parse("native");
    EXPECT_TRUE(code.sass.empty() && code.ptx.empty());
    EXPECT_EQ(code.describe(), "native");
    EXPECT_EQ(CudaArchitectures::parse("").describe(), "no GPU code");
    for (const char* bad : {"sm_90", "90-fake", "9x", "all-minor"})
        EXPECT_THROW(CudaArchitectures::parse(bad), std::invalid_argument) << bad;
}

TEST(CudaArchitectures, DefaultListServesEveryGpuOfOpenMMsCuda13Platform) {
    CudaArchitectures code = CudaArchitectures::parse(DEFAULT_LIST);
    // The GPUs of each generation, and the code each one runs.
    EXPECT_EQ(code.codeFor(7, 5), "SASS sm_75");   // T4, RTX 20xx
    EXPECT_EQ(code.codeFor(8, 0), "SASS sm_80");   // A100
    EXPECT_EQ(code.codeFor(8, 6), "SASS sm_86");   // RTX 30xx, A40
    EXPECT_EQ(code.codeFor(8, 7), "SASS sm_86");   // Jetson Orin: the sm_86 code of the same major version
    EXPECT_EQ(code.codeFor(8, 9), "SASS sm_89");   // RTX 40xx, L40S, L4
    EXPECT_EQ(code.codeFor(9, 0), "SASS sm_90");   // H100, H200
    EXPECT_EQ(code.codeFor(10, 0), "SASS sm_100"); // B200
    EXPECT_EQ(code.codeFor(10, 3), "SASS sm_100"); // B300
    EXPECT_EQ(code.codeFor(12, 0), "SASS sm_120"); // RTX 50xx
    EXPECT_EQ(code.codeFor(12, 1), "SASS sm_120"); // DGX Spark
    // A future GPU compiles the newest PTX; an older major version cannot use it.
    EXPECT_EQ(code.codeFor(13, 0), "PTX compute_120 (compiled by the driver for 13.0)");
    EXPECT_EQ(code.codeFor(11, 0), "");            // Jetson Thor: sm_100 SASS is of another major, PTX 12.0 is newer
    // Below OpenMM's CUDA 13 platform nothing runs, whatever was built.
    EXPECT_EQ(code.codeFor(7, 0), "");
    EXPECT_EQ(CudaArchitectures::parse("70;75").codeFor(7, 2), "");
}

TEST(CudaArchitectures, PtxOnlyBuildsServeEveryNewerGpu) {
    CudaArchitectures code = CudaArchitectures::parse("75-virtual");
    EXPECT_EQ(code.codeFor(7, 5), "PTX compute_75 (compiled by the driver for 7.5)");
    EXPECT_EQ(code.codeFor(9, 0), "PTX compute_75 (compiled by the driver for 9.0)");
    // SASS alone serves its own major version only.
    code = CudaArchitectures::parse("80-real");
    EXPECT_EQ(code.codeFor(8, 9), "SASS sm_80");
    EXPECT_EQ(code.codeFor(9, 0), "");
    EXPECT_EQ(code.codeFor(7, 5), "");
}

TEST(CudaArchitectures, ThisBuildCarriesCodeExactlyWhenBuiltWithCuda) {
    const CudaArchitectures& built = builtCudaArchitectures();
    bool carriesCode = !built.sass.empty() || !built.ptx.empty() || !built.unparsed.empty();
    EXPECT_EQ(carriesCode, NARUMI_HAVE_CUDA != 0) << built.describe();
}
