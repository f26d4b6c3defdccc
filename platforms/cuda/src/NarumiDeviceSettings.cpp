/** The kernels' settings chosen from a GPU's properties (NarumiDeviceSettings.h): host code, no device needed. */

#include "NarumiDeviceSettings.h"

namespace OpenMMNarumi {

namespace {

/** Doubles add at this fraction of the float rate or better: Narumi's sums are held in doubles (same bits, fewer steps). */
constexpr int LARGEST_RATIO_FOR_SUMS_IN_DOUBLE = 2;

} // namespace

const char* deviceClassName(NarumiDeviceClass deviceClass) {
    return deviceClass == NarumiDeviceClass::DoubleRate ? "double-rate" : "float-rate";
}

NarumiDeviceSettings chooseNarumiDeviceSettings(const NarumiDeviceProperties& gpu) {
    NarumiDeviceSettings settings;
    // A ratio of 0 is a device that did not say: take it as the slow-double class, whose settings are safe anywhere.
    bool fastDoubles = gpu.singleToDoubleRatio > 0 && gpu.singleToDoubleRatio <= LARGEST_RATIO_FOR_SUMS_IN_DOUBLE;
    settings.deviceClass = fastDoubles ? NarumiDeviceClass::DoubleRate : NarumiDeviceClass::FloatRate;
    settings.narumiSumsInDouble = fastDoubles;
    return settings;
}

NarumiDeviceProperties emulatedAs(const NarumiDeviceProperties& gpu, NarumiDeviceClass deviceClass) {
    NarumiDeviceProperties emulated = gpu;
    emulated.singleToDoubleRatio = (deviceClass == NarumiDeviceClass::DoubleRate ? 2 : 64);
    emulated.name = gpu.name + " as a " + deviceClassName(deviceClass) + " GPU";
    return emulated;
}

std::string NarumiDeviceSettings::describe() const {
    return std::string(deviceClassName(deviceClass)) + " class: Narumi sums " +
           (narumiSumsInDouble ? "held in doubles" : "as float + int32 pairs") + ", search thread blocks of 4 warps from " +
           std::to_string(fewSearchWarpsFromWaves) + " waves of listed blocks (else 8), tile chunks " + (tileChunks ? "on" : "off") +
           (tileFirstChunksAssigned ? ", first ones assigned" : ", all from the counter") + ", list skin chosen from the rebuild rate (0.1 or 0.14 nm)";
}

} // namespace OpenMMNarumi
