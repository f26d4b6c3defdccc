/**
 * NarumiNonbondedForce on OpenMM's CUDA platform: the shared behaviour of every platform (tests/cpp/
 * NarumiNonbondedForceTests.h) in single, mixed and double precision, then what only this kernel has: accuracy
 * against the double-precision Reference platform at single precision's grade, the properties that only exact
 * accumulation gives (bitwise determinism, a net force of exactly zero, exclusions that cancel exactly), its neighbour
 * list, its error reports and energy conservation.  Every test skips (never passes) where OpenMM's CUDA platform or a
 * GPU is missing.
 */

#include "NarumiDiagnosticsSetting.h"
#include "NarumiNonbondedForceTests.h"
#include "openmm/HarmonicAngleForce.h"
#include "openmm/HarmonicBondForce.h"
#include "openmm/LocalEnergyMinimizer.h"
#include "openmm/MonteCarloBarostat.h"
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <iostream>
#include <limits>
#include <map>
#include <random>

// Single and mixed precision compute pairs in float: TIP3P charges and positions rounded to float move a box's
// energy, a small difference of large sums, by up to ~1e-4 relative (as in OpenMM's own CUDA NonbondedForce).
INSTANTIATE_TEST_SUITE_P(CUDA, NarumiNonbondedForceTest,
                         ::testing::Values(PlatformUnderTest{"CUDA", "single", 3e-4}, PlatformUnderTest{"CUDA", "mixed", 3e-4},
                                           PlatformUnderTest{"CUDA", "double", 1e-6}),
                         platformLabel);
// Central differences need double-precision energies summed exactly enough: Reference and CPU only (see the header).
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(NarumiNonbondedForceGradientTest);

namespace {

EnergyAndForces evaluateOnCuda(const System& system, const vector<Vec3>& positions, const string& precision = "mixed") {
    VerletIntegrator integrator(0.001);
    Context context(system, integrator, Platform::getPlatformByName("CUDA"), {{"Precision", precision}});
    context.setPositions(positions);
    return energyAndForces(context);
}

/**
 * A CUDA Context made with NARUMI_DIAGNOSTICS=diagnostics ("": none), which the platform reads at Context creation, in
 * precision ("": the platform's default).
 */
unique_ptr<Context> cudaContextWith(const System& system, Integrator& integrator, const string& diagnostics, const string& precision = "") {
    DiagnosticsSetting setting(diagnostics);
    map<string, string> properties;
    if (!precision.empty())
        properties["Precision"] = precision;
    return make_unique<Context>(system, integrator, Platform::getPlatformByName("CUDA"), properties);
}

NonbondedSettings periodicSettings(double cutoff, double switchingDistance = -1) {
    NonbondedSettings settings;
    settings.cutoff = cutoff;
    settings.useSwitching = (switchingDistance > 0);
    settings.switchingDistance = switchingDistance;
    return settings;
}

/** A System of ts with this force (periodic, reaction field, 1.0 nm) summing by the given accumulation method. */
unique_ptr<System> periodicSystemWith(const TestSystem& ts, Narumi::AccumulationMethod accumulation) {
    Narumi* force = makeNarumiForce(ts, periodicSettings(1.0));
    force->setAccumulationMethod(accumulation);
    return makeSystem(ts, {force});
}

/** CUDA (mixed precision unless given) against Reference for the same System: energy and forces within tolerance. */
void expectCudaMatchesReference(const TestSystem& ts, const NonbondedSettings& settings,
                                Narumi::ElectrostaticsMethod electrostatics = Narumi::ReactionField,
                                Narumi::AccumulationMethod accumulation = Narumi::Narumi, const string& precision = "mixed",
                                double tolerance = 1e-5) {
    Narumi* force = makeNarumiForce(ts, settings, electrostatics);
    force->setAccumulationMethod(accumulation);
    auto system = makeSystem(ts, {force});
    EnergyAndForces reference = evaluate(*system, ts.positions, "Reference");
    EnergyAndForces cuda = evaluateOnCuda(*system, ts.positions, precision);
    string context = to_string(ts.size()) + " atoms, " + settings.describe() + ", electrostatics " + to_string(electrostatics) +
                     ", accumulation " + to_string(accumulation) + ", precision " + precision;
    EXPECT_TRUE(agree(cuda, reference, tolerance)) << context;
    cout << "[ accuracy ] " << context << ": relative energy error " << fabs(cuda.energy - reference.energy) / fabs(reference.energy)
         << ", relative RMS force error " << relativeRmsDifference(cuda.forces, reference.forces) << endl;
}

/**
 * Settings whose force is continuous at the cutoff (LJ switched from 0.9 nm, reaction field with eps_rf -> infinity,
 * whose force vanishes at rc).  With OpenMM's default eps_rf = 78.3 an O-O pair still feels ~2 kJ/mol/nm at the
 * cutoff, and the few pairs whose float and double distances fall on either side of it (~1e-6 nm) dominate any
 * single-precision kernel's difference from the Reference platform; the relative RMS error is then a count of such
 * pairs, not a measure of the kernel.
 */
NonbondedSettings continuousSettings(double cutoff) {
    NonbondedSettings settings;
    settings.cutoff = cutoff;
    settings.useSwitching = true;
    settings.switchingDistance = cutoff - 0.1;
    settings.reactionFieldDielectric = 1e6;
    return settings;
}

/**
 * TIP3P charges rounded to 10 bits (-0.833984375, +0.4169921875), exact in float with one shared mantissa.  The
 * float rounding of -0.834 and 0.417 shifts every O-O, O-H and H-H pair energy by a fixed relative amount (~3e-8),
 * and in a generated box, whose total energy is a small difference of those large class sums, that alone moves the
 * total by up to 1e-4 relative, in OpenMM's own CUDA NonbondedForce as much as here (measured on the 100k box:
 * 8.4e-5 for OpenMM, 9.2e-5 here).  With these charges the comparison measures the kernel.
 */
TestSystem withFloatExactCharges(TestSystem ts) {
    for (double& q : ts.charges)
        q = std::ldexp(std::nearbyint(std::ldexp(q, 10)), -10);
    return ts;
}

/** A cubic water box of about the given number of atoms (TIP3P density). */
TestSystem waterBoxOfAtoms(int atoms, unsigned seed) {
    return waterBox(cubicBox(cbrt(atoms / (3 * WATERS_PER_NM3))), seed);
}

/** A force component in OpenMM's 64-bit fixed point: exact, because the CUDA platform sums forces in it. */
int64_t toFixedPoint(double force) {
    return (int64_t) llround(force * 4294967296.0);
}

class WaterBoxSizes : public ::testing::TestWithParam<int> {};

TEST_P(WaterBoxSizes, PeriodicWaterBoxMatchesReference) {
    SKIP_WITHOUT_CUDA();
    TestSystem water = withFloatExactCharges(waterBoxOfAtoms(GetParam(), 11));
    expectCudaMatchesReference(water, continuousSettings(1.0));
}

INSTANTIATE_TEST_SUITE_P(Atoms, WaterBoxSizes, ::testing::Values(1000, 10000, 100000));

/**
 * A cutoff so long that each block has more partners than findNeighborTiles sorts by distance (2048; here about
 * 4,000 within 2.4 nm): they keep the search's order, their distance classes cleared, and no pair may be lost.
 */
TEST(CudaNarumiNonbondedForce, PartnerListsTooLongToSortMatchReference) {
    SKIP_WITHOUT_CUDA();
    expectCudaMatchesReference(withFloatExactCharges(waterBox(cubicBox(6.5), 12)), continuousSettings(2.3));
}

/**
 * TileSums computes a block with more partners than the search sorts on the overflow path, each group of 32 partner
 * blocks by whichever warp takes it: once the list has grown (the first evaluation, with the first guess of its size,
 * sends more blocks there, whose tiles then sum differently), every evaluation of every Context must give the same
 * bits, and match Reference.
 */
TEST(CudaNarumiNonbondedForce, TileSumsOnTheOverflowPathRepeatTheirBitsAndMatchReference) {
    SKIP_WITHOUT_CUDA();
    TestSystem water = withFloatExactCharges(waterBox(cubicBox(6.5), 12));
    Narumi* force = makeNarumiForce(water, continuousSettings(2.3));
    force->setAccumulationMethod(Narumi::TileSums);
    auto system = makeSystem(water, {force});
    EnergyAndForces reference = evaluate(*system, water.positions, "Reference");
    VerletIntegrator integrator1(0.001), integrator2(0.001);
    Context context1(*system, integrator1, Platform::getPlatformByName("CUDA"));
    Context context2(*system, integrator2, Platform::getPlatformByName("CUDA"));
    context1.setPositions(water.positions);
    context2.setPositions(water.positions);
    energyAndForces(context1);
    energyAndForces(context2);
    EnergyAndForces first = energyAndForces(context1), second = energyAndForces(context1), other = energyAndForces(context2);
    EXPECT_EQ(differingComponents(first, second), 0) << "two evaluations of one Context";
    EXPECT_EQ(differingComponents(first, other), 0) << "two Contexts";
    EXPECT_EQ(first.energy, second.energy);
    EXPECT_EQ(first.energy, other.energy);
    EXPECT_TRUE(agree(first, reference, 1e-5));
    cout << "[ accuracy ] TileSums on the overflow path: relative energy error " << fabs(first.energy - reference.energy) / fabs(reference.energy)
         << ", relative RMS force error " << relativeRmsDifference(first.forces, reference.forces) << endl;
}

TEST(CudaNarumiNonbondedForce, TriclinicBoxesMatchReference) {
    SKIP_WITHOUT_CUDA();
    const double d = 4.0;
    Box dodecahedron = {Vec3(d, 0, 0), Vec3(0, d, 0), Vec3(d / 2, d / 2, d * sqrt(2.0) / 2)};
    Box octahedron = {Vec3(d, 0, 0), Vec3(d / 3, 2 * sqrt(2.0) * d / 3, 0), Vec3(-d / 3, sqrt(2.0) * d / 3, sqrt(6.0) * d / 3)};
    Box skewed = {Vec3(3, 0, 0), Vec3(1, 2.8, 0), Vec3(-1, 1, 2.7)};
    for (const Box& box : {dodecahedron, octahedron, skewed}) {
        expectCudaMatchesReference(withFloatExactCharges(waterBox(box, 3)), continuousSettings(1.0));
        expectCudaMatchesReference(withFloatExactCharges(waterBox(box, 4)), continuousSettings(1.2));
    }
}

/**
 * What NarumiNonbondedForce prints to stderr over a few evaluations of a water box: its warnings, and with profile
 * (the diagnostic profile-stages) the stage report with the search's counters per evaluation.
 */
string stderrOfEvaluations(const TestSystem& water, double cutoff, bool profile) {
    auto system = makeSystem(water, {makeNarumiForce(water, periodicSettings(cutoff))});
    VerletIntegrator integrator(0.0005);
    ::testing::internal::CaptureStderr();
    {
        unique_ptr<Context> context = cudaContextWith(*system, integrator, profile ? "profile-stages" : "");
        context->setPositions(water.positions);
        for (int i = 0; i < 3; i++)
            context->getState(State::Energy);
    }
    return ::testing::internal::GetCapturedStderr();
}

/** The per-evaluation value of a search counter of a stage report (NaN if missing). */
double searchCounter(const string& report, const string& name) {
    size_t at = report.find(name + " ");
    EXPECT_NE(at, string::npos) << report;
    return at == string::npos ? nan("") : atof(report.c_str() + at + name.size() + 1);
}

/**
 * Triclinic boxes search as tightly as cubic ones: hardly any block pair is taken as interacting untested or block
 * loses the atom filter.  Until the sort keys were taken from the wrapped brick's coordinates, a quarter of the atoms of a
 * dodecahedron got clamped fractional coordinates, blocks became sticks across the box, and such a box ran at 0.62x
 * OpenMM's speed with ~90k untested block pairs per evaluation.  A box small for its cutoff (a block's size plus the
 * cutoff reaches half the box) needs both, which is right for it: the counters show them, and no warning is printed.
 */
TEST(CudaNarumiNonbondedForce, TriclinicBoxesSearchWithoutFallback) {
    SKIP_WITHOUT_CUDA();
    const double d = 6.0;
    Box dodecahedron = {Vec3(d, 0, 0), Vec3(0, d, 0), Vec3(d / 2, d / 2, d * sqrt(2.0) / 2)};
    Box octahedron = {Vec3(d, 0, 0), Vec3(d / 3, 2 * sqrt(2.0) * d / 3, 0), Vec3(-d / 3, sqrt(2.0) * d / 3, sqrt(6.0) * d / 3)};
    for (const Box& box : {dodecahedron, octahedron}) {
        // A block or two of a build may be stretched by atoms that crossed a face since the sort (1 of 479 seen).
        string report = stderrOfEvaluations(waterBox(box, 31), 1.0, true);
        size_t blocksEnd = report.find(" blocks, skin");
        double blocks = blocksEnd == string::npos ? 0.0 : atof(report.c_str() + report.rfind(' ', blocksEnd - 1) + 1);
        EXPECT_GT(blocks, 400.0) << report;
        EXPECT_LE(searchCounter(report, "untested block pairs"), 0.01 * blocks) << report;
        EXPECT_LE(searchCounter(report, "unfiltered blocks"), 0.01 * blocks) << report;
    }
    for (auto [edge, cutoff] : {pair<double, double>{4.2, 2.05}, {3.3, 1.0}}) {
        string small = "a " + to_string(edge) + " nm box with a " + to_string(cutoff) + " nm cutoff: ";
        TestSystem water = waterBox(cubicBox(edge), 32);
        string report = stderrOfEvaluations(water, cutoff, true);
        EXPECT_GT(searchCounter(report, "untested block pairs") + searchCounter(report, "unfiltered blocks"), 0.0) << small << report;
        string warnings = stderrOfEvaluations(water, cutoff, false);
        EXPECT_EQ(warnings.find("warning"), string::npos) << small << warnings;
    }
}


TEST(CudaNarumiNonbondedForce, BlocksThatOutgrowTheirListSegmentsLoseNoPair) {
    SKIP_WITHOUT_CUDA();
    // NoCutoff on 256 blocks of 32 atoms: every block has up to 255 candidate blocks and as many tiles, beyond the
    // first guess of the list's segments (160 candidates, 64 tiles).  The first evaluation computes those blocks in
    // computeTiles' overflow path; the host then grows the segments and the second lists them.
    TestSystem water = withFloatExactCharges(waterBoxOfAtoms(8192, 19));
    NonbondedSettings settings = periodicSettings(1.0);
    settings.method = Narumi::NoCutoff;
    auto system = makeSystem(water, {makeNarumiForce(water, settings)});
    EnergyAndForces reference = evaluate(*system, water.positions, "Reference");
    VerletIntegrator integrator(0.001);
    Context context(*system, integrator, Platform::getPlatformByName("CUDA"));
    context.setPositions(water.positions);
    EnergyAndForces overflowed = energyAndForces(context), listed = energyAndForces(context);
    // A lost tile moves the forces of 64 atoms by ~1-10 kJ/mol/nm: ~1e-3 relative RMS here, far above float rounding.
    EXPECT_LE(relativeRmsDifference(overflowed.forces, reference.forces), 1e-5) << "first evaluation (overflow path)";
    // The same pairs give the same integers whichever kernel computes them.
    EXPECT_EQ(differingComponents(overflowed, listed), 0) << "forces of the overflow path and of the grown list";
    EXPECT_EQ(overflowed.energy, listed.energy);
    // This NoCutoff energy is a small difference (-2.3e3 kJ/mol) of 3.4e7 float pair energies; their rounding alone
    // moves it by ~1e-4 relative (9.6e-5 measured on an H100), so it is held to 3e-4, not to the forces' 1e-5.
    EXPECT_NEAR(overflowed.energy, reference.energy, 3e-4 * fabs(reference.energy));
}



/**
 * Every accumulation method in every precision against the Reference platform: the API's five as the force's setting,
 * the paper's float pairs C-E through the diagnostics (accumulation=NAME), whose forces must then differ in some bits
 * from those of the force's own method (Narumi): the diagnostic took effect.
 */
TEST(CudaNarumiNonbondedForce, EveryAccumulationMethodAndPrecisionMatchesReference) {
    SKIP_WITHOUT_CUDA();
    TestSystem molecule = solvatedMolecule(cubicBox(3.2), Vec3(1.6, 1.6, 1.6), 9);
    // Method A sums in float, and with exclusions removed afterwards the intramolecular O-H terms (~5e3 kJ/mol/nm)
    // pass through those float sums: the paper's Table 1 effect: ~3e-4 in forces, ~3e-3 in energy here.  D and E lose
    // low bits when a term exceeds the running sum (D) or LARGE = 3.1e6 (E, the molecule's excluded LJ pairs): lossy
    // by design, held to A's bound.  B, C, F, FixedPoint64 and TileSums (whose float tile sums never see those LJ
    // terms: 2^15 and above go to its fixed point) are within ~1e-6.
    for (auto accumulation : {Narumi::Narumi, Narumi::SingleFloat, Narumi::DoubleFloat, Narumi::FixedPoint64, Narumi::TileSums})
        for (string precision : {"single", "mixed", "double"})
            expectCudaMatchesReference(molecule, periodicSettings(1.0), Narumi::ReactionField, accumulation, precision,
                                       accumulation == Narumi::SingleFloat ? 1e-2 : 1e-5);
    auto system = periodicSystemWith(molecule, Narumi::Narumi);
    EnergyAndForces reference = evaluate(*system, molecule.positions, "Reference");
    for (auto [floatPair, lossy] : {pair<string, bool>{"TakahashiIitaka", false}, {"Nitadori", true}, {"ModifiedNitadori", true}})
        for (string precision : {"single", "mixed", "double"}) {
            EnergyAndForces narumi = evaluateOnCuda(*system, molecule.positions, precision), selected;
            {
                DiagnosticsSetting diagnostics("accumulation=" + floatPair);
                selected = evaluateOnCuda(*system, molecule.positions, precision);
            }
            string context = "accumulation=" + floatPair + ", precision " + precision;
            EXPECT_TRUE(agree(selected, reference, lossy ? 1e-2 : 1e-5)) << context;
            EXPECT_GT(differingComponents(selected, narumi), 0) << context << ": the diagnostic changed nothing";
            cout << "[ accuracy ] " << context << ": relative energy error " << fabs(selected.energy - reference.energy) / fabs(reference.energy)
                 << ", relative RMS force error " << relativeRmsDifference(selected.forces, reference.forces) << endl;
        }
}

/** The systems on which the CUDA force's error is held to OpenMM CUDA's: a water box, a triclinic box, a solvated molecule. */
vector<pair<string, TestSystem>> accuracySystems() {
    const double d = 4.0;
    Box octahedron = {Vec3(d, 0, 0), Vec3(d / 3, 2 * sqrt(2.0) * d / 3, 0), Vec3(-d / 3, sqrt(2.0) * d / 3, sqrt(6.0) * d / 3)};
    return {{"water box", waterBoxOfAtoms(10000, 21)},
            {"truncated octahedron", waterBox(octahedron, 22)},
            {"solvated molecule", solvatedMolecule(cubicBox(3.2), Vec3(1.6, 1.6, 1.6), 23)}};
}

/**
 * Precision=double computes the pairs in double (Narumi, FixedPoint64, TileSums and DoubleFloat): its force error against the
 * Reference platform must be within 2x that of OpenMM's own NonbondedForce on its CUDA platform in double precision,
 * measured on the same positions (a water box, a triclinic box, a solvated molecule with exceptions), and far below
 * single precision's; with the exact sums the excluded pairs still cancel exactly (a net force of exactly zero).
 */
TEST(CudaNarumiNonbondedForce, DoublePrecisionHasOpenMMsDoubleGrade) {
    SKIP_WITHOUT_CUDA();
    for (auto& [name, ts] : accuracySystems()) {
        NonbondedSettings settings = periodicSettings(1.0);
        auto openmmSystem = makeSystem(ts, {makeNonbondedForce(ts, settings)});
        EnergyAndForces openmmReference = evaluate(*openmmSystem, ts.positions, "Reference");
        EnergyAndForces openmmCuda = evaluateOnCuda(*openmmSystem, ts.positions, "double");
        double openmmError = relativeRmsDifference(openmmCuda.forces, openmmReference.forces);
        for (auto accumulation : {Narumi::Narumi, Narumi::FixedPoint64, Narumi::TileSums, Narumi::DoubleFloat}) {
            Narumi* force = makeNarumiForce(ts, settings, Narumi::ReactionField);
            force->setAccumulationMethod(accumulation);
            auto system = makeSystem(ts, {force});
            EnergyAndForces reference = evaluate(*system, ts.positions, "Reference");
            EnergyAndForces cudaDouble = evaluateOnCuda(*system, ts.positions, "double");
            EnergyAndForces cudaMixed = evaluateOnCuda(*system, ts.positions, "mixed");
            double error = relativeRmsDifference(cudaDouble.forces, reference.forces);
            double mixedError = relativeRmsDifference(cudaMixed.forces, reference.forces);
            double energyError = fabs(cudaDouble.energy - reference.energy) / fabs(reference.energy);
            cout << "[ accuracy ] " << name << ", accumulation " << accumulation << ", double: relative RMS force error "
                 << error << " (OpenMM CUDA double " << openmmError << ", mixed here " << mixedError << "), relative energy error "
                 << energyError << endl;
            EXPECT_LE(error, 2 * openmmError + 1e-12) << name << ", accumulation " << accumulation;
            EXPECT_LE(error, 1e-2 * mixedError) << name << ", accumulation " << accumulation << ": double is single-grade";
            EXPECT_LE(energyError, 1e-8) << name << ", accumulation " << accumulation;
            if (accumulation == Narumi::Narumi || accumulation == Narumi::FixedPoint64) {
                int64_t net[3] = {0, 0, 0};
                for (const Vec3& f : cudaDouble.forces)
                    for (int c = 0; c < 3; c++)
                        net[c] += toFixedPoint(f[c]);
                for (int c = 0; c < 3; c++)
                    EXPECT_EQ(net[c], 0) << name << ", accumulation " << accumulation << ": fixed-point sums must cancel exactly";
            }
        }
    }
}

/**
 * TileSums is OpenMM CUDA's scheme: its force error against the Reference platform, in single and mixed precision,
 * must be of the grade of OpenMM's own NonbondedForce on CUDA on the same positions (within 2x; both printed): a
 * water box, a truncated octahedron and a solvated molecule, whose excluded pairs split across two blocks pass through
 * its float tile sums before the exclusion pass takes them out (those within a block, 128 kJ/mol/nm and up, do not).
 */
TEST(CudaNarumiNonbondedForce, TileSumsHaveOpenMMsCudaGrade) {
    SKIP_WITHOUT_CUDA();
    for (auto& [name, ts] : accuracySystems()) {
        NonbondedSettings settings = periodicSettings(1.0);
        auto openmmSystem = makeSystem(ts, {makeNonbondedForce(ts, settings)});
        EnergyAndForces openmmReference = evaluate(*openmmSystem, ts.positions, "Reference");
        Narumi* force = makeNarumiForce(ts, settings, Narumi::ReactionField);
        force->setAccumulationMethod(Narumi::TileSums);
        auto system = makeSystem(ts, {force});
        EnergyAndForces reference = evaluate(*system, ts.positions, "Reference");
        for (string precision : {"single", "mixed"}) {
            EnergyAndForces openmmCuda = evaluateOnCuda(*openmmSystem, ts.positions, precision);
            EnergyAndForces tileSums = evaluateOnCuda(*system, ts.positions, precision);
            double openmmError = relativeRmsDifference(openmmCuda.forces, openmmReference.forces);
            double error = relativeRmsDifference(tileSums.forces, reference.forces);
            double energyError = fabs(tileSums.energy - reference.energy) / fabs(reference.energy);
            cout << "[ accuracy ] " << name << ", TileSums, " << precision << ": relative RMS force error " << error << " (OpenMM CUDA "
                 << openmmError << ", ratio " << error / openmmError << "), relative energy error " << energyError << " (OpenMM CUDA "
                 << fabs(openmmCuda.energy - openmmReference.energy) / fabs(openmmReference.energy) << ")" << endl;
            EXPECT_LE(error, 2 * openmmError) << name << ", " << precision;
            EXPECT_LE(energyError, 1e-5) << name << ", " << precision;
        }
    }
}

/** Narumi, FixedPoint64 and TileSums (whose tile sums depend on the tile alone) give the same bits every time. */
TEST(CudaNarumiNonbondedForce, LargeBoxIsBitwiseReproducibleWithEveryDeterministicAccumulation) {
    SKIP_WITHOUT_CUDA();
    TestSystem water = waterBoxOfAtoms(20000, 12);
    for (auto accumulation : {Narumi::Narumi, Narumi::FixedPoint64, Narumi::TileSums}) {
        auto system = periodicSystemWith(water, accumulation);
        VerletIntegrator integrator1(0.001), integrator2(0.001);
        Context context1(*system, integrator1, Platform::getPlatformByName("CUDA"));
        Context context2(*system, integrator2, Platform::getPlatformByName("CUDA"));
        context1.setPositions(water.positions);
        context2.setPositions(water.positions);
        EnergyAndForces first = energyAndForces(context1), second = energyAndForces(context1), other = energyAndForces(context2);
        EXPECT_EQ(differingComponents(first, second) + differingComponents(first, other), 0) << "accumulation " << accumulation;
        EXPECT_EQ(first.energy, second.energy);
        EXPECT_EQ(first.energy, other.energy);
    }
}

TEST(CudaNarumiNonbondedForce, MovingAtomsBetweenSortsMatchReference) {
    SKIP_WITHOUT_CUDA();
    // The kernel re-sorts atoms only every few evaluations and keeps each atom's periodic image in between.  Move a
    // box by small random steps plus a drift that carries atoms across its faces, and jump whole molecules by box
    // vectors (the images OpenMM may hand over): every evaluation of one Context must still match the Reference.
    Box skewed = {Vec3(3.2, 0, 0), Vec3(1.0, 3.0, 0), Vec3(-1.1, 1.2, 2.9)};
    for (const Box& box : {cubicBox(3.5), skewed}) {
        TestSystem water = withFloatExactCharges(waterBox(box, 17));
        auto system = makeSystem(water, {makeNarumiForce(water, continuousSettings(1.0))});
        VerletIntegrator cudaIntegrator(0.001), referenceIntegrator(0.001);
        Context cuda(*system, cudaIntegrator, Platform::getPlatformByName("CUDA"));
        Context reference(*system, referenceIntegrator, Platform::getPlatformByName("Reference"));
        mt19937 random(18);
        normal_distribution<double> jiggle(0.0, 0.0015);
        uniform_int_distribution<int> image(-1, 1);
        // Coordinates stay within about a box of the origin: far out, mixed precision's float posq loses digits.
        vector<Vec3> walked = water.positions, positions(water.size());
        for (int evaluation = 0; evaluation < 45; evaluation++) {
            Vec3 drift = Vec3(0.03, 0.02, 0.0) * evaluation;
            for (int i = 0; i < water.size(); i++) {
                walked[i] += Vec3(jiggle(random), jiggle(random), jiggle(random));
                positions[i] = walked[i] + drift;
            }
            for (int molecule = evaluation % 7; molecule < water.size() / 3; molecule += 7) {
                Vec3 jump = box[0] * image(random) + box[1] * image(random) + box[2] * image(random);
                for (int k = 0; k < 3; k++)
                    positions[3 * molecule + k] += jump;
            }
            cuda.setPositions(positions);
            EnergyAndForces onCuda = energyAndForces(cuda);
            if (evaluation % 4 == 3) {
                reference.setPositions(positions);
                EXPECT_TRUE(agree(onCuda, energyAndForces(reference), 1e-5)) << "evaluation " << evaluation;
            }
        }
    }
}

/**
 * Two CUDA Contexts of one System: one that prints its stage report when deleted (the diagnostic profile-stages, and
 * profiledAlso's), and one made with the diagnostics switchedSettings.
 */
struct ProfiledAndSwitchedContexts {
    VerletIntegrator profiledIntegrator{0.001}, switchedIntegrator{0.001};
    unique_ptr<Context> profiled, switched;
    ProfiledAndSwitchedContexts(const System& system, const string& switchedSettings, const string& profiledAlso = "") {
        profiled = cudaContextWith(system, profiledIntegrator, "profile-stages" + (profiledAlso.empty() ? "" : "," + profiledAlso));
        switched = cudaContextWith(system, switchedIntegrator, switchedSettings);
    }
    string report;  // the profiled Context's stage report, once it is deleted
    /** Deletes the profiled Context (at the first call); the per-evaluation value of the named counter of its report (NaN if missing). */
    double profiledCounter(const string& name) {
        if (profiled != nullptr) {
            ::testing::internal::CaptureStderr();
            profiled.reset();
            report = ::testing::internal::GetCapturedStderr();
        }
        size_t at = report.find(name + " ");
        EXPECT_NE(at, string::npos) << report;
        return at == string::npos ? nan("") : atof(report.c_str() + at + name.size() + 1);
    }
};

/**
 * The neighbour list is kept over evaluations until an atom has moved half its skin.  A Context that keeps it must give
 * the same bits as one that rebuilds it at every evaluation (list-skin=0) on the same sequence of positions:
 * the fixed-point sums do not depend on which tiles hold a pair, so any pair the kept list missed would show.  The
 * atoms take random steps of 0.006 nm per component, so that pairs keep crossing the cutoff, and the stage report
 * (profile-stages) must show that the list was indeed kept over most evaluations.
 */
TEST(CudaNarumiNonbondedForce, KeptNeighbourListGivesTheBitsOfAFreshOne) {
    SKIP_WITHOUT_CUDA();
    const double d = 4.5;
    Box octahedron = {Vec3(d, 0, 0), Vec3(d / 3, 2 * sqrt(2.0) * d / 3, 0), Vec3(-d / 3, sqrt(2.0) * d / 3, sqrt(6.0) * d / 3)};
    for (const Box& box : {cubicBox(4.0), octahedron}) {
        TestSystem water = waterBox(box, 41);
        auto system = makeSystem(water, {makeNarumiForce(water, periodicSettings(1.0))});
        ProfiledAndSwitchedContexts contexts(*system, "list-skin=0");
        Context& kept = *contexts.profiled;
        Context& rebuilt = *contexts.switched;
        mt19937 random(42);
        normal_distribution<double> step(0.0, 0.006);
        vector<Vec3> positions = water.positions;
        int differences = 0;
        for (int evaluation = 0; evaluation < 30; evaluation++) {
            for (Vec3& p : positions)
                p += Vec3(step(random), step(random), step(random));
            kept.setPositions(positions);
            rebuilt.setPositions(positions);
            EnergyAndForces fromKeptList = energyAndForces(kept), fromNewList = energyAndForces(rebuilt);
            differences += differingComponents(fromKeptList, fromNewList);
            EXPECT_EQ(fromKeptList.energy, fromNewList.energy) << "evaluation " << evaluation;
        }
        EXPECT_EQ(differences, 0);
        double buildsPerEvaluation = contexts.profiledCounter("list builds");
        EXPECT_LT(buildsPerEvaluation, 0.7);
        EXPECT_GT(buildsPerEvaluation, 0.0);
    }
}

/**
 * The list's skin is chosen from how often the list is rebuilt (NarumiListSkin): atoms that force a build at every
 * evaluation make the sort of the 21st evaluation widen it, and the lists of both skins must give the bits of a list
 * rebuilt at every evaluation (list-skin=0).  The atoms take fresh random displacements of 0.012 nm per
 * component about their start at every evaluation: fast, but no drift towards overlaps.
 */
TEST(CudaNarumiNonbondedForce, ChosenSkinKeepsTheBitsOfAFreshList) {
    SKIP_WITHOUT_CUDA();
    TestSystem water = waterBox(cubicBox(4.0), 41);
    auto system = makeSystem(water, {makeNarumiForce(water, periodicSettings(1.0))});
    ProfiledAndSwitchedContexts contexts(*system, "list-skin=0");
    mt19937 random(7);
    normal_distribution<double> displacement(0.0, 0.012);
    int differences = 0;
    for (int evaluation = 0; evaluation < 25; evaluation++) {
        vector<Vec3> positions = water.positions;
        for (Vec3& p : positions)
            p += Vec3(displacement(random), displacement(random), displacement(random));
        contexts.profiled->setPositions(positions);
        contexts.switched->setPositions(positions);
        EnergyAndForces chosen = energyAndForces(*contexts.profiled), fresh = energyAndForces(*contexts.switched);
        differences += differingComponents(chosen, fresh);
        EXPECT_EQ(chosen.energy, fresh.energy) << "evaluation " << evaluation;
    }
    EXPECT_EQ(differences, 0);
    EXPECT_EQ(contexts.profiledCounter("skin"), 0.14) << "the skin after the sort of the 21st evaluation";
}

/**
 * The stage report (profile-stages) gives the means of the evaluations after the first, which sorts, sizes the
 * list and loads the kernels: over 6 evaluations it reports 5, and no sort among them (the next is due at the 21st),
 * while the search counters still count all 6.
 */
TEST(CudaNarumiNonbondedForce, StageReportLeavesOutTheFirstEvaluation) {
    SKIP_WITHOUT_CUDA();
    TestSystem water = waterBox(cubicBox(3.0), 43);
    auto system = makeSystem(water, {makeNarumiForce(water, periodicSettings(1.0))});
    ProfiledAndSwitchedContexts contexts(*system, "list-skin=0");
    contexts.profiled->setPositions(water.positions);
    for (int evaluation = 0; evaluation < 6; evaluation++)
        energyAndForces(*contexts.profiled);
    ::testing::internal::CaptureStderr();
    contexts.profiled.reset();
    string report = ::testing::internal::GetCapturedStderr();
    EXPECT_NE(report.find("search, 6 evaluations"), string::npos) << report;
    EXPECT_NE(report.find("after its first evaluation, stage times, 5 evaluations"), string::npos) << report;
    EXPECT_EQ(report.find("computeSortKeys+sort"), string::npos) << report;
    EXPECT_NE(report.find("computeTiles"), string::npos) << report;
}

/**
 * When another force uses OpenMM's neighbour list (here a CustomNonbondedForce with a cutoff), OpenMM reorders atoms
 * every 250 steps, moving molecules between posq indices.  The kernel's slots would then hold scattered atoms until
 * its next sort, and its tile list would balloon (the search warns when it grows past 1.5x); a ReorderListener makes
 * it sort at once.  Over 300 steps no warning may appear, and the forces must still match the Reference platform.
 */
TEST(CudaNarumiNonbondedForce, OpenMMsReorderingIsFollowedAtOnce) {
    SKIP_WITHOUT_CUDA();
    TestSystem water = withFloatExactCharges(waterBox(cubicBox(4.0), 51));
    Narumi* narumi = makeNarumiForce(water, continuousSettings(1.0));
    CustomNonbondedForce* other = new CustomNonbondedForce("0*r");
    other->setNonbondedMethod(CustomNonbondedForce::CutoffPeriodic);
    other->setCutoffDistance(1.0);
    other->setForceGroup(1);
    for (int i = 0; i < water.size(); i++)
        other->addParticle({});
    auto system = makeSystem(water, {narumi, other});
    VerletIntegrator integrator(1e-6);  // OpenMM counts steps, not distance: the atoms stay where they are
    ::testing::internal::CaptureStderr();
    vector<Vec3> positions;
    EnergyAndForces onCuda;
    {
        Context context(*system, integrator, Platform::getPlatformByName("CUDA"));
        context.setPositions(water.positions);
        integrator.step(300);
        State state = context.getState(State::Positions);
        positions = state.getPositions();
        onCuda = energyAndForces(context, 1 << 0);
    }
    string warnings = ::testing::internal::GetCapturedStderr();
    EXPECT_EQ(warnings.find("warning"), string::npos) << warnings;
    VerletIntegrator referenceIntegrator(1e-6);
    Context reference(*system, referenceIntegrator, Platform::getPlatformByName("Reference"));
    reference.setPositions(positions);
    EXPECT_TRUE(agree(onCuda, energyAndForces(reference, 1 << 0), 1e-5));
}

/**
 * computeTiles hands the tile list out to its warps in chunks (the default: of 4 tiles for a long list, of one for a
 * short one) or in one fixed run per warp (the diagnostic tile-chunks=off).  Narumi's and
 * FixedPoint64's sums are exact, and TileSums merges each tile's sums on its own, so both must give the same bits, with and without the energy, on a box whose list is
 * long enough for chunks of 4 on GPUs of up to about 300 multiprocessors (200k atoms) and on one whose list is short
 * (20k atoms); the stage report must show that every evaluation was chunked.
 */
TEST(CudaNarumiNonbondedForce, ChunkedTileListGivesTheBitsOfFixedRuns) {
    SKIP_WITHOUT_CUDA();
    for (int atoms : {200000, 20000}) {
        TestSystem water = waterBoxOfAtoms(atoms, 81);
        for (auto accumulation : {Narumi::Narumi, Narumi::FixedPoint64, Narumi::TileSums}) {
            auto system = periodicSystemWith(water, accumulation);
            ProfiledAndSwitchedContexts contexts(*system, "tile-chunks=off");
            Context& chunked = *contexts.profiled;
            Context& fixed = *contexts.switched;
            chunked.setPositions(water.positions);
            fixed.setPositions(water.positions);
            string context = to_string(water.size()) + " atoms, accumulation " + to_string(accumulation);
            EnergyAndForces fromChunks = energyAndForces(chunked), fromRuns = energyAndForces(fixed);
            EXPECT_EQ(fromChunks.energy, fromRuns.energy) << context;
            EnergyAndForces forcesOnlyChunks{0.0, chunked.getState(State::Forces).getForces()};
            EnergyAndForces forcesOnlyRuns{0.0, fixed.getState(State::Forces).getForces()};
            EXPECT_EQ(differingComponents(fromChunks, fromRuns), 0) << context;
            EXPECT_EQ(differingComponents(forcesOnlyChunks, forcesOnlyRuns), 0) << context;
            EXPECT_EQ(differingComponents(forcesOnlyChunks, fromChunks), 0) << context;
            EXPECT_EQ(contexts.profiledCounter("tiles in chunks"), 1.0) << context;
        }
    }
}

/**
 * computeTiles' warps each take their first chunk of the list as assigned, then the next free one from the counter; or
 * every chunk from the counter (the diagnostic tile-first-chunks=counter).  Which warp computes which tile does not
 * change exact sums, so both must give the same bits, forces and energy, in mixed and double precision, with Narumi's,
 * FixedPoint64's and TileSums' sums: on a 20,000-atom water box (more tiles than the warps of any current GPU) and on a
 * molecule in 2.6 nm of water (fewer tiles than warps, its excluded bonded pairs in the diagonal tiles).
 */
TEST(CudaNarumiNonbondedForce, AssignedFirstChunksGiveTheSameBits) {
    SKIP_WITHOUT_CUDA();
    const vector<pair<string, TestSystem>> systems = {{"20k water", waterBoxOfAtoms(20000, 93)},
                                                      {"solvated molecule", solvatedMolecule(cubicBox(2.6), Vec3(0.7, 1.3, 1.3), 3)}};
    for (const auto& [name, ts] : systems)
        for (auto accumulation : {Narumi::Narumi, Narumi::FixedPoint64, Narumi::TileSums})
            for (const string precision : {"mixed", "double"}) {
                auto system = periodicSystemWith(ts, accumulation);
                VerletIntegrator defaultIntegrator(0.001);
                auto byDefault = cudaContextWith(*system, defaultIntegrator, "", precision);
                byDefault->setPositions(ts.positions);
                EnergyAndForces expected = energyAndForces(*byDefault);
                EnergyAndForces expectedForcesOnly{0.0, byDefault->getState(State::Forces).getForces()};
                VerletIntegrator integrator(0.001);
                auto counter = cudaContextWith(*system, integrator, "tile-first-chunks=counter", precision);
                counter->setPositions(ts.positions);
                EnergyAndForces got = energyAndForces(*counter);
                EnergyAndForces forcesOnly{0.0, counter->getState(State::Forces).getForces()};
                string label = name + ", accumulation " + to_string(accumulation) + ", " + precision;
                EXPECT_EQ(got.energy, expected.energy) << label;
                EXPECT_EQ(differingComponents(got, expected), 0) << label;
                EXPECT_EQ(differingComponents(forcesOnly, expectedForcesOnly), 0) << label;
                EXPECT_EQ(differingComponents(forcesOnly, got), 0) << label;
            }
}

/**
 * The neighbour search runs thread blocks of 8 warps, or of 4 on a list of many blocks (findNeighbors.cu), which order
 * a block's partners differently within a distance class; the sums are exact, so either must give the same bits.  A
 * 200,000-atom box (6,250 blocks: 4 warps on GPUs of up to 390 multiprocessors) and a 20,000-atom one (625 blocks: 8
 * warps on any GPU of 40 or more), each against both values of the diagnostic search-warps, the stage report telling
 * which one the default took.
 */
TEST(CudaNarumiNonbondedForce, SearchWarpsGiveTheSameBits) {
    SKIP_WITHOUT_CUDA();
    for (auto [atoms, chosen] : {pair<int, double>{200000, 4}, pair<int, double>{20000, 8}}) {
        TestSystem water = waterBoxOfAtoms(atoms, 83);
        auto system = periodicSystemWith(water, Narumi::Narumi);
        for (const char* forced : {"4", "8"}) {
            ProfiledAndSwitchedContexts contexts(*system, string("search-warps=") + forced);
            contexts.profiled->setPositions(water.positions);
            contexts.switched->setPositions(water.positions);
            string context = to_string(water.size()) + " atoms, search-warps=" + forced;
            EnergyAndForces byDefault = energyAndForces(*contexts.profiled), byForced = energyAndForces(*contexts.switched);
            EXPECT_EQ(byDefault.energy, byForced.energy) << context;
            EXPECT_EQ(differingComponents(byDefault, byForced), 0) << context;
            EXPECT_EQ(contexts.profiledCounter("search warps per block I"), chosen) << context;
        }
    }
}

/**
 * The shared-memory carveout (by default the one the pair kernel needs; the diagnostic shared-carveout) changes where
 * the kernels run, never what they add: the same bits with the most L1, a middle split, the most shared memory and
 * the driver's choice per kernel; and a Context made afterwards without the setting (which must set its own again,
 * the attribute being the kernel's, not the Context's) gives them too.  (The type table's kernel:
 * TestCudaNarumiGromacsConventions.cpp.)
 */
TEST(CudaNarumiNonbondedForce, SharedCarveoutGivesTheSameBits) {
    SKIP_WITHOUT_CUDA();
    TestSystem water = waterBoxOfAtoms(20000, 91);
    auto system = periodicSystemWith(water, Narumi::Narumi);
    VerletIntegrator firstIntegrator(0.001);
    auto first = cudaContextWith(*system, firstIntegrator, "");
    first->setPositions(water.positions);
    EnergyAndForces byDefault = energyAndForces(*first);
    for (const char* percent : {"0", "40", "100", "driver"}) {
        VerletIntegrator integrator(0.001);
        auto context = cudaContextWith(*system, integrator, string("shared-carveout=") + percent);
        context->setPositions(water.positions);
        EnergyAndForces carved = energyAndForces(*context);
        EXPECT_EQ(carved.energy, byDefault.energy) << "shared-carveout=" << percent;
        EXPECT_EQ(differingComponents(carved, byDefault), 0) << "shared-carveout=" << percent;
    }
    VerletIntegrator lastIntegrator(0.001);
    auto last = cudaContextWith(*system, lastIntegrator, "");
    last->setPositions(water.positions);
    EnergyAndForces again = energyAndForces(*last);
    EXPECT_EQ(again.energy, byDefault.energy);
    EXPECT_EQ(differingComponents(again, byDefault), 0);
}

/**
 * The sort along the curve of cubes (the default for periodic boxes) puts atoms into other slots than the curve over
 * each edge's fractions (sort-curve=edges), and the exact sums must not care: the same bits on a flat 8 x 6 x 2.5 nm
 * water box (3 x 2 x 1 cubes) and a solvated molecule in a cube (one cube: the same keys, so the same number of tiles).  In
 * the flat box the blocks are nearly cubes rather than flat, so the list must hold fewer tiles.
 */
TEST(CudaNarumiNonbondedForce, SortCurveOfCubesGivesTheSameBitsWithFewerTilesInAFlatBox) {
    SKIP_WITHOUT_CUDA();
    const Box flat = {Vec3(8.0, 0, 0), Vec3(0, 6.0, 0), Vec3(0, 0, 2.5)};
    TestSystem water = waterBox(flat, 97);
    TestSystem molecule = solvatedMolecule(cubicBox(4.0), Vec3(2.0, 2.0, 2.0), 10);
    for (const TestSystem* ts : {&water, &molecule}) {
        auto system = periodicSystemWith(*ts, Narumi::Narumi);
        ProfiledAndSwitchedContexts alongCubes(*system, "sort-curve=edges"), alongEdges(*system, "sort-curve=edges", "sort-curve=edges");
        alongCubes.profiled->setPositions(ts->positions);
        alongCubes.switched->setPositions(ts->positions);
        alongEdges.profiled->setPositions(ts->positions);
        EnergyAndForces cubes = energyAndForces(*alongCubes.profiled), edges = energyAndForces(*alongCubes.switched);
        energyAndForces(*alongEdges.profiled);
        EXPECT_EQ(edges.energy, cubes.energy) << ts->size() << " atoms";
        EXPECT_EQ(differingComponents(edges, cubes), 0) << ts->size() << " atoms";
        double tilesAlongCubes = alongCubes.profiledCounter("tiles"), tilesAlongEdges = alongEdges.profiledCounter("tiles");
        EXPECT_GT(tilesAlongCubes, 0.0);
        if (ts == &water)
            EXPECT_LT(tilesAlongCubes, tilesAlongEdges);
        else
            EXPECT_EQ(tilesAlongCubes, tilesAlongEdges);
    }
}

/**
 * Narumi's sums held in doubles (sums-in-double=on, the default where doubles add at half the float rate) round
 * every term onto the grid of the float + int32 pair and add exactly, so both must give the same bits: energy and
 * forces, on a solvated molecule (its excluded bonded pairs take the large-term path; Lennard-Jones switched) and on a
 * 20,000-atom water box.  The default Context must match the float + int32 pair too, and the stage report of one made
 * with sums-in-double=on must say that its sums were held in doubles.
 */
TEST(CudaNarumiNonbondedForce, SumsInDoubleGiveTheSameBits) {
    SKIP_WITHOUT_CUDA();
    TestSystem molecule = solvatedMolecule(cubicBox(4.0), Vec3(2.0, 2.0, 2.0), 10);
    TestSystem water = waterBoxOfAtoms(20000, 89);
    vector<pair<const TestSystem*, shared_ptr<System>>> cases = {
        {&molecule, shared_ptr<System>(makeSystem(molecule, {makeNarumiForce(molecule, periodicSettings(1.0, 0.9))}))},
        {&water, shared_ptr<System>(periodicSystemWith(water, Narumi::Narumi))}};
    for (auto& [test, system] : cases)
        for (string first : {"", "sums-in-double=on"}) {
            ProfiledAndSwitchedContexts contexts(*system, "sums-in-double=off", first);
            contexts.profiled->setPositions(test->positions);
            contexts.switched->setPositions(test->positions);
            string context = to_string(test->size()) + " atoms, '" + first + "' against sums-in-double=off";
            EnergyAndForces held = energyAndForces(*contexts.profiled), paired = energyAndForces(*contexts.switched);
            EXPECT_EQ(held.energy, paired.energy) << context;
            EXPECT_EQ(differingComponents(held, paired), 0) << context;
            double reported = contexts.profiledCounter("Narumi sums in doubles");
            if (!first.empty())
                EXPECT_EQ(reported, 1.0) << context;
            else
                EXPECT_TRUE(reported == 0.0 || reported == 1.0) << context;
        }
}

/**
 * The settings chosen for a GPU whose doubles add at 1/64 of the float rate (GeForce, RTX, L40S: the diagnostic
 * device-class=float-rate takes this GPU as one) only change speed: energy and forces must be the bits of the data-centre
 * settings (double-rate), on a solvated molecule with switched Lennard-Jones and on a 20,000-atom water box, and the
 * default Context must give them too.  The stage report must say which settings each Context took.
 */
TEST(CudaNarumiNonbondedForce, FloatRateDeviceSettingsGiveTheSameBits) {
    SKIP_WITHOUT_CUDA();
    TestSystem molecule = solvatedMolecule(cubicBox(4.0), Vec3(2.0, 2.0, 2.0), 10);
    TestSystem water = waterBoxOfAtoms(20000, 97);
    vector<pair<const TestSystem*, shared_ptr<System>>> cases = {
        {&molecule, shared_ptr<System>(makeSystem(molecule, {makeNarumiForce(molecule, periodicSettings(1.0, 0.9))}))},
        {&water, shared_ptr<System>(periodicSystemWith(water, Narumi::Narumi))}};
    for (auto& [test, system] : cases)
        for (string first : {"", "device-class=float-rate"}) {
            ProfiledAndSwitchedContexts contexts(*system, "device-class=double-rate", first);
            contexts.profiled->setPositions(test->positions);
            contexts.switched->setPositions(test->positions);
            string context = to_string(test->size()) + " atoms, '" + first + "' against device-class=double-rate";
            EnergyAndForces chosen = energyAndForces(*contexts.profiled), dataCentre = energyAndForces(*contexts.switched);
            EXPECT_EQ(chosen.energy, dataCentre.energy) << context;
            EXPECT_EQ(differingComponents(chosen, dataCentre), 0) << context;
            double floatRate = contexts.profiledCounter("float-rate settings");
            if (!first.empty()) {
                EXPECT_EQ(floatRate, 1.0) << context;
                EXPECT_EQ(contexts.profiledCounter("Narumi sums in doubles"), 0.0) << context;
            }
            else
                EXPECT_EQ(floatRate == 0.0, contexts.profiledCounter("Narumi sums in doubles") == 1.0) << context;
        }
}

/**
 * A bad NARUMI_DIAGNOSTICS (an unknown setting, a bad value of each kind; src/NarumiDiagnostics.cpp's own test has
 * every case) is an OpenMMException naming it when the Context is made, before any work on the GPU.
 */
TEST(CudaNarumiNonbondedForce, BadDiagnosticsAreAClearError) {
    SKIP_WITHOUT_CUDA();
    TestSystem water = waterBox(cubicBox(3.0), 61);
    auto system = makeSystem(water, {makeNarumiForce(water, periodicSettings(1.0))});
    vector<pair<string, string>> bad = {{"NARUMI_PROFILE_STAGES=1", "no setting 'NARUMI_PROFILE_STAGES'"},
                                        {"list-skin=2", "list-skin takes 0..1 (nm), not '2'"},
                                        {"tile-chunks=0", "tile-chunks takes on|off, not '0'"},
                                        {"search-warps=6", "search-warps takes 4|8, not '6'"},
                                        {"device-class=consumer", "device-class takes double-rate|float-rate, not 'consumer'"},
                                        {"accumulation=SingleFloat", "accumulation takes TakahashiIitaka|Nitadori|ModifiedNitadori, not 'SingleFloat'"},
                                        {"profile-stages,profile-stages", "profile-stages is given twice"}};
    for (auto& [settings, named] : bad) {
        VerletIntegrator integrator(0.001);
        try {
            cudaContextWith(*system, integrator, settings);
            ADD_FAILURE() << "NARUMI_DIAGNOSTICS=" << settings << " was accepted";
        }
        catch (const OpenMMException& error) {
            EXPECT_NE(string(error.what()).find("NARUMI_DIAGNOSTICS: " + named), string::npos) << error.what();
        }
    }
}

/**
 * A Context made with diagnostics says so, in one line on stderr when it is created, naming the settings; one made
 * without says nothing of them.
 */
TEST(CudaNarumiNonbondedForce, DiagnosticsAreAnnouncedOnce) {
    SKIP_WITHOUT_CUDA();
    TestSystem water = waterBox(cubicBox(3.0), 62);
    auto system = makeSystem(water, {makeNarumiForce(water, periodicSettings(1.0))});
    // (NARUMI_DIAGNOSTICS, the settings as the line gives them)
    for (auto [settings, described] : {pair<string, string>{"", ""}, {"exclusion-stream=off, list-skin=0.1", "list-skin=0.1,exclusion-stream=off"},
                                       {"accumulation=ModifiedNitadori", "accumulation=ModifiedNitadori"}}) {
        VerletIntegrator integrator(0.001);
        ::testing::internal::CaptureStderr();
        unique_ptr<Context> context = cudaContextWith(*system, integrator, settings);
        string printed = ::testing::internal::GetCapturedStderr();
        const string line = "NarumiNonbondedForce (CUDA): NARUMI_DIAGNOSTICS is set, this Context is a measurement, not a "
                            "production run: ";
        size_t lines = 0;
        for (size_t at = printed.find(line); at != string::npos; at = printed.find(line, at + 1))
            lines++;
        EXPECT_EQ(lines, settings.empty() ? 0u : 1u) << "'" << settings << "': " << printed;
        if (!settings.empty()) {
            EXPECT_NE(printed.find(line + described + "\n"), string::npos) << printed;
        }
    }
}

TEST(CudaNarumiNonbondedForce, NetForceIsExactlyZero) {
    SKIP_WITHOUT_CUDA();
    // Every pair adds term(F) to one atom and term(-F) = -term(F) to the other, exclusions and exceptions included,
    // all on OpenMM's 2^-32 grid: the forces' fixed-point values must sum to exactly zero.
    TestSystem molecule = solvatedMolecule(cubicBox(4.0), Vec3(2.0, 2.0, 2.0), 10);
    auto system = makeSystem(molecule, {makeNarumiForce(molecule, periodicSettings(1.0, 0.9))});
    EnergyAndForces cuda = evaluateOnCuda(*system, molecule.positions);
    for (int c = 0; c < 3; c++) {
        int64_t net = 0;
        double largest = 0;
        for (const Vec3& f : cuda.forces) {
            net += toFixedPoint(f[c]);
            largest = max(largest, fabs(f[c]));
        }
        EXPECT_EQ(net, 0) << "component " << c;
        EXPECT_GT(largest, 100.0) << "the forces are not trivial";
    }
}

TEST(CudaNarumiNonbondedForce, ExcludedPairAtBondedDistanceCancelsExactly) {
    SKIP_WITHOUT_CUDA();
    // Two carbon-like atoms 0.12 nm apart: their LJ force (~1e7 kJ/mol/nm) is computed by the all-pairs kernel and
    // must be removed without a trace.  The third atom is out of range, so every force must be exactly zero.
    TestSystem ts;
    ts.box = cubicBox(3.0);
    ts.addAtom(Vec3(1.0, 1.0, 1.0), 0.5, 0.34, 1.0);
    ts.addAtom(Vec3(1.12, 1.0, 1.0), -0.5, 0.34, 1.0);
    ts.addAtom(Vec3(2.5, 2.5, 2.5), 0.0, 0.34, 1.0);
    // TileSums too: the LJ force takes its fixed-point path, and a tile sum of the one Coulomb term is that term.
    for (auto accumulation : {Narumi::Narumi, Narumi::FixedPoint64, Narumi::TileSums}) {
        Narumi* force = makeNarumiForce(ts, periodicSettings(1.0));
        force->addException(0, 1, 0.0, 1.0, 0.0);
        force->setAccumulationMethod(accumulation);
        auto system = makeSystem(ts, {force});
        EnergyAndForces cuda = evaluateOnCuda(*system, ts.positions);
        for (int i = 0; i < 3; i++)
            for (int c = 0; c < 3; c++)
                EXPECT_EQ(cuda.forces[i][c], 0.0) << "atom " << i << " component " << c << ", accumulation " << accumulation;
        EXPECT_EQ(cuda.energy, 0.0);
    }
}

/**
 * Close pairs, 0.13-0.32 nm apart in random directions on a grid of 0.55 nm, whose pair forces range from ~1e2 to
 * ~1e7 kJ/mol/nm: the pair kernel sends a pair force the long way (64-bit sums, straight to the partner's global
 * sum) when it cannot certify every component below 2^15 from |dE/dr / r| and the cutoff, the short way (Narumi
 * pairs) otherwise, so both ways meet here, in cross tiles too wherever a pair's atoms fall into different blocks.
 * Positions and charges are exact in float, so each atom's force must match Reference to float's grade, and the
 * forces must sum to exactly zero, in both Coulomb forms with a cutoff and with Lennard-Jones alone (NoCoulomb).
 */
TEST(CudaNarumiNonbondedForce, StrongPairForcesMatchReferenceOnEitherPath) {
    SKIP_WITHOUT_CUDA();
    TestSystem pairs;
    pairs.box = cubicBox(4.0);
    mt19937 random(21);
    uniform_real_distribution<double> uniform(0.0, 1.0);
    auto floatExact = [](double x) { return std::ldexp(std::nearbyint(std::ldexp(x, 16)), -16); };
    const int perAxis = 7;
    for (int k = 0; k < perAxis * perAxis * perAxis; k++) {
        Vec3 centre = Vec3(k % perAxis, k / perAxis % perAxis, k / (perAxis * perAxis)) * 0.55 + Vec3(0.3, 0.3, 0.3);
        double separation = 0.13 * pow(0.32 / 0.13, uniform(random));
        double z = 2 * uniform(random) - 1, phi = 2 * M_PI * uniform(random);
        Vec3 half = Vec3(sqrt(1 - z * z) * cos(phi), sqrt(1 - z * z) * sin(phi), z) * (separation / 2);
        for (int side : {-1, 1}) {
            Vec3 position = centre + half * side;
            pairs.addAtom(Vec3(floatExact(position[0]), floatExact(position[1]), floatExact(position[2])), 0.625 * side, 0.32, 0.8);
        }
    }
    for (auto electrostatics : {Narumi::ReactionField, Narumi::Shifted, Narumi::NoCoulomb}) {
        auto system = makeSystem(pairs, {makeNarumiForce(pairs, periodicSettings(1.0), electrostatics)});
        EnergyAndForces reference = evaluate(*system, pairs.positions, "Reference");
        EnergyAndForces cuda = evaluateOnCuda(*system, pairs.positions);
        int moderate = 0, strong = 0;
        for (int i = 0; i < pairs.size(); i++) {
            double largest = max(fabs(reference.forces[i][0]), max(fabs(reference.forces[i][1]), fabs(reference.forces[i][2])));
            moderate += (largest > 1e4 && largest < 3e4);
            strong += (largest > 1e5);
            Vec3 difference = cuda.forces[i] - reference.forces[i];
            EXPECT_LE(sqrt(difference.dot(difference)), 2e-5 * sqrt(reference.forces[i].dot(reference.forces[i])) + 1e-3)
                << "atom " << i << ", electrostatics " << electrostatics;
        }
        EXPECT_GT(moderate, 10) << "too few forces between the two ways' thresholds";
        EXPECT_GT(strong, 10) << "too few forces that only the long way takes";
        for (int c = 0; c < 3; c++) {
            int64_t net = 0;
            for (const Vec3& f : cuda.forces)
                net += toFixedPoint(f[c]);
            EXPECT_EQ(net, 0) << "component " << c << ", electrostatics " << electrostatics;
        }
        EXPECT_NEAR(cuda.energy, reference.energy, 1e-5 * fabs(reference.energy));
    }
}

TEST(CudaNarumiNonbondedForce, OverlappingAtomsRaiseAnError) {
    SKIP_WITHOUT_CUDA();
    TestSystem water = waterBoxOfAtoms(3000, 13);
    water.positions[3] = water.positions[0] + Vec3(0.001, 0, 0);  // two oxygens of different molecules overlap
    auto system = makeSystem(water, {makeNarumiForce(water, periodicSettings(1.0))});
    VerletIntegrator integrator(0.001);
    Context context(*system, integrator, Platform::getPlatformByName("CUDA"));
    context.setPositions(water.positions);
    // An energy evaluation reports the overflow as an infinite energy (what a minimizer's line search needs) ...
    EXPECT_EQ(context.getState(State::Energy | State::Forces).getPotentialEnergy(), numeric_limits<double>::infinity());
    // ... and a step, which evaluates forces only, raises an exception (at the latest one step later).
    VerletIntegrator& stepper = integrator;
    EXPECT_OPENMM_EXCEPTION_CONTAINING({ stepper.step(1); stepper.step(1); context.getState(State::Forces); stepper.step(1); }, "NarumiNonbondedForce (CUDA)");
    // After moving the atom away the context works again.
    water.positions[3] = water.positions[0] + Vec3(0.3, 0, 0);
    context.setPositions(water.positions);
    EXPECT_NO_THROW(context.getState(State::Energy | State::Forces));
}



/**
 * Water with the nonbonded force narumi, flexible O-H bonds, H-O-H angles (without them a molecule's excluded H-H
 * pair may collapse onto itself) and heavy hydrogens (4 u), which allow 0.5 fs steps without constraints.
 */
unique_ptr<System> makeFlexibleWaterSystem(const TestSystem& water, Narumi* narumi) {
    auto system = makeSystem(water, {narumi});
    auto bonds = new HarmonicBondForce();
    for (const auto& bond : water.bonds)
        bonds->addBond(bond.first, bond.second, 0.09572, 4.6e5);
    system->addForce(bonds);
    auto angles = new HarmonicAngleForce();
    for (int o = 0; o < water.size(); o += 3)
        angles->addAngle(o + 1, o, o + 2, 104.52 * M_PI / 180, 383.0);
    system->addForce(angles);
    for (int i = 0; i < water.size(); i++)
        system->setParticleMass(i, i % 3 == 0 ? 16.0 : 4.0);
    return system;
}

/**
 * By default the exclusion pass runs on a stream of its own, beside the search and the pairs, and OpenMM's stream waits
 * for it before the energy is read and the integrator takes the forces; a missing wait would let those run ahead of it.
 * Flexible water with bonds and angles, 300 velocity Verlet steps with energies read and charges changed on the way:
 * every position and energy must be bit for bit those of a Context that keeps the pass on OpenMM's stream
 * (exclusion-stream=off).
 */
TEST(CudaNarumiNonbondedForce, ExclusionPassOnItsOwnStreamGivesTheBitsOfOneStream) {
    SKIP_WITHOUT_CUDA();
    TestSystem water = waterBoxOfAtoms(6000, 17);
    Narumi* narumi = makeNarumiForce(water, periodicSettings(1.0, 0.9));
    auto system = makeFlexibleWaterSystem(water, narumi);
    VerletIntegrator sideIntegrator(0.0005), serialIntegrator(0.0005);
    Context side(*system, sideIntegrator, Platform::getPlatformByName("CUDA"));
    unique_ptr<Context> serialContext = cudaContextWith(*system, serialIntegrator, "exclusion-stream=off");
    Context& serial = *serialContext;
    for (Context* context : {&side, &serial}) {
        context->setPositions(water.positions);
        context->setVelocitiesToTemperature(300.0, 3);
    }
    int differences = 0;
    for (int block = 0; block < 6; block++) {
        if (block == 3) {
            for (int i = 0; i < water.size(); i++) {
                double charge, sigma, epsilon;
                narumi->getParticleParameters(i, charge, sigma, epsilon);
                narumi->setParticleParameters(i, 0.9 * charge, sigma, epsilon);
            }
            narumi->updateParametersInContext(side);
            narumi->updateParametersInContext(serial);
        }
        sideIntegrator.step(50);
        serialIntegrator.step(50);
        State fromSide = side.getState(State::Positions | State::Energy), fromSerial = serial.getState(State::Positions | State::Energy);
        EXPECT_EQ(fromSide.getPotentialEnergy(), fromSerial.getPotentialEnergy()) << "after " << 50 * (block + 1) << " steps";
        for (int i = 0; i < water.size(); i++)
            for (int c = 0; c < 3; c++)
                differences += (fromSide.getPositions()[i][c] != fromSerial.getPositions()[i][c]);
    }
    EXPECT_EQ(differences, 0);
}

TEST(CudaNarumiNonbondedForce, NveSimulationConservesEnergy) {
    SKIP_WITHOUT_CUDA();
    // Flexible water (no constraints, so the test sees only this force and the integrator), 0.5 fs velocity Verlet:
    // the total energy must stay within a small fraction of kT per molecule.
    TestSystem water = waterBoxOfAtoms(6000, 16);
    auto system = makeFlexibleWaterSystem(water, makeNarumiForce(water, periodicSettings(1.0, 0.9)));
    VerletIntegrator integrator(0.0005);
    Context context(*system, integrator, Platform::getPlatformByName("CUDA"));
    context.setPositions(water.positions);
    context.setVelocitiesToTemperature(300.0, 1);
    LocalEnergyMinimizer::minimize(context, 10.0, 200);
    context.setVelocitiesToTemperature(300.0, 2);
    integrator.step(200);
    auto total = [&] {
        State state = context.getState(State::Energy);
        return state.getPotentialEnergy() + state.getKineticEnergy();
    };
    double start = total();
    double largestDeviation = 0;
    for (int block = 0; block < 10; block++) {
        integrator.step(200);
        largestDeviation = max(largestDeviation, fabs(total() - start));
    }
    double kT = 0.0083144626 * 300.0;
    EXPECT_LT(largestDeviation, 0.1 * kT * water.size() / 100.0) << "start " << start;
}

/**
 * Constant pressure, as most production runs are: OpenMM's MonteCarloBarostat scales the box and the molecules'
 * centres every step here (at 2000 bar, so that the volume keeps moving) and evaluates the energy of each trial box.
 * Every new box must rebuild what depends on it (the list, its images): at several points of the run, and at its end,
 * this Context's energy and forces must match the Reference platform's on the same positions and box at the double
 * grade (double precision: float positions alone would differ by 1e-5 at these compressed contacts, where one pair
 * missed near the cutoff moves the forces by about 5e-5), and the volume must have changed.
 */
TEST(CudaNarumiNonbondedForce, BarostatBoxChangesMatchReference) {
    SKIP_WITHOUT_CUDA();
    TestSystem water = withFloatExactCharges(waterBoxOfAtoms(6000, 19));
    Narumi* narumi = makeNarumiForce(water, periodicSettings(1.0));
    narumi->setForceGroup(1);
    const int narumiGroup = 1 << 1;
    auto system = makeFlexibleWaterSystem(water, narumi);
    system->addForce(new MonteCarloBarostat(2000.0, 300.0, 1));
    VerletIntegrator integrator(0.0005);
    Context cuda(*system, integrator, Platform::getPlatformByName("CUDA"), {{"Precision", "double"}});
    cuda.setPositions(water.positions);
    LocalEnergyMinimizer::minimize(cuda, 10.0, 200);
    cuda.setVelocitiesToTemperature(300.0, 3);
    const double startVolume = water.box[0][0] * water.box[1][1] * water.box[2][2];
    VerletIntegrator referenceIntegrator(0.0005);
    Context reference(*system, referenceIntegrator, Platform::getPlatformByName("Reference"));
    for (int block = 0; block < 4; block++) {
        integrator.step(50);
        State state = cuda.getState(State::Positions | State::Energy | State::Forces, false, narumiGroup);
        Vec3 a, b, c;
        state.getPeriodicBoxVectors(a, b, c);
        reference.setPeriodicBoxVectors(a, b, c);
        reference.setPositions(state.getPositions());
        EnergyAndForces onCuda{state.getPotentialEnergy(), state.getForces()};
        EXPECT_TRUE(agree(onCuda, energyAndForces(reference, narumiGroup), 1e-6)) << "after " << 50 * (block + 1) << " steps";
        if (block == 3)
            EXPECT_GT(fabs(a[0] * b[1] * c[2] / startVolume - 1.0), 1e-3) << "the barostat did not change the volume";
    }
}

/**
 * Excluded pairs far closer than any interacting pair, as Martini's virtual sites, collapsed constraint pairs and
 * Drude-like pairs make them: beads of sigma 0.47 nm and epsilon 5 kJ/mol whose excluded partner sits 0.05, 0.01 or
 * 0.002 nm away or at the very same point, and a 1-4-like exception at 0.05 nm.  Their all-pairs terms (1e10 to 1e46
 * kJ/mol/nm, or infinite, or NaN) have no fixed-point value, so both passes must leave them out: every precision then
 * gives the Reference platform's energy and forces (the exception's own term and, with GROMACS's reaction field, the
 * excluded charges' term still added), the net force is exactly zero and no error is raised.
 */
TEST(CudaNarumiNonbondedForce, HugeExcludedPairsAreLeftOutOfBothPasses) {
    SKIP_WITHOUT_CUDA();
    TestSystem beads;
    beads.box = cubicBox(4.0);
    mt19937 random(5);
    uniform_real_distribution<double> uniform(0.0, 1.0);
    auto floatExact = [](double x) { return std::ldexp(std::nearbyint(std::ldexp(x, 16)), -16); };
    const double separations[] = {0.05, 0.01, 0.002, 0.0};
    vector<pair<int, int> > excluded;
    const int perAxis = 6;
    for (int k = 0; k < perAxis * perAxis * perAxis; k++) {
        Vec3 centre = Vec3(k % perAxis, k / perAxis % perAxis, k / (perAxis * perAxis)) * 0.62 + Vec3(0.3, 0.3, 0.3);
        double z = 2 * uniform(random) - 1, phi = 2 * M_PI * uniform(random);
        Vec3 half = Vec3(sqrt(1 - z * z) * cos(phi), sqrt(1 - z * z) * sin(phi), z) * (separations[k % 4] / 2);
        int first = beads.size();
        for (int side : {-1, 1}) {
            Vec3 position = centre + half * side;
            beads.addAtom(Vec3(floatExact(position[0]), floatExact(position[1]), floatExact(position[2])), 0.5 * side, 0.47, 5.0);
        }
        excluded.emplace_back(first, first + 1);
    }
    for (bool gromacs : {false, true})
        for (auto accumulation : {Narumi::Narumi, Narumi::FixedPoint64})
            for (string precision : {"single", "mixed", "double"}) {
                string context = string(gromacs ? "GROMACS" : "OpenMM") + " reaction field, accumulation " + to_string(accumulation) +
                                 ", " + precision;
                NonbondedSettings settings = periodicSettings(1.1);
                settings.reactionFieldDielectric = gromacs ? numeric_limits<double>::infinity() : 78.3;
                Narumi* force = makeNarumiForce(beads, settings);
                for (size_t k = 0; k < excluded.size(); k++)
                    // The first pair an exception with its own modest terms, the others exclusions.
                    force->addException(excluded[k].first, excluded[k].second, k == 0 ? 0.1 : 0.0, 1.0, 0.0);
                force->setAccumulationMethod(accumulation);
                if (gromacs) {
                    force->setReactionFieldConvention(Narumi::GromacsReactionField);
                    force->setCoulombDielectric(15);
                }
                auto system = makeSystem(beads, {force});
                EnergyAndForces reference = evaluate(*system, beads.positions, "Reference");
                EnergyAndForces cuda;
                ASSERT_NO_THROW(cuda = evaluateOnCuda(*system, beads.positions, precision)) << context;
                EXPECT_TRUE(agree(cuda, reference, 1e-5)) << context;
                for (int c = 0; c < 3; c++) {
                    int64_t net = 0;
                    for (const Vec3& f : cuda.forces)
                        net += toFixedPoint(f[c]);
                    EXPECT_EQ(net, 0) << context << ", component " << c;
                }
            }
}

} // namespace
