/** NARUMI_DIAGNOSTICS, read and checked (NarumiDiagnostics.h): host code, no device needed. */

#include "NarumiDiagnostics.h"
#include "openmm/OpenMMException.h"
#include <cstdio>
#include <cstdlib>
#include <set>
#include <utility>

namespace OpenMMNarumi {

namespace {

/** One setting: how to read its value into the diagnostics (false: not a valid value), and how to write it back. */
struct Setting {
    const char* name;
    const char* values;  // what it takes, for the error messages
    bool isSwitch;       // on|off, and the bare name means on
    bool (*read)(NarumiDiagnostics& diagnostics, const std::string& value);
    std::optional<std::string> (*written)(const NarumiDiagnostics& diagnostics);
};

/** A setting of two named values, read into field as true for whenTrue and false for whenFalse. */
bool readChoice(std::optional<bool>& field, const std::string& value, const char* whenTrue, const char* whenFalse) {
    if (value != whenTrue && value != whenFalse)
        return false;
    field = (value == whenTrue);
    return true;
}

std::optional<std::string> writtenChoice(const std::optional<bool>& field, const char* whenTrue, const char* whenFalse) {
    if (!field)
        return std::nullopt;
    return std::string(*field ? whenTrue : whenFalse);
}

bool readSwitch(std::optional<bool>& field, const std::string& value) {
    return readChoice(field, value, "on", "off");
}

std::optional<std::string> writtenSwitch(const std::optional<bool>& field) {
    return writtenChoice(field, "on", "off");
}

/** The float pairs of the paper (methods C-E): the only accumulation methods that the diagnostics select. */
const std::pair<const char*, NarumiAccumulation> STUDY_ACCUMULATIONS[] = {
    {"TakahashiIitaka", NarumiAccumulation::TakahashiIitaka},
    {"Nitadori", NarumiAccumulation::Nitadori},
    {"ModifiedNitadori", NarumiAccumulation::ModifiedNitadori}};

const Setting SETTINGS[] = {
    {"profile-stages", "on|off", true,
     [](NarumiDiagnostics& d, const std::string& v) { return readSwitch(d.profileStages, v); },
     [](const NarumiDiagnostics& d) { return writtenSwitch(d.profileStages); }},
    {"list-skin", "0..1 (nm)", false,
     [](NarumiDiagnostics& d, const std::string& v) {
         char* end = nullptr;
         double skin = std::strtod(v.c_str(), &end);
         if (v.empty() || *end != '\0' || !(skin >= 0 && skin <= 1))
             return false;
         d.listSkin = skin;
         return true;
     },
     [](const NarumiDiagnostics& d) -> std::optional<std::string> {
         if (!d.listSkin)
             return std::nullopt;
         char text[32];
         std::snprintf(text, sizeof(text), "%g", *d.listSkin);
         return std::string(text);
     }},
    {"tile-chunks", "on|off", true,
     [](NarumiDiagnostics& d, const std::string& v) { return readSwitch(d.tileChunks, v); },
     [](const NarumiDiagnostics& d) { return writtenSwitch(d.tileChunks); }},
    {"search-warps", "4|8", false,
     [](NarumiDiagnostics& d, const std::string& v) {
         if (v != "4" && v != "8")
             return false;
         d.searchWarps = std::stoi(v);
         return true;
     },
     [](const NarumiDiagnostics& d) -> std::optional<std::string> {
         return d.searchWarps ? std::optional<std::string>(std::to_string(*d.searchWarps)) : std::nullopt;
     }},
    {"sums-in-double", "on|off", true,
     [](NarumiDiagnostics& d, const std::string& v) { return readSwitch(d.sumsInDouble, v); },
     [](const NarumiDiagnostics& d) { return writtenSwitch(d.sumsInDouble); }},
    {"exclusion-stream", "on|off", true,
     [](NarumiDiagnostics& d, const std::string& v) { return readSwitch(d.exclusionStream, v); },
     [](const NarumiDiagnostics& d) { return writtenSwitch(d.exclusionStream); }},
    {"device-class", "double-rate|float-rate", false,
     [](NarumiDiagnostics& d, const std::string& v) {
         for (NarumiDeviceClass deviceClass : {NarumiDeviceClass::DoubleRate, NarumiDeviceClass::FloatRate})
             if (v == deviceClassName(deviceClass)) {
                 d.deviceClass = deviceClass;
                 return true;
             }
         return false;
     },
     [](const NarumiDiagnostics& d) -> std::optional<std::string> {
         return d.deviceClass ? std::optional<std::string>(deviceClassName(*d.deviceClass)) : std::nullopt;
     }},
    {"sort-curve", "edges|cubes", false,
     [](NarumiDiagnostics& d, const std::string& v) { return readChoice(d.sortAlongCubes, v, "cubes", "edges"); },
     [](const NarumiDiagnostics& d) { return writtenChoice(d.sortAlongCubes, "cubes", "edges"); }},
    {"accumulation", "TakahashiIitaka|Nitadori|ModifiedNitadori", false,
     [](NarumiDiagnostics& d, const std::string& v) {
         for (const auto& [name, method] : STUDY_ACCUMULATIONS)
             if (v == name) {
                 d.accumulation = method;
                 return true;
             }
         return false;
     },
     [](const NarumiDiagnostics& d) -> std::optional<std::string> {
         if (d.accumulation)
             for (const auto& [name, method] : STUDY_ACCUMULATIONS)
                 if (method == *d.accumulation)
                     return std::string(name);
         return std::nullopt;
     }},
    {"shared-carveout", "0..100 (percent)|driver", false,
     [](NarumiDiagnostics& d, const std::string& v) {
         if (v == "driver") {
             d.sharedCarveout = -1;
             return true;
         }
         char* end = nullptr;
         long percent = std::strtol(v.c_str(), &end, 10);
         if (v.empty() || *end != '\0' || percent < 0 || percent > 100)
             return false;
         d.sharedCarveout = (int) percent;
         return true;
     },
     [](const NarumiDiagnostics& d) -> std::optional<std::string> {
         if (!d.sharedCarveout)
             return std::nullopt;
         return std::optional<std::string>(*d.sharedCarveout < 0 ? std::string("driver") : std::to_string(*d.sharedCarveout));
     }},
    {"tile-first-chunks", "assigned|counter", false,
     [](NarumiDiagnostics& d, const std::string& v) { return readChoice(d.tileFirstChunksAssigned, v, "assigned", "counter"); },
     [](const NarumiDiagnostics& d) { return writtenChoice(d.tileFirstChunksAssigned, "assigned", "counter"); }}};

std::string trimmed(const std::string& text) {
    size_t begin = text.find_first_not_of(" \t"), end = text.find_last_not_of(" \t");
    return begin == std::string::npos ? std::string() : text.substr(begin, end - begin + 1);
}

[[noreturn]] void refuse(const std::string& what) {
    std::string valid;
    for (const Setting& setting : SETTINGS)
        valid += std::string(valid.empty() ? "" : ", ") + setting.name + (setting.isSwitch ? "[=on|off]" : std::string("=") + setting.values);
    throw OpenMM::OpenMMException(std::string("NarumiNonbondedForce (CUDA): ") + NarumiDiagnostics::VARIABLE + ": " + what +
                                  ". It takes comma-separated settings of " + valid + " (docs/development.md, \"Diagnostics\")");
}

} // namespace

NarumiDiagnostics NarumiDiagnostics::parse(const std::string& settings) {
    NarumiDiagnostics diagnostics;
    if (trimmed(settings).empty())
        return diagnostics;
    std::set<std::string> given;
    size_t begin = 0;
    while (true) {
        size_t comma = settings.find(',', begin);
        std::string item = trimmed(settings.substr(begin, comma == std::string::npos ? std::string::npos : comma - begin));
        if (item.empty())
            refuse("an empty setting in '" + settings + "'");
        size_t equals = item.find('=');
        std::string name = trimmed(item.substr(0, equals));
        const Setting* setting = nullptr;
        for (const Setting& candidate : SETTINGS)
            if (name == candidate.name)
                setting = &candidate;
        if (setting == nullptr)
            refuse("no setting '" + name + "'");
        if (!given.insert(name).second)
            refuse(name + " is given twice");
        bool bare = (equals == std::string::npos);
        if (bare && !setting->isSwitch)
            refuse(name + " needs a value: " + name + "=" + setting->values);
        std::string value = bare ? std::string("on") : trimmed(item.substr(equals + 1));
        if (!setting->read(diagnostics, value))
            refuse(name + " takes " + setting->values + ", not '" + value + "'");
        if (comma == std::string::npos)
            break;
        begin = comma + 1;
    }
    return diagnostics;
}

NarumiDiagnostics NarumiDiagnostics::fromEnvironment() {
    const char* settings = std::getenv(VARIABLE);
    return settings == nullptr ? NarumiDiagnostics() : parse(settings);
}

bool NarumiDiagnostics::any() const {
    return !describe().empty();
}

std::string NarumiDiagnostics::describe() const {
    std::string text;
    for (const Setting& setting : SETTINGS)
        if (std::optional<std::string> value = setting.written(*this))
            text += std::string(text.empty() ? "" : ",") + setting.name + "=" + *value;
    return text;
}

} // namespace OpenMMNarumi
