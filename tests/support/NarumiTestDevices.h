#ifndef NARUMI_TEST_DEVICES_H_
#define NARUMI_TEST_DEVICES_H_

/**
 * The CUDA devices of the multi-device tests: NARUMI_TEST_DEVICES (e.g. "0,1" on a machine with two GPUs), else
 * "0,0", the one GPU listed twice, which OpenMM and the analysis engines run as two devices.
 */

#include <cstdlib>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace OpenMMNarumi {
namespace Test {

/** The device list as OpenMM's DeviceIndex property takes it ("0,0" unless NARUMI_TEST_DEVICES says otherwise). */
inline std::string multiDeviceIndex() {
    const char* setting = std::getenv("NARUMI_TEST_DEVICES");
    return setting != nullptr && *setting != '\0' ? std::string(setting) : std::string("0,0");
}

/** The same list as device numbers; a malformed NARUMI_TEST_DEVICES is an error naming it. */
inline std::vector<int> multiDeviceList() {
    std::vector<int> devices;
    std::stringstream text(multiDeviceIndex());
    std::string item;
    while (std::getline(text, item, ',')) {
        size_t used = 0;
        int device = -1;
        try {
            device = std::stoi(item, &used);
        }
        catch (const std::exception&) {
        }
        if (used != item.size() || device < 0)
            throw std::invalid_argument("NARUMI_TEST_DEVICES = '" + multiDeviceIndex() + "' is not a list of CUDA devices");
        devices.push_back(device);
    }
    if (devices.size() < 2)
        throw std::invalid_argument("NARUMI_TEST_DEVICES = '" + multiDeviceIndex() + "' names fewer than two devices");
    return devices;
}

} // namespace Test
} // namespace OpenMMNarumi

#endif // NARUMI_TEST_DEVICES_H_
