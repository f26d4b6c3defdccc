/**
 * The kernels' settings chosen from a GPU's properties (NarumiDeviceSettings): the GPUs of each class as their makers
 * specify them (compute capability, double rate, multiprocessors, shared memory per multiprocessor), each against the
 * settings its class is defined to get.  Host code, no GPU needed.
 */

#include "NarumiDeviceSettings.h"
#include <gtest/gtest.h>
#include <vector>

using namespace OpenMMNarumi;

namespace {

NarumiDeviceProperties gpu(const char* name, int major, int minor, int ratio, int multiprocessors, int sharedKiB) {
    NarumiDeviceProperties properties;
    properties.name = name;
    properties.major = major;
    properties.minor = minor;
    properties.singleToDoubleRatio = ratio;
    properties.multiprocessors = multiprocessors;
    properties.sharedMemoryPerMultiprocessor = sharedKiB * 1024;
    return properties;
}

const std::vector<NarumiDeviceProperties> DOUBLE_RATE_GPUS = {
    gpu("Tesla V100", 7, 0, 2, 80, 96), gpu("A100", 8, 0, 2, 108, 164), gpu("H100 SXM", 9, 0, 2, 132, 228),
    gpu("H200", 9, 0, 2, 132, 228), gpu("B200", 10, 0, 2, 148, 228)};
const std::vector<NarumiDeviceProperties> FLOAT_RATE_GPUS = {
    gpu("Tesla T4", 7, 5, 32, 40, 64), gpu("GeForce RTX 2080 Ti", 7, 5, 32, 68, 64), gpu("A40", 8, 6, 64, 84, 100),
    gpu("GeForce RTX 3090", 8, 6, 64, 82, 100), gpu("L4", 8, 9, 64, 58, 100), gpu("L40S", 8, 9, 64, 142, 100),
    gpu("GeForce RTX 4090", 8, 9, 64, 128, 100), gpu("GeForce RTX 5090", 12, 0, 64, 170, 100)};

} // namespace

TEST(NarumiDeviceSettings, DoubleRateGpusHoldNarumisSumsInDoubles) {
    for (const NarumiDeviceProperties& properties : DOUBLE_RATE_GPUS) {
        NarumiDeviceSettings settings = chooseNarumiDeviceSettings(properties);
        EXPECT_EQ(settings.deviceClass, NarumiDeviceClass::DoubleRate) << properties.name;
        EXPECT_TRUE(settings.narumiSumsInDouble) << properties.name;
    }
}

TEST(NarumiDeviceSettings, FloatRateGpusKeepFloatAndInt32Pairs) {
    for (const NarumiDeviceProperties& properties : FLOAT_RATE_GPUS) {
        NarumiDeviceSettings settings = chooseNarumiDeviceSettings(properties);
        EXPECT_EQ(settings.deviceClass, NarumiDeviceClass::FloatRate) << properties.name;
        EXPECT_FALSE(settings.narumiSumsInDouble) << properties.name;
    }
    // A device that does not report its double rate (0) gets the settings that are safe on any GPU.
    EXPECT_FALSE(chooseNarumiDeviceSettings(gpu("unknown", 9, 0, 0, 132, 228)).narumiSumsInDouble);
}

TEST(NarumiDeviceSettings, SettingsRelativeToTheGpusSizeAreTheSameOnEveryClass) {
    // The search's thread blocks are chosen from the GPU's own waves and the tile chunks from its own warps: the rules
    // themselves are the H100's on every GPU.
    for (const auto* list : {&DOUBLE_RATE_GPUS, &FLOAT_RATE_GPUS})
        for (const NarumiDeviceProperties& properties : *list) {
            NarumiDeviceSettings settings = chooseNarumiDeviceSettings(properties);
            EXPECT_EQ(settings.fewSearchWarpsFromWaves, 4) << properties.name;
            EXPECT_TRUE(settings.tileChunks) << properties.name;
        }
}

TEST(NarumiDeviceSettings, EmulationGivesTheOtherClassWithTheSameSize) {
    NarumiDeviceProperties h100 = DOUBLE_RATE_GPUS[2];
    NarumiDeviceProperties asFloatRate = emulatedAs(h100, NarumiDeviceClass::FloatRate);
    EXPECT_EQ(asFloatRate.singleToDoubleRatio, 64);
    EXPECT_EQ(asFloatRate.multiprocessors, h100.multiprocessors);
    EXPECT_EQ(asFloatRate.sharedMemoryPerMultiprocessor, h100.sharedMemoryPerMultiprocessor);
    EXPECT_EQ(asFloatRate.major, h100.major);
    NarumiDeviceSettings settings = chooseNarumiDeviceSettings(asFloatRate);
    EXPECT_EQ(settings.deviceClass, NarumiDeviceClass::FloatRate);
    EXPECT_FALSE(settings.narumiSumsInDouble);
    NarumiDeviceProperties rtx4090 = FLOAT_RATE_GPUS[6];
    EXPECT_TRUE(chooseNarumiDeviceSettings(emulatedAs(rtx4090, NarumiDeviceClass::DoubleRate)).narumiSumsInDouble);
}

TEST(NarumiDeviceSettings, DescriptionNamesTheClassAndEverySetting) {
    std::string text = chooseNarumiDeviceSettings(FLOAT_RATE_GPUS[0]).describe();
    for (const char* part : {"float-rate class", "float + int32 pairs", "4 warps from 4 waves", "tile chunks on", "list skin chosen"})
        EXPECT_NE(text.find(part), std::string::npos) << part << " not in: " << text;
    EXPECT_NE(chooseNarumiDeviceSettings(DOUBLE_RATE_GPUS[1]).describe().find("double-rate class: Narumi sums held in doubles"),
              std::string::npos);
}
