// NarumiNonbondedForce on the Reference and CPU platforms against independent oracles: OpenMM's NonbondedForce
// on the Reference platform, CustomNonbondedForce/CustomBondForce expressions, a double-precision direct sum
// over true minimum images, and finite differences of the energy.

#include "NarumiTestSupport.h"
#include "NonbondedForceConversion.h"
#include "openmm/CustomBondForce.h"
#include "openmm/CustomNonbondedForce.h"
#include "openmm/OpenMMException.h"
#include <memory>

using namespace NarumiPlugin;
using namespace NarumiTest;
using namespace OpenMM;
using namespace std;

namespace {

class ReferenceAndCpu : public ::testing::TestWithParam<string> {
protected:
    void SetUp() override {
        if (!hasPlatform(GetParam()))
            GTEST_SKIP() << "platform " << GetParam() << " is not available";
    }
    const string& platform() const {
        return GetParam();
    }
};

/** OpenMM's NonbondedForce (oracle, Reference platform) against its conversion on the platform under test. */
void compareWithNonbondedForce(const TestSystem& ts, NonbondedForce* nonbonded, const string& platform, double tolerance = 1e-6) {
    unique_ptr<System> oracleSystem(makeSystem(ts));
    oracleSystem->addForce(nonbonded);
    unique_ptr<System> narumiSystem(makeSystem(ts));
    NarumiNonbondedForce* narumi = createNarumiNonbondedForce(*nonbonded);
    narumiSystem->addForce(narumi);
    EnergyAndForces expected = evaluate(*oracleSystem, ts.positions, "Reference");
    EnergyAndForces actual = evaluate(*narumiSystem, ts.positions, platform);
    expectClose(actual, expected, tolerance);
}

TEST_P(ReferenceAndCpu, WaterBoxMatchesNonbondedForceInEveryCutoffMode) {
    TestSystem water = cubicWaterBox(1000, 3.1);
    for (auto method : {NonbondedForce::CutoffPeriodic, NonbondedForce::CutoffNonPeriodic, NonbondedForce::NoCutoff}) {
        SCOPED_TRACE("method " + to_string(method));
        compareWithNonbondedForce(water, makeNonbondedForce(water, method, 1.0), platform());
    }
}

TEST_P(ReferenceAndCpu, SwitchingAndDispersionCorrectionMatchNonbondedForce) {
    TestSystem water = cubicWaterBox(800, 2.9);
    for (bool dispersion : {false, true})
        for (double switching : {0.7, 0.9}) {
            SCOPED_TRACE("dispersion " + to_string(dispersion) + ", switching at " + to_string(switching));
            NonbondedForce* force = makeNonbondedForce(water, NonbondedForce::CutoffPeriodic, 1.0);
            force->setUseSwitchingFunction(true);
            force->setSwitchingDistance(switching);
            force->setUseDispersionCorrection(dispersion);
            compareWithNonbondedForce(water, force, platform());
        }
}

TEST_P(ReferenceAndCpu, ChargedLJFluidMatchesNonbondedForce) {
    TestSystem fluid = chargedLJFluid(1000, 3.2);
    NonbondedForce* force = makeNonbondedForce(fluid, NonbondedForce::CutoffPeriodic, 1.2);
    force->setReactionFieldDielectric(40.0);
    compareWithNonbondedForce(fluid, force, platform());
}

TEST_P(ReferenceAndCpu, SolvatedMoleculeWithOneFourPairsMatchesNonbondedForce) {
    TestSystem solvated = solvatedChain(700, 2.8);
    for (auto method : {NonbondedForce::CutoffPeriodic, NonbondedForce::NoCutoff}) {
        NonbondedForce* force = makeNonbondedForce(solvated, method, 0.9);
        int oneFour = 0;
        for (int i = 0; i < force->getNumExceptions(); i++) {
            int p1, p2;
            double chargeProd, sigma, epsilon;
            force->getExceptionParameters(i, p1, p2, chargeProd, sigma, epsilon);
            oneFour += (epsilon != 0);
        }
        ASSERT_GT(oneFour, 10);
        compareWithNonbondedForce(solvated, force, platform());
    }
}

TEST(CreateExceptionsFromBonds, GivesTheSameExceptionsAsNonbondedForce) {
    TestSystem solvated = solvatedChain(300, 2.2);
    unique_ptr<NonbondedForce> expected(makeNonbondedForce(solvated, NonbondedForce::NoCutoff, 1.0));
    NarumiNonbondedForce force;
    for (size_t i = 0; i < solvated.charges.size(); i++)
        force.addParticle(solvated.charges[i], solvated.sigmas[i], solvated.epsilons[i]);
    force.createExceptionsFromBonds(solvated.bonds, 0.8333, 0.5);
    ASSERT_EQ(force.getNumExceptions(), expected->getNumExceptions());
    map<pair<int, int>, vector<double> > expectedByPair;
    for (int i = 0; i < expected->getNumExceptions(); i++) {
        int p1, p2;
        double q, s, e;
        expected->getExceptionParameters(i, p1, p2, q, s, e);
        expectedByPair[{min(p1, p2), max(p1, p2)}] = {q, s, e};
    }
    for (int i = 0; i < force.getNumExceptions(); i++) {
        int p1, p2;
        double q, s, e;
        force.getExceptionParameters(i, p1, p2, q, s, e);
        auto match = expectedByPair.find({min(p1, p2), max(p1, p2)});
        ASSERT_NE(match, expectedByPair.end()) << "pair " << p1 << "-" << p2;
        EXPECT_DOUBLE_EQ(q, match->second[0]);
        EXPECT_DOUBLE_EQ(e, match->second[2]);
        if (e != 0)
            EXPECT_DOUBLE_EQ(s, match->second[1]);
    }
}

/** Double-precision direct sum (reaction field + LJ, exclusions skipped) with the minimum image over 27 images. */
double directSumEnergy(const TestSystem& ts, const NarumiNonbondedForce& force) {
    double rc = force.getCutoffDistance(), eps = force.getReactionFieldDielectric();
    double krf = (eps - 1) / ((2 * eps + 1) * rc * rc * rc), crf = 3 * eps / ((2 * eps + 1) * rc);
    set<pair<int, int> > excluded;
    for (int i = 0; i < force.getNumExceptions(); i++) {
        int p1, p2;
        double q, s, e;
        force.getExceptionParameters(i, p1, p2, q, s, e);
        excluded.insert({min(p1, p2), max(p1, p2)});
    }
    double energy = 0;
    int n = ts.positions.size();
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++) {
            if (excluded.count({i, j}))
                continue;
            double r2 = 1e100;
            for (int a = -2; a <= 2; a++)
                for (int b = -2; b <= 2; b++)
                    for (int c = -2; c <= 2; c++) {
                        Vec3 d = ts.positions[j] - ts.positions[i] + ts.box[0] * a + ts.box[1] * b + ts.box[2] * c;
                        r2 = min(r2, d.dot(d));
                    }
            if (r2 >= rc * rc)
                continue;
            double r = sqrt(r2), sigma = 0.5 * (ts.sigmas[i] + ts.sigmas[j]), epsilon = sqrt(ts.epsilons[i] * ts.epsilons[j]);
            double sr6 = pow(sigma / r, 6);
            energy += 138.93545764438198 * ts.charges[i] * ts.charges[j] * (1 / r + krf * r2 - crf) + 4 * epsilon * (sr6 * sr6 - sr6);
        }
    return energy;
}

TEST_P(ReferenceAndCpu, TriclinicBoxMatchesDirectSum) {
    // OpenMM's reduced form; the direct sum is the oracle because OpenMM 8.6.1's Reference NonbondedForce
    // disagrees with it in some triclinic boxes (docs/validation.md).
    Vec3 box[3] = {Vec3(2.6, 0, 0), Vec3(0.8, 2.4, 0), Vec3(-0.9, 0.7, 2.3)};
    TestSystem water = waterBox(400, box, 4);
    unique_ptr<NonbondedForce> nonbonded(makeNonbondedForce(water, NonbondedForce::CutoffPeriodic, 0.95));
    nonbonded->setUseDispersionCorrection(false);
    unique_ptr<System> system(makeSystem(water));
    NarumiNonbondedForce* force = createNarumiNonbondedForce(*nonbonded);
    system->addForce(force);
    double expected = directSumEnergy(water, *force);
    EXPECT_NEAR(evaluate(*system, water.positions, platform()).energy, expected, 1e-9 * fabs(expected));
}

TEST_P(ReferenceAndCpu, PeriodicExceptionsUseMinimumImageWhenAsked) {
    TestSystem water = cubicWaterBox(300, 2.1);
    // Move the first molecule so that it straddles the boundary (its atoms on both sides of x = 0).
    for (int k = 0; k < 3; k++)
        water.positions[k][0] -= water.positions[0][0] + 0.05;
    for (bool periodicExceptions : {false, true}) {
        NonbondedForce* force = makeNonbondedForce(water, NonbondedForce::CutoffPeriodic, 0.9);
        force->addException(0, 5, 0.3, 0.3, 0.4, true); // an exception with a nonzero interaction
        force->setExceptionsUsePeriodicBoundaryConditions(periodicExceptions);
        compareWithNonbondedForce(water, force, platform());
    }
}

TEST_P(ReferenceAndCpu, ShiftedElectrostaticsMatchCustomForces) {
    TestSystem solvated = solvatedChain(400, 2.4);
    const double cutoff = 1.0;
    unique_ptr<System> expectedSystem(makeSystem(solvated));
    CustomNonbondedForce* pairs = new CustomNonbondedForce(
        "138.93545764438198*q1*q2/r*(1-r^2/rc^2)^2 + 4*eps*((sig/r)^12-(sig/r)^6); sig=0.5*(s1+s2); eps=sqrt(e1*e2)");
    pairs->addGlobalParameter("rc", cutoff);
    for (const char* name : {"q", "s", "e"})
        pairs->addPerParticleParameter(name);
    for (size_t i = 0; i < solvated.charges.size(); i++)
        pairs->addParticle({solvated.charges[i], solvated.sigmas[i], solvated.epsilons[i]});
    pairs->setNonbondedMethod(CustomNonbondedForce::CutoffPeriodic);
    pairs->setCutoffDistance(cutoff);
    unique_ptr<NonbondedForce> nonbonded(makeNonbondedForce(solvated, NonbondedForce::CutoffPeriodic, cutoff));
    CustomBondForce* exceptions = new CustomBondForce("138.93545764438198*qq/r + 4*eps*((sig/r)^12-(sig/r)^6)");
    for (const char* name : {"qq", "sig", "eps"})
        exceptions->addPerBondParameter(name);
    for (int i = 0; i < nonbonded->getNumExceptions(); i++) {
        int p1, p2;
        double q, s, e;
        nonbonded->getExceptionParameters(i, p1, p2, q, s, e);
        pairs->addExclusion(p1, p2);
        if (q != 0 || e != 0)
            exceptions->addBond(p1, p2, {q, s, e});
    }
    expectedSystem->addForce(pairs);
    expectedSystem->addForce(exceptions);

    unique_ptr<System> narumiSystem(makeSystem(solvated));
    NarumiNonbondedForce* narumi = createNarumiNonbondedForce(*nonbonded);
    narumi->setElectrostaticsMethod(NarumiNonbondedForce::Shifted);
    narumi->setUseDispersionCorrection(false);
    narumiSystem->addForce(narumi);
    expectClose(evaluate(*narumiSystem, solvated.positions, platform()), evaluate(*expectedSystem, solvated.positions, "Reference"));
}

TEST_P(ReferenceAndCpu, NoCoulombIsNonbondedForceWithoutCharges) {
    TestSystem fluid = chargedLJFluid(600, 2.6);
    unique_ptr<NonbondedForce> charged(makeNonbondedForce(fluid, NonbondedForce::CutoffPeriodic, 1.0));
    unique_ptr<System> narumiSystem(makeSystem(fluid));
    NarumiNonbondedForce* narumi = createNarumiNonbondedForce(*charged);
    narumi->setElectrostaticsMethod(NarumiNonbondedForce::NoCoulomb);
    narumiSystem->addForce(narumi);
    TestSystem uncharged = fluid;
    for (double& q : uncharged.charges)
        q = 0;
    unique_ptr<System> oracleSystem(makeSystem(uncharged));
    oracleSystem->addForce(makeNonbondedForce(uncharged, NonbondedForce::CutoffPeriodic, 1.0));
    expectClose(evaluate(*narumiSystem, fluid.positions, platform()), evaluate(*oracleSystem, fluid.positions, "Reference"));
}

TEST_P(ReferenceAndCpu, ForcesAreMinusTheGradientOfTheEnergy) {
    TestSystem solvated = solvatedChain(300, 2.2);
    const NarumiNonbondedForce::ElectrostaticsMethod methods[] = {NarumiNonbondedForce::ReactionField, NarumiNonbondedForce::Shifted,
                                                                  NarumiNonbondedForce::NoCoulomb};
    for (auto electrostatics : methods) {
        SCOPED_TRACE("electrostatics " + to_string(electrostatics));
        unique_ptr<NonbondedForce> nonbonded(makeNonbondedForce(solvated, NonbondedForce::CutoffPeriodic, 1.0));
        unique_ptr<System> system(makeSystem(solvated));
        NarumiNonbondedForce* force = createNarumiNonbondedForce(*nonbonded);
        force->setElectrostaticsMethod(electrostatics);
        force->setUseSwitchingFunction(true);
        force->setSwitchingDistance(0.8);
        system->addForce(force);
        EnergyAndForces analytic = evaluate(*system, solvated.positions, platform());
        const double step = 1e-5;
        int chainAtom = solvated.positions.size() - 5;
        for (int atom : {0, 1, 100, chainAtom})
            for (int axis = 0; axis < 3; axis++) {
                vector<Vec3> plus = solvated.positions, minus = solvated.positions;
                plus[atom][axis] += step;
                minus[atom][axis] -= step;
                double numeric = -(evaluate(*system, plus, platform()).energy - evaluate(*system, minus, platform()).energy) / (2 * step);
                EXPECT_NEAR(analytic.forces[atom][axis], numeric, 1e-4 * max(1.0, fabs(numeric))) << "atom " << atom << " axis " << axis;
            }
    }
}

TEST_P(ReferenceAndCpu, UpdateParametersInContextMatchesNonbondedForce) {
    TestSystem solvated = solvatedChain(300, 2.2);
    unique_ptr<System> oracleSystem(makeSystem(solvated)), narumiSystem(makeSystem(solvated));
    NonbondedForce* nonbonded = makeNonbondedForce(solvated, NonbondedForce::CutoffPeriodic, 1.0);
    NarumiNonbondedForce* narumi = createNarumiNonbondedForce(*nonbonded);
    oracleSystem->addForce(nonbonded);
    narumiSystem->addForce(narumi);
    VerletIntegrator i1(0.001), i2(0.001);
    Context oracle(*oracleSystem, i1, Platform::getPlatformByName("Reference"));
    Context context(*narumiSystem, i2, Platform::getPlatformByName(platform()));
    oracle.setPositions(solvated.positions);
    context.setPositions(solvated.positions);
    double before = context.getState(State::Energy).getPotentialEnergy();
    int chainStart = solvated.positions.size() - 14;
    for (int i : {0, 1, 2, chainStart + 3}) {
        nonbonded->setParticleParameters(i, 0.5 - 0.2 * (i % 3), 0.3, 0.7);
        narumi->setParticleParameters(i, 0.5 - 0.2 * (i % 3), 0.3, 0.7);
    }
    for (int i = 0; i < nonbonded->getNumExceptions(); i++) {
        int p1, p2;
        double q, s, e;
        nonbonded->getExceptionParameters(i, p1, p2, q, s, e);
        if (e != 0) {
            nonbonded->setExceptionParameters(i, p1, p2, 2 * q, s, 0.5 * e);
            narumi->setExceptionParameters(i, p1, p2, 2 * q, s, 0.5 * e);
        }
    }
    nonbonded->updateParametersInContext(oracle);
    narumi->updateParametersInContext(context);
    State expected = oracle.getState(State::Energy | State::Forces), actual = context.getState(State::Energy | State::Forces);
    EXPECT_GT(fabs(actual.getPotentialEnergy() - before), 1.0);
    expectClose({actual.getPotentialEnergy(), actual.getForces()}, {expected.getPotentialEnergy(), expected.getForces()});

    // The set of exception pairs is fixed once a Context exists.
    int p1, p2;
    double q, s, e;
    narumi->getExceptionParameters(0, p1, p2, q, s, e);
    narumi->setExceptionParameters(0, p1, 100, q, s, e); // atom 100 is in another molecule: a new pair
    EXPECT_THROW(narumi->updateParametersInContext(context), OpenMMException);
}

TEST_P(ReferenceAndCpu, ForceGroupsSelectTheForce) {
    TestSystem water = cubicWaterBox(200, 1.9);
    unique_ptr<NonbondedForce> nonbonded(makeNonbondedForce(water, NonbondedForce::CutoffPeriodic, 0.9));
    unique_ptr<System> system(makeSystem(water));
    NarumiNonbondedForce* force = createNarumiNonbondedForce(*nonbonded);
    force->setForceGroup(3);
    system->addForce(force);
    EnergyAndForces all = evaluate(*system, water.positions, platform());
    EnergyAndForces inGroup = evaluate(*system, water.positions, platform(), 1 << 3);
    EnergyAndForces otherGroups = evaluate(*system, water.positions, platform(), ~(1 << 3));
    EXPECT_NE(all.energy, 0.0);
    EXPECT_EQ(inGroup.energy, all.energy);
    EXPECT_EQ(otherGroups.energy, 0.0);
    for (const Vec3& f : otherGroups.forces)
        ASSERT_EQ(f, Vec3());
}

TEST_P(ReferenceAndCpu, RepeatedEvaluationsAreBitwiseIdentical) {
    TestSystem water = cubicWaterBox(500, 2.5);
    unique_ptr<System> system(makeSystem(water));
    unique_ptr<NonbondedForce> nonbonded(makeNonbondedForce(water, NonbondedForce::CutoffPeriodic, 1.0));
    system->addForce(createNarumiNonbondedForce(*nonbonded));
    VerletIntegrator integrator(0.001);
    Context context(*system, integrator, Platform::getPlatformByName(platform()));
    context.setPositions(water.positions);
    State first = context.getState(State::Forces | State::Energy), second = context.getState(State::Forces | State::Energy);
    EXPECT_EQ(first.getPotentialEnergy(), second.getPotentialEnergy());
    for (size_t i = 0; i < water.positions.size(); i++)
        for (int k = 0; k < 3; k++)
            ASSERT_EQ(first.getForces()[i][k], second.getForces()[i][k]);
}

INSTANTIATE_TEST_SUITE_P(Platforms, ReferenceAndCpu, ::testing::Values("Reference", "CPU"));

} // namespace
