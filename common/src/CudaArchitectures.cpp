/** CudaArchitectures: a build's GPU code and the GPUs it serves (host code; builds without CUDA compile it too). */

#include "NarumiCommon/CudaArchitectures.h"
#include <algorithm>
#include <cctype>
#include <sstream>
#include <stdexcept>

#ifndef NARUMI_CUDA_ARCHITECTURES
#error "NARUMI_CUDA_ARCHITECTURES is set by the NarumiCommon CMake target: link NarumiCommon"
#endif

namespace OpenMMNarumi::Common {

namespace {

void addSorted(std::vector<int>& list, int architecture) {
    if (std::find(list.begin(), list.end(), architecture) == list.end()) {
        list.push_back(architecture);
        std::sort(list.begin(), list.end());
    }
}

std::string joined(const std::vector<int>& list, const char* prefix) {
    std::string text;
    for (int architecture : list)
        text += (text.empty() ? "" : ", ") + std::string(prefix) + std::to_string(architecture);
    return text;
}

std::string dotted(int capability) {
    return std::to_string(capability / 10) + "." + std::to_string(capability % 10);
}

} // namespace

CudaArchitectures CudaArchitectures::parse(const std::string& cmakeList) {
    CudaArchitectures code;
    std::string list = cmakeList;
    std::replace(list.begin(), list.end(), ',', ';');  // the compile definition carries CMake's list with commas
    std::stringstream entries(list);
    std::string entry;
    while (std::getline(entries, entry, ';')) {
        if (entry.empty())
            continue;
        size_t digits = 0;
        while (digits < entry.size() && std::isdigit((unsigned char) entry[digits]))
            digits++;
        std::string suffix = entry.substr(digits);
        if (digits == 0) {
            // CMake's own keywords: what they stand for is known only to the CMake that expanded them.
            if (entry != "native" && entry != "all" && entry != "all-major")
                throw std::invalid_argument("CUDA architecture list entry '" + entry + "' is neither a number nor native/all/all-major");
            code.unparsed += (code.unparsed.empty() ? "" : ";") + entry;
            continue;
        }
        if (suffix != "" && suffix != "-real" && suffix != "-virtual")
            throw std::invalid_argument("CUDA architecture list entry '" + entry + "' must be NN, NN-real or NN-virtual");
        int architecture = std::stoi(entry.substr(0, digits));
        if (suffix != "-virtual")
            addSorted(code.sass, architecture);
        if (suffix != "-real")
            addSorted(code.ptx, architecture);
    }
    return code;
}

std::string CudaArchitectures::describe() const {
    std::string text;
    if (!sass.empty())
        text = "SASS " + joined(sass, "sm_");
    if (!ptx.empty())
        text += (text.empty() ? "" : "; ") + std::string("PTX ") + joined(ptx, "compute_");
    if (!unparsed.empty())
        text += (text.empty() ? "" : "; ") + unparsed;
    return text.empty() ? "no GPU code" : text;
}

std::string CudaArchitectures::codeFor(int major, int minor) const {
    int capability = 10 * major + minor;
    if (capability < LOWEST_COMPUTE_CAPABILITY)
        return "";
    // The newest SASS of the same major version that is not newer than the GPU.
    for (auto it = sass.rbegin(); it != sass.rend(); ++it)
        if (*it / 10 == major && *it <= capability)
            return "SASS sm_" + std::to_string(*it);
    for (auto it = ptx.rbegin(); it != ptx.rend(); ++it)
        if (*it <= capability)
            return "PTX compute_" + std::to_string(*it) + " (compiled by the driver for " + dotted(capability) + ")";
    return "";
}

const CudaArchitectures& builtCudaArchitectures() {
    static const CudaArchitectures code = CudaArchitectures::parse(NARUMI_CUDA_ARCHITECTURES);
    return code;
}

} // namespace OpenMMNarumi::Common
