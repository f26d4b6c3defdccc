#ifndef NARUMI_DIAGNOSTICS_SETTING_H_
#define NARUMI_DIAGNOSTICS_SETTING_H_

/**
 * NARUMI_DIAGNOSTICS for the CUDA Contexts that a test creates in one scope (docs/development.md, "Diagnostics"):
 * the CUDA platform reads it when a Context creates NarumiNonbondedForce's kernel.
 */

#include <cstdlib>
#include <string>

namespace OpenMMNarumi {
namespace Test {

/** Sets NARUMI_DIAGNOSTICS to settings ("": unset) for its lifetime, then restores what it was. */
class DiagnosticsSetting {
public:
    explicit DiagnosticsSetting(const std::string& settings) {
        const char* before = std::getenv(VARIABLE);
        hadValue = (before != nullptr);
        previous = hadValue ? before : "";
        if (settings.empty())
            unsetenv(VARIABLE);
        else
            setenv(VARIABLE, settings.c_str(), 1);
    }
    ~DiagnosticsSetting() {
        if (hadValue)
            setenv(VARIABLE, previous.c_str(), 1);
        else
            unsetenv(VARIABLE);
    }
    DiagnosticsSetting(const DiagnosticsSetting&) = delete;
    DiagnosticsSetting& operator=(const DiagnosticsSetting&) = delete;

private:
    static constexpr const char* VARIABLE = "NARUMI_DIAGNOSTICS";
    bool hadValue;
    std::string previous;
};

} // namespace Test
} // namespace OpenMMNarumi

#endif // NARUMI_DIAGNOSTICS_SETTING_H_
