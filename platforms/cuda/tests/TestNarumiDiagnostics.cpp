/**
 * NarumiDiagnostics, NARUMI_DIAGNOSTICS read and checked: every setting's values, the production default (unset or
 * empty), and the refusals (unknown names, bad values, settings given twice or empty), each of which must name what
 * was wrong and list the valid settings.  Host code: runs without a GPU.
 */
#include "NarumiDiagnostics.h"
#include "NarumiDiagnosticsSetting.h"
#include "openmm/OpenMMException.h"
#include <cstdlib>
#include <gtest/gtest.h>
#include <string>
#include <vector>

using namespace OpenMMNarumi;
using OpenMM::OpenMMException;
using OpenMMNarumi::Test::DiagnosticsSetting;
using std::string;

namespace {

/** The message of the OpenMMException that parse(settings) throws ("" if it throws none). */
string refusal(const string& settings) {
    try {
        NarumiDiagnostics::parse(settings);
    }
    catch (const OpenMMException& error) {
        return error.what();
    }
    return "";
}

const std::vector<string> EVERY_SETTING = {"profile-stages", "list-skin", "tile-chunks", "search-warps", "sums-in-double",
                                           "exclusion-stream", "device-class", "sort-curve", "accumulation", "shared-carveout",
                                           "tile-first-chunks"};

} // namespace

TEST(NarumiDiagnostics, UnsetOrEmptyIsTheProductionPath) {
    for (const char* settings : {"", " ", " \t "}) {
        NarumiDiagnostics none = NarumiDiagnostics::parse(settings);
        EXPECT_FALSE(none.any()) << "'" << settings << "'";
        EXPECT_EQ(none.describe(), "");
        EXPECT_FALSE(none.profileStages || none.listSkin || none.tileChunks || none.searchWarps || none.sumsInDouble ||
                     none.exclusionStream || none.deviceClass || none.accumulation || none.sharedCarveout ||
                     none.tileFirstChunksAssigned);
    }
    DiagnosticsSetting unset("");
    EXPECT_FALSE(NarumiDiagnostics::fromEnvironment().any());
    setenv(NarumiDiagnostics::VARIABLE, "", 1);  // set, but empty (restored with the rest)
    EXPECT_FALSE(NarumiDiagnostics::fromEnvironment().any());
}

TEST(NarumiDiagnostics, EverySettingIsRead) {
    NarumiDiagnostics d = NarumiDiagnostics::parse("profile-stages,list-skin=0.14,tile-chunks=off,search-warps=8,"
                                                   "sums-in-double=on,exclusion-stream=off,device-class=float-rate,"
                                                   "sort-curve=cubes,accumulation=Nitadori,shared-carveout=40,"
                                                   "tile-first-chunks=counter");
    EXPECT_EQ(d.profileStages, true);
    EXPECT_EQ(d.listSkin, 0.14);
    EXPECT_EQ(d.tileChunks, false);
    EXPECT_EQ(d.searchWarps, 8);
    EXPECT_EQ(d.sumsInDouble, true);
    EXPECT_EQ(d.exclusionStream, false);
    EXPECT_EQ(d.deviceClass, NarumiDeviceClass::FloatRate);
    EXPECT_EQ(d.sortAlongCubes, true);
    EXPECT_EQ(d.accumulation, NarumiAccumulation::Nitadori);
    EXPECT_EQ(d.sharedCarveout, 40);
    EXPECT_EQ(d.tileFirstChunksAssigned, false);
    EXPECT_TRUE(d.any());
    EXPECT_EQ(d.describe(), "profile-stages=on,list-skin=0.14,tile-chunks=off,search-warps=8,sums-in-double=on,"
                            "exclusion-stream=off,device-class=float-rate,sort-curve=cubes,accumulation=Nitadori,"
                            "shared-carveout=40,tile-first-chunks=counter");
}

TEST(NarumiDiagnostics, EachValueOfEachSetting) {
    EXPECT_EQ(NarumiDiagnostics::parse("profile-stages=off").profileStages, false);
    EXPECT_EQ(NarumiDiagnostics::parse("profile-stages=on").profileStages, true);
    EXPECT_EQ(NarumiDiagnostics::parse("tile-chunks").tileChunks, true);
    EXPECT_EQ(NarumiDiagnostics::parse("sums-in-double=off").sumsInDouble, false);
    EXPECT_EQ(NarumiDiagnostics::parse("exclusion-stream=on").exclusionStream, true);
    EXPECT_EQ(NarumiDiagnostics::parse("list-skin=0").listSkin, 0.0);
    EXPECT_EQ(NarumiDiagnostics::parse("list-skin=1").listSkin, 1.0);
    EXPECT_EQ(NarumiDiagnostics::parse("search-warps=4").searchWarps, 4);
    EXPECT_EQ(NarumiDiagnostics::parse("device-class=double-rate").deviceClass, NarumiDeviceClass::DoubleRate);
    EXPECT_EQ(NarumiDiagnostics::parse("sort-curve=edges").sortAlongCubes, false);
    EXPECT_EQ(NarumiDiagnostics::parse("accumulation=TakahashiIitaka").accumulation, NarumiAccumulation::TakahashiIitaka);
    EXPECT_EQ(NarumiDiagnostics::parse("accumulation=ModifiedNitadori").accumulation, NarumiAccumulation::ModifiedNitadori);
    EXPECT_EQ(NarumiDiagnostics::parse("shared-carveout=0").sharedCarveout, 0);
    EXPECT_EQ(NarumiDiagnostics::parse("shared-carveout=100").sharedCarveout, 100);
    EXPECT_EQ(NarumiDiagnostics::parse("shared-carveout=driver").sharedCarveout, -1);
    EXPECT_EQ(NarumiDiagnostics::parse("shared-carveout=driver").describe(), "shared-carveout=driver");
    EXPECT_EQ(NarumiDiagnostics::parse("tile-first-chunks=assigned").tileFirstChunksAssigned, true);
    // A setting given at its default value is still a diagnostic given: the Context says so.
    EXPECT_TRUE(NarumiDiagnostics::parse("exclusion-stream=on").any());
    // Blanks around the settings, names and values are allowed; the order of the settings is free.
    NarumiDiagnostics spaced = NarumiDiagnostics::parse(" accumulation = Nitadori , profile-stages ");
    EXPECT_EQ(spaced.describe(), "profile-stages=on,accumulation=Nitadori");
}

TEST(NarumiDiagnostics, WhatItDescribesReadsBackTheSame) {
    for (const char* settings : {"list-skin=0.1", "search-warps=4,device-class=double-rate", "accumulation=TakahashiIitaka,tile-chunks=on",
                                 "profile-stages=off,exclusion-stream=off,sums-in-double=off,list-skin=0.125"}) {
        string described = NarumiDiagnostics::parse(settings).describe();
        EXPECT_EQ(NarumiDiagnostics::parse(described).describe(), described) << settings;
    }
}

TEST(NarumiDiagnostics, FromEnvironmentReadsNarumiDiagnostics) {
    DiagnosticsSetting setting("list-skin=0,accumulation=ModifiedNitadori");
    NarumiDiagnostics d = NarumiDiagnostics::fromEnvironment();
    EXPECT_EQ(d.listSkin, 0.0);
    EXPECT_EQ(d.accumulation, NarumiAccumulation::ModifiedNitadori);
    EXPECT_FALSE(d.profileStages.has_value());
}

TEST(NarumiDiagnostics, BadSettingsAreClearErrors) {
    // (settings, what the message must name)
    const std::vector<std::pair<string, string>> bad = {
        {"profile", "no setting 'profile'"},
        {"NARUMI_PROFILE_STAGES=1", "no setting 'NARUMI_PROFILE_STAGES'"},
        {"Profile-Stages", "no setting 'Profile-Stages'"},
        {"profile-stages=1", "profile-stages takes on|off, not '1'"},
        {"tile-chunks=yes", "tile-chunks takes on|off, not 'yes'"},
        {"sums-in-double=", "sums-in-double takes on|off, not ''"},
        {"exclusion-stream=0", "exclusion-stream takes on|off, not '0'"},
        {"list-skin", "list-skin needs a value"},
        {"list-skin=abc", "list-skin takes 0..1 (nm), not 'abc'"},
        {"list-skin=-0.1", "not '-0.1'"},
        {"list-skin=2", "not '2'"},
        {"list-skin=0.1nm", "not '0.1nm'"},
        {"list-skin=nan", "not 'nan'"},
        {"search-warps=6", "search-warps takes 4|8, not '6'"},
        {"search-warps=four", "not 'four'"},
        {"device-class=GeForce", "device-class takes double-rate|float-rate, not 'GeForce'"},
        {"sort-curve=hilbert", "sort-curve takes edges|cubes, not 'hilbert'"},
        {"accumulation=Narumi", "accumulation takes TakahashiIitaka|Nitadori|ModifiedNitadori, not 'Narumi'"},
        {"accumulation=nitadori", "not 'nitadori'"},
        {"accumulation", "accumulation needs a value"},
        {"shared-carveout=101", "shared-carveout takes 0..100 (percent)|driver, not '101'"},
        {"shared-carveout=Driver", "not 'Driver'"},
        {"shared-carveout=-1", "not '-1'"},
        {"shared-carveout=40%", "not '40%'"},
        {"shared-carveout", "shared-carveout needs a value"},
        {"tile-first-chunks=static", "tile-first-chunks takes assigned|counter, not 'static'"},
        {"tile-first-chunks", "tile-first-chunks needs a value"},
        {"list-skin=0.1,list-skin=0.14", "list-skin is given twice"},
        {"profile-stages,,list-skin=0", "an empty setting"},
        {"profile-stages,", "an empty setting"},
        {"=on", "no setting ''"}};
    for (const auto& [settings, named] : bad) {
        string message = refusal(settings);
        EXPECT_NE(message.find(named), string::npos) << "'" << settings << "': " << message;
        EXPECT_NE(message.find("NARUMI_DIAGNOSTICS"), string::npos) << message;
        for (const string& name : EVERY_SETTING)
            EXPECT_NE(message.find(name), string::npos) << "'" << settings << "': the message does not list " << name << ": " << message;
    }
    DiagnosticsSetting setting("list-skin=0.1,search-warps=5");
    EXPECT_THROW(NarumiDiagnostics::fromEnvironment(), OpenMMException);
}
