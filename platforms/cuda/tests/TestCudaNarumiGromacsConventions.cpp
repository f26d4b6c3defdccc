/**
 * NarumiNonbondedForce's GROMACS conventions on OpenMM's CUDA platform (Lennard-Jones type tables with NBFIX semantics,
 * Lennard-Jones potential shift, the Coulomb dielectric, an infinite reaction-field dielectric, GROMACS's reaction field
 * with the terms of excluded charges): against the oracle of tests/cpp/NarumiGromacsConventionsTests.h (the same physics
 * in OpenMM's custom forces on the Reference platform) at single precision's grade in single and mixed precision and
 * double's in double, with both exact accumulations, whose excluded pairs must still cancel exactly.  The shared suite's
 * analytic two-particle checks hold the double-precision platforms to 1e-13 and are not instantiated here.  Every test
 * skips (never passes) where OpenMM's CUDA platform or a GPU is missing.
 */

#include "NarumiDiagnosticsSetting.h"
#include "NarumiGromacsConventionsTests.h"
#include <cstdint>
#include <functional>

GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(NarumiGromacsConventionsTest);

namespace {

EnergyAndForces evaluateOnCuda(const System& system, const vector<Vec3>& positions, const string& precision) {
    VerletIntegrator integrator(0.001);
    Context context(system, integrator, Platform::getPlatformByName("CUDA"), {{"Precision", precision}});
    context.setPositions(positions);
    return energyAndForces(context);
}

/** The forces in OpenMM's 64-bit fixed point, where the CUDA platform sums them: their sum must be exactly zero. */
::testing::AssertionResult netForceIsExactlyZero(const EnergyAndForces& result) {
    for (int c = 0; c < 3; c++) {
        int64_t net = 0;
        for (const Vec3& f : result.forces)
            net += (int64_t) llround(f[c] * 4294967296.0);
        if (net != 0)
            return ::testing::AssertionFailure() << "component " << c << " sums to " << net << " * 2^-32";
    }
    return ::testing::AssertionSuccess();
}

TEST(CudaNarumiGromacsConventions, EachConventionAndAllTogetherMatchTheOracle) {
    SKIP_WITHOUT_CUDA();
    TestSystem solvated = solvatedMoleculeInCube();
    TypeTable table = solvatedMoleculeTypes(solvated);
    const vector<pair<string, Conventions>> cases = conventionCases();
    for (double reactionFieldDielectric : {78.3, INFINITE})
        for (const auto& testCase : cases) {
            NonbondedSettings settings = periodicReactionField(1.0, reactionFieldDielectric);
            EnergyAndForces oracle = evaluate(*conventionsOracle(solvated, settings, table, testCase.second), solvated.positions, "Reference");
            for (auto accumulation : {Narumi::Narumi, Narumi::FixedPoint64, Narumi::TileSums})
                for (string precision : {"single", "mixed", "double"}) {
                    string context = testCase.first + ", eps_rf " + to_string(reactionFieldDielectric) + ", accumulation " +
                                     to_string(accumulation) + ", " + precision;
                    Narumi* force = makeConventionsForce(solvated, settings, table, testCase.second);
                    force->setAccumulationMethod(accumulation);
                    auto system = makeSystem(solvated, {force});
                    EnergyAndForces cuda = evaluateOnCuda(*system, solvated.positions, precision);
                    EXPECT_TRUE(agree(cuda, oracle, precision == "double" ? 1e-8 : 1e-5)) << context;
                    if (accumulation != Narumi::TileSums) {  // its float tile sums leave rounding in the net force
                        EXPECT_TRUE(netForceIsExactlyZero(cuda)) << context;
                    }
                }
        }
}

/**
 * The type table's pair kernel (its table copied into shared memory) in every shared-memory carveout (the diagnostic
 * shared-carveout, the driver's choice included) gives the bits of the default, the carveout the kernel needs, and so
 * does a Context made afterwards without the setting.
 */
TEST(CudaNarumiGromacsConventions, SharedCarveoutGivesTheTablesBits) {
    SKIP_WITHOUT_CUDA();
    TestSystem solvated = solvatedMoleculeInCube();
    TypeTable table = solvatedMoleculeTypes(solvated);
    auto system = makeSystem(solvated, {makeConventionsForce(solvated, periodicReactionField(1.0, INFINITE), table, conventionCases().back().second)});
    EnergyAndForces byDefault = evaluateOnCuda(*system, solvated.positions, "mixed");
    for (const char* settings : {"shared-carveout=0", "shared-carveout=40", "shared-carveout=100", "shared-carveout=driver", ""}) {
        EnergyAndForces carved;
        {
            DiagnosticsSetting setting(settings);
            carved = evaluateOnCuda(*system, solvated.positions, "mixed");
        }
        EXPECT_EQ(carved.energy, byDefault.energy) << "'" << settings << "'";
        EXPECT_EQ(differingComponents(carved, byDefault), 0) << "'" << settings << "'";
    }
}

/** The solvated molecule with its type table and a force of the conventions, for the update tests. */
struct UpdateCase {
    TestSystem solvated = solvatedMoleculeInCube();
    TypeTable table = solvatedMoleculeTypes(solvated);
    NonbondedSettings settings = periodicReactionField(1.0, INFINITE);
    Conventions conventions;
    Narumi* force;

    explicit UpdateCase(const Conventions& used) : conventions(used), force(makeConventionsForce(solvated, settings, table, used)) {}

    /**
     * A mixed-precision CUDA Context of the force's System, then change (of the force, and of solvated and table where
     * the oracle reads them) copied in by updateParametersInContext: the energy must move, agree with the oracle, and
     * be what a new Context gives.
     */
    void expectUpdateLikeANewContext(const function<void()>& change) {
        auto system = makeSystem(solvated, {force});
        VerletIntegrator integrator(0.001);
        Context context(*system, integrator, Platform::getPlatformByName("CUDA"), {{"Precision", "mixed"}});
        context.setPositions(solvated.positions);
        double before = energyAndForces(context).energy;
        change();
        force->updateParametersInContext(context);
        EnergyAndForces updated = energyAndForces(context);
        EXPECT_GT(fabs(updated.energy - before), 1.0) << "the update changed nothing";
        EXPECT_TRUE(agree(updated, evaluate(*conventionsOracle(solvated, settings, table, conventions), solvated.positions, "Reference"), 1e-5));
        EXPECT_TRUE(agree(updated, evaluateOnCuda(*system, solvated.positions, "mixed"), 1e-12)) << "the update differs from a new Context";
    }
};

TEST(CudaNarumiGromacsConventions, TypesGivenByAnUpdateAreComputed) {
    SKIP_WITHOUT_CUDA();
    // No particle is typed when the Context is made (no table on the GPU); the update types them all.
    Conventions all;
    all.types = all.potentialShift = all.gromacsReactionField = true;
    all.coulombDielectric = 15;
    UpdateCase update(all);
    vector<int> types(update.solvated.size());
    for (int i = 0; i < update.solvated.size(); i++) {
        types[i] = update.force->getParticleLennardJonesType(i);
        update.force->setParticleLennardJonesType(i, -1);
    }
    update.expectUpdateLikeANewContext([&]() {
        for (int i = 0; i < update.solvated.size(); i++)
            update.force->setParticleLennardJonesType(i, types[i]);
    });
}

TEST(CudaNarumiGromacsConventions, ParametersChangedByAnUpdateRemakeTheTypeTable) {
    SKIP_WITHOUT_CUDA();
    // The GPU's table is per class (type, sigma, epsilon): new sigmas and epsilons of typed and untyped particles make
    // new classes, which the update must bring in as a new Context would.
    Conventions typesAndShift;
    typesAndShift.types = typesAndShift.potentialShift = true;
    UpdateCase update(typesAndShift);
    TestSystem& solvated = update.solvated;
    update.expectUpdateLikeANewContext([&]() {
        // Water oxygens only: their exceptions are exclusions, which new sigmas and epsilons leave as they are (as in
        // the Narumi force), where the oracle would remake the solute's 1-4 pairs from them.
        for (int i = 0, waters = 0; i < solvated.size(); i++) {
            if (solvated.sigmas[i] != 0.315061 || waters++ % 3 != 0)
                continue;
            double charge, sigma, epsilon;
            update.force->getParticleParameters(i, charge, sigma, epsilon);
            update.force->setParticleParameters(i, charge, sigma * 1.03, epsilon * 1.5);
            solvated.sigmas[i] = sigma * 1.03;
            solvated.epsilons[i] = epsilon * 1.5;
            update.table.typeOfParticle[i] = update.force->getParticleLennardJonesType(i);  // else the oracle types by (sigma, epsilon)
        }
    });
}

TEST(CudaNarumiGromacsConventions, TooManyLennardJonesClassesAreRefusedWithTheirCount) {
    SKIP_WITHOUT_CUDA();
    // Every particle typed, each with its own sigma: one class per particle, beyond the 2,048 that the GPU's table takes.
    TestSystem water = waterBox(cubicBox(3.0), 7);
    ASSERT_GT(water.size(), 2048);
    Narumi* force = makeNarumiForce(water, periodicReactionField(1.0, 78.3));
    for (int i = 0; i < force->getNumParticles(); i++) {
        double charge, sigma, epsilon;
        force->getParticleParameters(i, charge, sigma, epsilon);
        force->setParticleParameters(i, charge, 0.3 + 1e-5 * i, 0.5);
        force->setParticleLennardJonesType(i, 0);
    }
    force->addLennardJonesTypePair(0, 0, 0.31, 0.6);
    auto system = makeSystem(water, {force});
    VerletIntegrator integrator(0.001);
    EXPECT_OPENMM_EXCEPTION_CONTAINING({ Context context(*system, integrator, Platform::getPlatformByName("CUDA")); },
                                       "the particles fall into " + to_string(water.size()) + " classes of Lennard-Jones parameters");
}

TEST(CudaNarumiGromacsConventions, TheAccuracyStudysMethodsRefuseTypes) {
    SKIP_WITHOUT_CUDA();
    TestSystem water = waterBox(cubicBox(2.2), 8);
    Narumi* force = makeNarumiForce(water, periodicReactionField(1.0, 78.3));
    force->setParticleLennardJonesType(5, 2);
    auto system = makeSystem(water, {force});
    DiagnosticsSetting diagnostics("accumulation=Nitadori");
    VerletIntegrator integrator(0.001);
    EXPECT_OPENMM_EXCEPTION_CONTAINING({ Context context(*system, integrator, Platform::getPlatformByName("CUDA")); },
                                       "does not take Lennard-Jones types (particle 5 has type 2)");
}

} // namespace
