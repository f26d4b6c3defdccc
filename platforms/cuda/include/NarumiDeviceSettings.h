#ifndef NARUMI_DEVICE_SETTINGS_H_
#define NARUMI_DEVICE_SETTINGS_H_

#include <string>

namespace OpenMMNarumi {

/** What the kernels' settings are chosen from: one GPU's properties, as the CUDA runtime reports them. */
struct NarumiDeviceProperties {
    std::string name;
    int major = 0, minor = 0;                // compute capability
    int singleToDoubleRatio = 0;             // float over double add rate: 2 on A100/H100/B200, 32 or 64 on GeForce, RTX, L4/L40S
    int multiprocessors = 0;
    int sharedMemoryPerMultiprocessor = 0;   // bytes
};

/** The two classes of GPU whose settings differ: by the rate at which they add doubles. */
enum class NarumiDeviceClass {
    DoubleRate,   // doubles at half the float rate or better (data-centre GPUs: P100, V100, A100, H100, H200, B200)
    FloatRate     // doubles at 1/32 or 1/64 of the float rate (GeForce, RTX workstation, T4, L4, L40S, A40)
};

/**
 * The kernels' speed settings for one GPU, chosen at Context creation from its properties.  None of them changes a
 * force's bits (the sums are exact): they change only how fast the same sums are made, and each has a GPU test that
 * says so (tests/TestCudaNarumiNonbondedForce.cpp).
 */
struct NarumiDeviceSettings {
    NarumiDeviceClass deviceClass = NarumiDeviceClass::DoubleRate;
    /** Narumi's sums held in doubles (fewer instructions, the same bits) or as float + int32 pairs. */
    bool narumiSumsInDouble = true;
    /**
     * The neighbour search runs thread blocks of 4 warps instead of 8 once the listed blocks fill this many full waves
     * of resident thread blocks (the wave: this GPU's multiprocessors times its occupancy, read at launch).
     */
    int fewSearchWarpsFromWaves = 4;
    /** The pair kernel's warps take the list in chunks from a shared counter (else one fixed run each). */
    bool tileChunks = true;
    /** Each warp's first chunk assigned to it, later ones from the counter (else every one from the counter). */
    bool tileFirstChunksAssigned = true;

    /** One line for narumi-check and the stage report: the class and each setting. */
    std::string describe() const;
};

/**
 * The settings for a GPU.  Measured on the H100: every setting.  For FloatRate GPUs Narumi's sums stay float + int32
 * pairs (a double add costs 32-64 float adds there); the settings that depend on the GPU's size are relative to it
 * (search warps from its waves, tile chunks from its warps).  The list's skin is no setting of the GPU: it follows the
 * atoms' motion (NarumiListSkin) on every GPU.
 */
NarumiDeviceSettings chooseNarumiDeviceSettings(const NarumiDeviceProperties& gpu);

/**
 * The properties of another class of GPU with this one's size, for tests and measurements (the diagnostic
 * device-class): the double rate of an RTX 4090 (1/64) for FloatRate, of an H100 (1/2) for DoubleRate.
 */
NarumiDeviceProperties emulatedAs(const NarumiDeviceProperties& gpu, NarumiDeviceClass deviceClass);

/** The class's name as the diagnostic device-class takes it: "double-rate" or "float-rate". */
const char* deviceClassName(NarumiDeviceClass deviceClass);

} // namespace OpenMMNarumi

#endif // NARUMI_DEVICE_SETTINGS_H_
