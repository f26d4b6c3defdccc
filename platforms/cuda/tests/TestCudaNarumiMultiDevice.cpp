/**
 * NarumiNonbondedForce on a CUDA Context of several devices (CudaParallelCalcNarumiNonbondedForceKernel): the devices
 * of NARUMI_TEST_DEVICES ("0,1" on a machine with two GPUs), by default "0,0".  OpenMM accepts a device listed twice:
 * DeviceIndex "0,0" makes a two-device Context on one GPU, with two CUDA contexts, two work threads and the force
 * buffers summed as on two GPUs, so all of this also runs on a one-GPU machine.  First the
 * whole shared suite (tests/cpp/NarumiNonbondedForceTests.h: exclusions, triclinic boxes, parameter updates, force
 * groups against OpenMM's NonbondedForce) on such a Context in every precision; then what only exact accumulation
 * gives: forces and energy bit for bit those of one device, and a trajectory identical to the one-device trajectory.
 * Every test skips (never passes) where OpenMM's CUDA platform or a GPU is missing.
 */

#include "NarumiDiagnosticsSetting.h"
#include "NarumiNonbondedForceTests.h"
#include "NarumiTestDevices.h"
#include "openmm/HarmonicBondForce.h"
#include <cstring>
#include <iostream>
#include <random>
#include <tuple>

INSTANTIATE_TEST_SUITE_P(CUDA, NarumiNonbondedForceTest,
                         ::testing::Values(PlatformUnderTest{"CUDA", "single", 3e-4, multiDeviceIndex()},
                                           PlatformUnderTest{"CUDA", "mixed", 3e-4, multiDeviceIndex()},
                                           PlatformUnderTest{"CUDA", "double", 1e-6, multiDeviceIndex()}),
                         platformLabel);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(NarumiNonbondedForceGradientTest);

namespace {

unique_ptr<Context> cudaContext(const System& system, Integrator& integrator, const string& precision, const string& devices) {
    return make_unique<Context>(system, integrator, Platform::getPlatformByName("CUDA"),
                                map<string, string>{{"Precision", precision}, {"DeviceIndex", devices}});
}

/** A solvated molecule with 1-2, 1-3 and 1-4 exceptions in a truncated octahedron: every kind of pair and box. */
TestSystem solvatedMoleculeInOctahedron() {
    const double d = 5.0;  // widths above twice the cutoff plus a block: the search keeps its atom filter
    Box octahedron = {Vec3(d, 0, 0), Vec3(d / 3, 2 * sqrt(2.0) * d / 3, 0), Vec3(-d / 3, sqrt(2.0) * d / 3, sqrt(6.0) * d / 3)};
    return solvatedMolecule(octahedron, Vec3(1.4, 1.4, 1.4), 71);
}

/**
 * On two devices each device computes its share of the blocks and exceptions; the shares move with the measured GPU times
 * after every evaluation.  Narumi and FixedPoint64 sums are exact whatever the partition: every evaluation must give
 * one device's bits, forces and energy, in every precision, on a cubic water box and a solvated molecule in a
 * truncated octahedron (exceptions), with the atoms moved between evaluations (re-sorts, list rebuilds).
 */
TEST(CudaNarumiMultiDevice, TwoDevicesGiveTheBitsOfOne) {
    SKIP_WITHOUT_CUDA();
    for (const TestSystem& ts : {waterBox(cubicBox(4.0), 81), solvatedMoleculeInOctahedron()})
        for (auto accumulation : {Narumi::Narumi, Narumi::FixedPoint64})
            for (string precision : {"single", "mixed", "double"}) {
                Narumi* force = makeNarumiForce(ts, periodic(1.0, 0.9, true));
                force->setAccumulationMethod(accumulation);
                auto system = makeSystem(ts, {force});
                VerletIntegrator oneIntegrator(0.001), twoIntegrator(0.001);
                auto one = cudaContext(*system, oneIntegrator, precision, "0");
                auto two = cudaContext(*system, twoIntegrator, precision, multiDeviceIndex());
                ASSERT_EQ(two->getPlatform().getPropertyValue(*two, "DeviceIndex"), multiDeviceIndex());
                mt19937 random(82);
                normal_distribution<double> step(0.0, 0.01);
                vector<Vec3> positions = ts.positions;
                string label = to_string(ts.size()) + " atoms, accumulation " + to_string(accumulation) + ", " + precision;
                for (int evaluation = 0; evaluation < 25; evaluation++) {
                    for (Vec3& p : positions)
                        p += Vec3(step(random), step(random), step(random));
                    one->setPositions(positions);
                    two->setPositions(positions);
                    EnergyAndForces onOne = energyAndForces(*one), onTwo = energyAndForces(*two);
                    ASSERT_EQ(differingComponents(onOne, onTwo), 0) << label << ", evaluation " << evaluation;
                    ASSERT_EQ(onOne.energy, onTwo.energy) << label << ", evaluation " << evaluation;
                }
            }
}

/**
 * TileSums on two devices: its float tile sums depend on the list that made the tiles, so two devices need not give
 * one device's bits, but two Contexts of two devices give each other's at every evaluation (the shares stay fixed),
 * and match one device to single precision's grade.
 */
TEST(CudaNarumiMultiDevice, TileSumsOnTwoDevicesRepeatTheirBits) {
    SKIP_WITHOUT_CUDA();
    TestSystem ts = solvatedMoleculeInOctahedron();
    for (string precision : {"single", "mixed"}) {
        Narumi* force = makeNarumiForce(ts, periodic(1.0, 0.9, true));
        force->setAccumulationMethod(Narumi::TileSums);
        auto system = makeSystem(ts, {force});
        VerletIntegrator oneIntegrator(0.001), firstIntegrator(0.001), secondIntegrator(0.001);
        auto one = cudaContext(*system, oneIntegrator, precision, "0");
        auto first = cudaContext(*system, firstIntegrator, precision, multiDeviceIndex());
        auto second = cudaContext(*system, secondIntegrator, precision, multiDeviceIndex());
        mt19937 random(84);
        normal_distribution<double> step(0.0, 0.003);  // 0.01 nm steps make atoms overlap by evaluation 19 (infinite energy)
        vector<Vec3> positions = ts.positions;
        for (int evaluation = 0; evaluation < 25; evaluation++) {
            for (Vec3& p : positions)
                p += Vec3(step(random), step(random), step(random));
            for (Context* context : {one.get(), first.get(), second.get()})
                context->setPositions(positions);
            EnergyAndForces onOne = energyAndForces(*one), onFirst = energyAndForces(*first), onSecond = energyAndForces(*second);
            string label = precision + ", evaluation " + to_string(evaluation);
            ASSERT_EQ(differingComponents(onFirst, onSecond), 0) << label;
            ASSERT_EQ(onFirst.energy, onSecond.energy) << label;
            ASSERT_TRUE(agree(onFirst, onOne, 1e-5)) << label;
        }
    }
}

/**
 * Dynamics: 150 Verlet steps of a water box (forces without energy, so the devices' status is read back
 * asynchronously; sorts every 20 evaluations, list rebuilds, shares rebalanced) end in the same bits of positions
 * and velocities on two devices as on one device, with the force in a group of its own beside bonds; and no warning
 * about the neighbour search on the way.
 */
TEST(CudaNarumiMultiDevice, TrajectoryOnTwoDevicesIsTheOneDeviceTrajectory) {
    SKIP_WITHOUT_CUDA();
    TestSystem water = waterBox(cubicBox(3.5), 83);
    for (string precision : {"single", "mixed"}) {
        Narumi* force = makeNarumiForce(water, periodic(1.0));
        force->setForceGroup(1);
        HarmonicBondForce* bonds = new HarmonicBondForce();
        for (int molecule = 0; molecule < water.size() / 3; molecule++) {
            bonds->addBond(3 * molecule, 3 * molecule + 1, 0.09572, 2e5);
            bonds->addBond(3 * molecule, 3 * molecule + 2, 0.09572, 2e5);
        }
        auto system = makeSystem(water, {force, bonds});
        VerletIntegrator oneIntegrator(0.0005), twoIntegrator(0.0005);
        auto one = cudaContext(*system, oneIntegrator, precision, "0");
        auto two = cudaContext(*system, twoIntegrator, precision, multiDeviceIndex());
        for (Context* context : {one.get(), two.get()}) {
            context->setPositions(water.positions);
            context->setVelocitiesToTemperature(300.0, 84);
        }
        ::testing::internal::CaptureStderr();
        oneIntegrator.step(150);
        twoIntegrator.step(150);
        // The devices' lists follow their moving shares: a new range is no growth (NarumiSearchMonitor).
        string warnings = ::testing::internal::GetCapturedStderr();
        EXPECT_EQ(warnings.find("warning"), string::npos) << warnings;
        State a = one->getState(State::Positions | State::Velocities), b = two->getState(State::Positions | State::Velocities);
        int differences = 0;
        for (int i = 0; i < water.size(); i++)
            for (int c = 0; c < 3; c++)
                differences += (a.getPositions()[i][c] != b.getPositions()[i][c]) + (a.getVelocities()[i][c] != b.getVelocities()[i][c]);
        EXPECT_EQ(differences, 0) << precision;
        EnergyAndForces groupOne = energyAndForces(*one, 1 << 1), groupTwo = energyAndForces(*two, 1 << 1);
        EXPECT_EQ(differingComponents(groupOne, groupTwo), 0) << precision;
        EXPECT_EQ(groupOne.energy, groupTwo.energy) << precision;
    }
}

/** updateParametersInContext reaches every device: after it, two devices still give one device's bits. */
TEST(CudaNarumiMultiDevice, ParameterUpdatesReachEveryDevice) {
    SKIP_WITHOUT_CUDA();
    TestSystem ts = solvatedMoleculeInOctahedron();
    Narumi* force = makeNarumiForce(ts, periodic(1.0));
    auto system = makeSystem(ts, {force});
    VerletIntegrator oneIntegrator(0.001), twoIntegrator(0.001);
    auto one = cudaContext(*system, oneIntegrator, "mixed", "0");
    auto two = cudaContext(*system, twoIntegrator, "mixed", multiDeviceIndex());
    one->setPositions(ts.positions);
    two->setPositions(ts.positions);
    double before = energyAndForces(*two).energy;
    for (int i = 0; i < ts.size(); i += 5) {
        double charge, sigma, epsilon;
        force->getParticleParameters(i, charge, sigma, epsilon);
        force->setParticleParameters(i, 0.8 * charge, 1.05 * sigma, 1.2 * epsilon);
    }
    for (int i = 0; i < force->getNumExceptions(); i++) {
        int p1, p2;
        double chargeProd, sigma, epsilon;
        force->getExceptionParameters(i, p1, p2, chargeProd, sigma, epsilon);
        force->setExceptionParameters(i, p1, p2, 1.5 * chargeProd, sigma, 0.5 * epsilon);
    }
    force->updateParametersInContext(*one);
    force->updateParametersInContext(*two);
    EnergyAndForces onOne = energyAndForces(*one), onTwo = energyAndForces(*two);
    EXPECT_GT(fabs(onTwo.energy - before), 1.0) << "the update changed nothing";
    EXPECT_EQ(differingComponents(onOne, onTwo), 0);
    EXPECT_EQ(onOne.energy, onTwo.energy);
}

/** The tiles per evaluation of each device kernel's search report (profile-stages), printed as its Context goes. */
vector<double> listedTilesPerDevice(const System& system, const string& devices, int evaluations, const vector<Vec3>& positions) {
    VerletIntegrator integrator(0.001);
    unique_ptr<Context> context;
    {
        DiagnosticsSetting diagnostics("profile-stages");
        context = cudaContext(system, integrator, "mixed", devices);
    }
    context->setPositions(positions);
    for (int k = 0; k < evaluations; k++)
        energyAndForces(*context);
    ::testing::internal::CaptureStderr();
    context.reset();
    string report = ::testing::internal::GetCapturedStderr();
    vector<double> tiles;
    for (size_t at = report.find("(per evaluation): tiles "); at != string::npos; at = report.find("(per evaluation): tiles ", at + 1))
        tiles.push_back(atof(report.c_str() + at + strlen("(per evaluation): tiles ")));
    return tiles;
}

/**
 * Each device searches about its own share of the blocks: its list holds about half of one device's tiles (its share
 * and a margin), and together they hold at least all of them.
 */
TEST(CudaNarumiMultiDevice, EachDeviceListsAboutItsOwnShare) {
    SKIP_WITHOUT_CUDA();
    TestSystem water = waterBox(cubicBox(5.0), 86);
    auto system = makeSystem(water, {makeNarumiForce(water, periodic(1.0))});
    vector<double> one = listedTilesPerDevice(*system, "0", 6, water.positions);
    vector<double> two = listedTilesPerDevice(*system, multiDeviceIndex(), 6, water.positions);
    ASSERT_EQ(one.size(), 1u);
    ASSERT_EQ(two.size(), 2u);
    EXPECT_GT(one[0], 1000.0);
    for (double tiles : two)
        EXPECT_LT(tiles, 0.7 * one[0]) << "a device listed " << tiles << " of " << one[0] << " tiles";
    EXPECT_GE(two[0] + two[1], one[0]);
}

/**
 * A Context of several devices reads NARUMI_DIAGNOSTICS once: one line on stderr, and every device's kernel takes the
 * settings (each device's stage report, profile-stages, is printed when the Context goes).
 */
TEST(CudaNarumiMultiDevice, DiagnosticsAreAnnouncedOncePerContext) {
    SKIP_WITHOUT_CUDA();
    TestSystem water = waterBox(cubicBox(4.0), 87);
    auto system = makeSystem(water, {makeNarumiForce(water, periodic(1.0))});
    VerletIntegrator integrator(0.001);
    ::testing::internal::CaptureStderr();
    unique_ptr<Context> context;
    {
        DiagnosticsSetting diagnostics("profile-stages,list-skin=0");
        context = cudaContext(*system, integrator, "mixed", multiDeviceIndex());
    }
    string printed = ::testing::internal::GetCapturedStderr();
    const string line = "NARUMI_DIAGNOSTICS is set, this Context is a measurement, not a production run: profile-stages=on,list-skin=0\n";
    size_t at = printed.find(line);
    EXPECT_NE(at, string::npos) << printed;
    EXPECT_EQ(printed.find("NARUMI_DIAGNOSTICS", at + line.size()), string::npos) << "a second line: " << printed;
    context->setPositions(water.positions);
    energyAndForces(*context);
    ::testing::internal::CaptureStderr();
    context.reset();
    string reports = ::testing::internal::GetCapturedStderr();
    size_t skins = 0;
    for (size_t at = reports.find("blocks, skin 0 nm"); at != string::npos; at = reports.find("blocks, skin 0 nm", at + 1))
        skins++;
    EXPECT_EQ(skins, multiDeviceList().size()) << reports;
}

/**
 * The floating-point methods (A to E) sum in an order that depends on the partition (and on each device's list of
 * tiles): not bit-identical.  Their error against the Reference platform on two devices stays that of one device.
 * Method A's error is dominated by the float sums of the excluded pairs' large terms (~1e-4, the accuracy study's
 * point), a random quantity of the summation order, so the errors are compared as RMS over twelve configurations: an
 * error that grows systematically (excluded pairs added on one device and removed on another, as a first version
 * did, 10x) fails.  Method A's energy (float sums of the excluded pairs' ~1e6-1e8 kJ/mol terms) is measured 3.7-3.8x
 * less exact on two devices than on one (H100 and H200 pairs, docs/validation.md), so its bound is 6x.  Method E, the
 * paper's float pair, is selected through the diagnostics (accumulation=ModifiedNitadori), which every device's
 * kernel takes.
 */
TEST(CudaNarumiMultiDevice, FloatingPointMethodsKeepTheirOneDeviceAccuracy) {
    SKIP_WITHOUT_CUDA();
    TestSystem ts = solvatedMoleculeInOctahedron();
    const int configurations = 12;
    // (the force's method, NARUMI_DIAGNOSTICS, the name printed)
    for (auto [accumulation, diagnostics, name] : {tuple<Narumi::AccumulationMethod, string, string>{Narumi::SingleFloat, "", "SingleFloat"},
                                                   {Narumi::DoubleFloat, "", "DoubleFloat"},
                                                   {Narumi::Narumi, "accumulation=ModifiedNitadori", "ModifiedNitadori"}}) {
        Narumi* force = makeNarumiForce(ts, periodic(1.0));
        force->setAccumulationMethod(accumulation);
        auto system = makeSystem(ts, {force});
        VerletIntegrator oneIntegrator(0.001), twoIntegrator(0.001), referenceIntegrator(0.001);
        unique_ptr<Context> one, two;
        {
            DiagnosticsSetting setting(diagnostics);
            one = cudaContext(*system, oneIntegrator, "mixed", "0");
            two = cudaContext(*system, twoIntegrator, "mixed", multiDeviceIndex());
        }
        Context reference(*system, referenceIntegrator, Platform::getPlatformByName("Reference"));
        mt19937 random(85);
        normal_distribution<double> step(0.0, 0.003);
        vector<Vec3> positions = ts.positions;
        double forceOne = 0, forceTwo = 0, energyOne = 0, energyTwo = 0, energyScale = 0;
        for (int c = 0; c < configurations; c++) {
            for (Vec3& p : positions)
                p += Vec3(step(random), step(random), step(random));
            for (Context* context : {one.get(), two.get(), &reference})
                context->setPositions(positions);
            EnergyAndForces expected = energyAndForces(reference), onOne = energyAndForces(*one), onTwo = energyAndForces(*two);
            forceOne += pow(relativeRmsDifference(onOne.forces, expected.forces), 2);
            forceTwo += pow(relativeRmsDifference(onTwo.forces, expected.forces), 2);
            energyOne += pow(onOne.energy - expected.energy, 2);
            energyTwo += pow(onTwo.energy - expected.energy, 2);
            energyScale = max(energyScale, fabs(expected.energy));
        }
        forceOne = sqrt(forceOne / configurations), forceTwo = sqrt(forceTwo / configurations);
        energyOne = sqrt(energyOne / configurations), energyTwo = sqrt(energyTwo / configurations);
        EXPECT_LE(forceTwo, 3 * forceOne + 1e-7) << name;
        const double energyFactor = accumulation == Narumi::SingleFloat ? 6 : 3;
        EXPECT_LE(energyTwo, energyFactor * energyOne + 1e-7 * energyScale) << name;
        cout << "[ accuracy ] " << name << ", RMS over " << configurations << " configurations: relative RMS "
             << "force error " << forceOne << " on one device, " << forceTwo << " on two; energy error " << energyOne << " / "
             << energyTwo << " kJ/mol" << endl;
    }
}

} // namespace
