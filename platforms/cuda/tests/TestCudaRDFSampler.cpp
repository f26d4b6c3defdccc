/**
 * RDFSampler on OpenMM's CUDA platform: the shared behaviour of every platform (tests/cpp/RDFSamplerTests.h) in
 * single, mixed and double precision, and on a Context of several devices, then against the RDF engine's CPU backend on the same frames (getState's
 * positions at the steps the sampler samples) at sizes that take the cell-list path, and in a run where OpenMM
 * reorders the atoms (a periodic NonbondedForce makes it sort them every 250 steps).  Every test skips (never passes)
 * where OpenMM's CUDA platform or a GPU is missing.
 */

#include "NarumiTestDevices.h"
#include "RDFSamplerTests.h"

// Both sides histogram getState's positions, which in single and mixed precision are OpenMM's float posq: the same
// counts bit for bit in every precision.
INSTANTIATE_TEST_SUITE_P(CUDA, RDFSamplerTest,
                         ::testing::Values(PlatformUnderTest{"CUDA", "single", 0.0}, PlatformUnderTest{"CUDA", "mixed", 0.0},
                                           PlatformUnderTest{"CUDA", "double", 0.0}),
                         platformLabel);
// A Context of several devices (NARUMI_TEST_DEVICES; by default the one GPU listed twice): each device counts a share
// of every frame, the later ones from a copy of the first device's positions.
INSTANTIATE_TEST_SUITE_P(CUDA_devices, RDFSamplerTest,
                         ::testing::Values(PlatformUnderTest{"CUDA", "mixed", 0.0, multiDeviceIndex()},
                                           PlatformUnderTest{"CUDA", "double", 0.0, multiDeviceIndex()}),
                         platformLabel);

namespace {

/** Random positions in a cubic box and random velocities (about 1 nm/ps). */
void randomState(int numAtoms, double edge, unsigned seed, vector<Vec3>& positions, vector<Vec3>& velocities) {
    mt19937 random(seed);
    uniform_real_distribution<double> unit(0.0, 1.0);
    normal_distribution<double> gaussian(0.0, 1.0);
    positions.clear();
    velocities.clear();
    for (int i = 0; i < numAtoms; i++) {
        positions.emplace_back(edge * unit(random), edge * unit(random), edge * unit(random));
        velocities.emplace_back(gaussian(random), gaussian(random), gaussian(random));
    }
}

/**
 * Runs steps one at a time on CUDA with the sampler in the System; the engine (CPU backend) gets getState's positions
 * and box before each step the sampler samples.  Returns the number of frames.
 */
long long expectSamplerEqualsEngine(System& system, RDFSampler* sampler, const vector<Vec3>& positions,
                                    const vector<Vec3>& velocities, const string& precision, int steps) {
    system.addForce(sampler);
    VerletIntegrator integrator(0.002);
    Context context(system, integrator, Platform::getPlatformByName("CUDA"), {{"Precision", precision}});
    context.setPositions(positions);
    context.setVelocities(velocities);
    OpenMMNarumi::Rdf::RdfSettings settings;
    settings.rMin = sampler->getRMin();
    settings.rMax = sampler->getRMax();
    settings.bins = sampler->getNumBins();
    settings.backend = OpenMMNarumi::Rdf::Backend::CPU;
    const vector<int>& selection2 = sampler->getSelection2();
    OpenMMNarumi::Rdf::RdfEngine engine(system.getNumParticles(), sampler->getSelection1(), selection2.empty() ? nullptr : &selection2,
                                settings, sampler->getExclusionGroups());
    for (int s = 0; s < steps; s++) {
        if (context.getStepCount() % sampler->getSamplingInterval() == 0) {
            State state = context.getState(State::Positions);
            Vec3 a, b, c;
            state.getPeriodicBoxVectors(a, b, c);
            double box[9] = {a[0], a[1], a[2], b[0], b[1], b[2], c[0], c[1], c[2]};
            engine.addFrame(reinterpret_cast<const double*>(state.getPositions().data()), box);
        }
        integrator.step(1);
    }
    RDFSamplerResult result = sampler->getResult(context);
    vector<uint64_t> expected = engine.pairCounts();
    EXPECT_EQ(result.numFrames, engine.numFrames());
    EXPECT_EQ(result.sumInverseVolume, engine.sumInverseVolume());
    EXPECT_EQ(result.numPairsPerFrame, engine.numPairsPerFrame());
    EXPECT_GT(accumulate(expected.begin(), expected.end(), (uint64_t) 0), 100000u);
    size_t different = 0;
    for (size_t k = 0; k < expected.size() && k < result.pairCounts.size(); k++)
        if ((uint64_t) result.pairCounts[k] != expected[k] && different++ < 5)
            ADD_FAILURE() << "bin " << k << ": " << result.pairCounts[k] << " on CUDA, " << expected[k] << " on the CPU";
    EXPECT_EQ(different, 0u);
    return result.numFrames;
}

} // namespace

TEST(RdfSamplerCuda, CountsEqualTheCpuPathInEveryPrecision) {
    SKIP_WITHOUT_CUDA();
    struct Case { const char* name; int atoms; double edge, rMax; vector<int> sel1, sel2; bool groups; };
    // 6000 atoms to 1.0 nm in a 6.3 nm box: 2^24 pairs and 216 cells, the cell list; the disjoint case: all pairs.
    vector<Case> cases = {{"identical, cell list", 6000, 6.3, 1.0, indexRange(0, 6000), {}, false},
                          {"disjoint + groups, all pairs", 3000, 4.0, 1.5, indexRange(0, 3000, 3), indexRange(1, 3000, 3), true}};
    for (const string precision : {"single", "mixed", "double"}) {
        for (const Case& c : cases) {
            SCOPED_TRACE(precision + ": " + c.name);
            System system;
            for (int i = 0; i < c.atoms; i++)
                system.addParticle(16.0);
            system.setDefaultPeriodicBoxVectors(Vec3(c.edge, 0, 0), Vec3(0, c.edge, 0), Vec3(0, 0, c.edge));
            HarmonicBondForce* periodic = new HarmonicBondForce();   // no bonds: only makes the System periodic
            periodic->setUsesPeriodicBoundaryConditions(true);
            system.addForce(periodic);
            RDFSampler* sampler = new RDFSampler(c.sel1, c.sel2, c.rMax, 300, 4);
            if (c.groups) {
                vector<int> groups(c.atoms);
                for (int i = 0; i < c.atoms; i++)
                    groups[i] = i / 3;
                sampler->setExclusionGroups(groups);
            }
            vector<Vec3> positions, velocities;
            randomState(c.atoms, c.edge, 17, positions, velocities);
            EXPECT_EQ(expectSamplerEqualsEngine(system, sampler, positions, velocities, precision, 10), 3);
        }
    }
}

TEST(RdfSamplerCuda, CountsEqualTheCpuPathWhileOpenMMReordersAtoms) {
    SKIP_WITHOUT_CUDA();
    // Weak Lennard-Jones particles under a periodic cutoff: OpenMM sorts the atoms spatially every 250 steps, and
    // the particles (moving about 1 nm/ps) change places between sorts.
    const int n = 5000;
    const double edge = 5.5;
    System system;
    NonbondedForce* nonbonded = new NonbondedForce();
    nonbonded->setNonbondedMethod(NonbondedForce::CutoffPeriodic);
    nonbonded->setCutoffDistance(1.0);
    for (int i = 0; i < n; i++) {
        system.addParticle(16.0);
        nonbonded->addParticle(0.0, 0.3, 1e-6);
    }
    system.addForce(nonbonded);
    system.setDefaultPeriodicBoxVectors(Vec3(edge, 0, 0), Vec3(0, edge, 0), Vec3(0, 0, edge));
    vector<Vec3> positions, velocities;
    randomState(n, edge, 23, positions, velocities);
    RDFSampler* sampler = new RDFSampler(indexRange(0, n, 2), indexRange(1, n, 2), 1.2, 240, 100);
    EXPECT_EQ(expectSamplerEqualsEngine(system, sampler, positions, velocities, "mixed", 801), 9);
}
