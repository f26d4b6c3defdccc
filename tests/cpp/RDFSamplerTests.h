#ifndef NARUMI_RDF_SAMPLER_TESTS_H_
#define NARUMI_RDF_SAMPLER_TESTS_H_

/**
 * The behaviour every platform's RDFSampler kernel must have, written once: a platform's driver
 * (platforms/<platform>/tests/Test<Platform>RDFSampler.cpp) includes this file and instantiates RDFSamplerTest with the
 * platforms and precisions it runs.  The counts equal the RDF engine's CPU backend (RdfEngine, the code behind
 * openmmnarumi.RDFEngine) on the same frames, bit for bit in every precision (both histogram getState's positions);
 * frames are taken at the start of every step whose step count is a multiple of the sampling interval; the atom order
 * of the System does not matter; bad input throws an OpenMMException naming the value.
 */

#include "NarumiTestSystems.h"
#include "AttachedRDFSampler.h"
#include "RDFSampler.h"
#include "RdfEngine.h"
#include "openmm/HarmonicBondForce.h"
#include <algorithm>
#include <numeric>

using namespace OpenMMNarumi::Test;
using namespace OpenMMNarumi;
using namespace OpenMM;
using namespace std;

namespace {


/** Particles at random positions with random velocities and no forces: a trajectory that needs no force field.
 *  A bond force with no bonds, marked periodic, makes the System periodic when box is given. */
struct Ballistic {
    System system;
    vector<Vec3> positions, velocities;
};

Ballistic ballisticSystem(int numAtoms, const Box* box, double edge, unsigned seed) {
    Ballistic b;
    mt19937 random(seed);
    uniform_real_distribution<double> unit(0.0, 1.0);
    normal_distribution<double> gaussian(0.0, 1.0);
    for (int i = 0; i < numAtoms; i++) {
        b.system.addParticle(16.0);
        b.positions.emplace_back(edge * unit(random), edge * unit(random), edge * unit(random));
        b.velocities.emplace_back(gaussian(random), gaussian(random), gaussian(random));
    }
    if (box != nullptr) {
        b.system.setDefaultPeriodicBoxVectors((*box)[0], (*box)[1], (*box)[2]);
        HarmonicBondForce* periodic = new HarmonicBondForce();
        periodic->setUsesPeriodicBoundaryConditions(true);
        b.system.addForce(periodic);
    }
    return b;
}

vector<int> indexRange(int begin, int end, int stride = 1) {
    vector<int> values;
    for (int i = begin; i < end; i += stride)
        values.push_back(i);
    return values;
}

OpenMMNarumi::Rdf::RdfSettings cpuSettings(const RDFSampler& sampler) {
    OpenMMNarumi::Rdf::RdfSettings settings;
    settings.rMin = sampler.getRMin();
    settings.rMax = sampler.getRMax();
    settings.bins = sampler.getNumBins();
    settings.backend = OpenMMNarumi::Rdf::Backend::CPU;
    return settings;
}

/** The engine that sees what the sampler should: the same selections, settings and groups. */
unique_ptr<OpenMMNarumi::Rdf::RdfEngine> engineFor(const System& system, const RDFSampler& sampler) {
    const vector<int>& selection2 = sampler.getSelection2();
    return make_unique<OpenMMNarumi::Rdf::RdfEngine>(system.getNumParticles(), sampler.getSelection1(),
                                             selection2.empty() ? nullptr : &selection2, cpuSettings(sampler),
                                             sampler.getExclusionGroups());
}

/** Steps one at a time; before each step whose count is a multiple of the interval, the engine gets getState's
 *  positions and box: the frames the sampler takes at the start of those steps. */
void stepAndMirror(Context& context, const RDFSampler& sampler, OpenMMNarumi::Rdf::RdfEngine& engine, int steps, bool periodic) {
    for (int s = 0; s < steps; s++) {
        long long step = context.getStepCount();
        if (step % sampler.getSamplingInterval() == 0) {
            State state = context.getState(State::Positions);
            Vec3 a, b, c;
            state.getPeriodicBoxVectors(a, b, c);
            double box[9] = {a[0], a[1], a[2], b[0], b[1], b[2], c[0], c[1], c[2]};
            engine.addFrame(reinterpret_cast<const double*>(state.getPositions().data()), periodic ? box : nullptr);
        }
        context.getIntegrator().step(1);
    }
}

void expectResultEqualsEngine(const RDFSamplerResult& result, OpenMMNarumi::Rdf::RdfEngine& engine) {
    vector<uint64_t> expected = engine.pairCounts();
    ASSERT_EQ(result.pairCounts.size(), expected.size());
    for (size_t k = 0; k < expected.size(); k++)
        EXPECT_EQ((uint64_t) result.pairCounts[k], expected[k]) << "bin " << k;
    EXPECT_EQ(result.numFrames, engine.numFrames());
    EXPECT_EQ(result.framesWithoutBox, engine.framesWithoutBox());
    EXPECT_EQ(result.sumInverseVolume, engine.sumInverseVolume());
    EXPECT_EQ(result.numPairsPerFrame, engine.numPairsPerFrame());
    EXPECT_GT(accumulate(expected.begin(), expected.end(), (uint64_t) 0), 1000u);
}

Box triclinicBox(double edge) {
    return {Vec3(edge, 0, 0), Vec3(0.3 * edge, 0.95 * edge, 0), Vec3(-0.2 * edge, 0.25 * edge, 0.9 * edge)};
}


class RDFSamplerTest : public PlatformTest {};

TEST_P(RDFSamplerTest, CountsEqualTheEngineOnTheSameFrames) {
    Box cubic = cubicBox(3.2), triclinic = triclinicBox(3.6);
    struct Case { const char* name; const Box* box; vector<int> sel1, sel2; bool groups; double rMin; };
    vector<Case> cases = {{"identical, cubic", &cubic, indexRange(0, 900), {}, false, 0.0},
                          {"disjoint, triclinic", &triclinic, indexRange(0, 900, 3), indexRange(1, 900, 3), false, 0.0},
                          {"overlapping + groups, cubic", &cubic, indexRange(0, 600), indexRange(300, 900), true, 0.1},
                          {"identical, no box", nullptr, indexRange(0, 900), {}, false, 0.0}};
    {
        for (const Case& c : cases) {
            SCOPED_TRACE(c.name);
            Ballistic b = ballisticSystem(900, c.box, 3.2, 7);
            RDFSampler* sampler = new RDFSampler(c.sel1, c.sel2, 1.2, 120, 3, c.rMin);
            if (c.groups) {
                vector<int> groups(900);
                for (int i = 0; i < 900; i++)
                    groups[i] = i / 3;   // "molecules" of three atoms
                sampler->setExclusionGroups(groups);
            }
            b.system.addForce(sampler);
            VerletIntegrator integrator(0.002);
            Context context(b.system, integrator, platform(), properties());
            context.setPositions(b.positions);
            context.setVelocities(b.velocities);
            unique_ptr<OpenMMNarumi::Rdf::RdfEngine> engine = engineFor(b.system, *sampler);
            stepAndMirror(context, *sampler, *engine, 10, c.box != nullptr);
            RDFSamplerResult result = sampler->getResult(context);
            EXPECT_EQ(result.numFrames, 4);   // steps 0, 3, 6, 9
            EXPECT_EQ(result.lastSampledStep, 9);
            expectResultEqualsEngine(result, *engine);
        }
    }
}

TEST_P(RDFSamplerTest, SamplesEveryIntervalOnceAndNothingElse) {
    Box box = cubicBox(3.0);
    Ballistic b = ballisticSystem(300, &box, 3.0, 11);
    RDFSampler* sampler = new RDFSampler(indexRange(0, 300), {}, 1.0, 50, 5);
    b.system.addForce(sampler);
    EXPECT_EQ(sampler->getForceGroup(), 31);
    VerletIntegrator integrator(0.002);
    Context context(b.system, integrator, platform(), properties());
    context.setPositions(b.positions);
    context.setVelocities(b.velocities);
    // Evaluations sample nothing, and the sampler adds no energy or force.
    State state = context.getState(State::Energy | State::Forces);
    EXPECT_EQ(state.getPotentialEnergy(), 0.0);
    for (const Vec3& force : state.getForces())
        EXPECT_EQ(force, Vec3());
    EXPECT_EQ(sampler->getResult(context).numFrames, 0);
    EXPECT_EQ(sampler->getResult(context).lastSampledStep, -1);

    integrator.step(23);   // steps 0, 5, 10, 15, 20
    EXPECT_EQ(sampler->getResult(context).numFrames, 5);
    EXPECT_EQ(sampler->getResult(context).lastSampledStep, 20);
    for (int s = 0; s < 7; s++)   // 23 .. 29: 25
        integrator.step(1);
    EXPECT_EQ(sampler->getResult(context).numFrames, 6);
    // A step count already sampled is not sampled again; one set back is.
    context.setStepCount(25);
    integrator.step(1);
    EXPECT_EQ(sampler->getResult(context).numFrames, 6);
    context.setStepCount(0);
    integrator.step(1);
    EXPECT_EQ(sampler->getResult(context).numFrames, 7);
    // sample() takes a frame now; reset() forgets them all.
    sampler->sample(context);
    RDFSamplerResult result = sampler->getResult(context);
    EXPECT_EQ(result.numFrames, 8);
    EXPECT_EQ(result.lastSampledStep, 1);
    sampler->reset(context);
    result = sampler->getResult(context);
    EXPECT_EQ(result.numFrames, 0);
    EXPECT_EQ(result.sumInverseVolume, 0.0);
    for (long long count : result.pairCounts)
        EXPECT_EQ(count, 0);
}

TEST_P(RDFSamplerTest, AtomOrderDoesNotMatter) {
    // The same particles in a shuffled order, with the selections and groups mapped: the same counts.
    const int n = 600;
    Box box = cubicBox(3.0);
    Ballistic a = ballisticSystem(n, &box, 3.0, 5), b = ballisticSystem(n, &box, 3.0, 5);
    vector<int> newIndex(n);
    iota(newIndex.begin(), newIndex.end(), 0);
    shuffle(newIndex.begin(), newIndex.end(), mt19937(3));
    for (int i = 0; i < n; i++) {
        b.positions[newIndex[i]] = a.positions[i];
        b.velocities[newIndex[i]] = a.velocities[i];
    }
    vector<int> sel1 = indexRange(0, n, 2), sel2 = indexRange(0, n, 3), groups(n), sel1b, sel2b, groupsB(n);
    for (int i = 0; i < n; i++)
        groups[i] = i / 4;
    for (int i : sel1)
        sel1b.push_back(newIndex[i]);
    for (int i : sel2)
        sel2b.push_back(newIndex[i]);
    for (int i = 0; i < n; i++)
        groupsB[newIndex[i]] = groups[i];
    RDFSampler* samplerA = new RDFSampler(sel1, sel2, 1.1, 90, 4);
    RDFSampler* samplerB = new RDFSampler(sel1b, sel2b, 1.1, 90, 4);
    samplerA->setExclusionGroups(groups);
    samplerB->setExclusionGroups(groupsB);
    a.system.addForce(samplerA);
    b.system.addForce(samplerB);
    VerletIntegrator integratorA(0.002), integratorB(0.002);
    Context contextA(a.system, integratorA, platform(), properties()), contextB(b.system, integratorB, platform(), properties());
    contextA.setPositions(a.positions);
    contextA.setVelocities(a.velocities);
    contextB.setPositions(b.positions);
    contextB.setVelocities(b.velocities);
    integratorA.step(13);
    integratorB.step(13);
    RDFSamplerResult resultA = samplerA->getResult(contextA), resultB = samplerB->getResult(contextB);
    EXPECT_EQ(resultA.numFrames, 4);
    EXPECT_EQ(resultA.pairCounts, resultB.pairCounts);
    EXPECT_EQ(resultA.numPairsPerFrame, resultB.numPairsPerFrame);
    EXPECT_GT(accumulate(resultA.pairCounts.begin(), resultA.pairCounts.end(), 0LL), 1000);
}

TEST_P(RDFSamplerTest, BadInputThrowsNamingTheValueAtContextCreation) {
    Box box = cubicBox(3.0);
    auto contextWith = [&](RDFSampler* sampler) {
        Ballistic b = ballisticSystem(50, &box, 3.0, 1);
        b.system.addForce(sampler);
        VerletIntegrator integrator(0.002);
        Context context(b.system, integrator, platform(), properties());
    };
    expectThrowsNaming([&] { contextWith(new RDFSampler({0, 5000})); }, "selection1[1] = 5000");
    expectThrowsNaming([&] { contextWith(new RDFSampler({0, 1}, {2, -1})); }, "selection2[1] = -1");
    expectThrowsNaming([&] { contextWith(new RDFSampler({0, 3, 3})); }, "lists atom 3 twice");
    expectThrowsNaming([&] { contextWith(new RDFSampler({0, 1}, {}, 1.6)); }, "rMax = 1.6");
    expectThrowsNaming([&] {
        RDFSampler* sampler = new RDFSampler({0, 1});
        sampler->setExclusionGroups({1, 2, 3});
        contextWith(sampler);
    }, "exclusionGroups has 3 entries for 50 atoms");

    // A box that shrinks below 2 rMax during the run: the next frame throws.
    Ballistic b = ballisticSystem(50, &box, 3.0, 1);
    b.system.addForce(new RDFSampler(indexRange(0, 50), {}, 1.4, 10, 1));
    VerletIntegrator integrator(0.002);
    Context context(b.system, integrator, platform(), properties());
    context.setPositions(b.positions);
    context.setPeriodicBoxVectors(Vec3(2.6, 0, 0), Vec3(0, 2.6, 0), Vec3(0, 0, 2.6));
    expectThrowsNaming([&] { integrator.step(1); }, "rMax = 1.3999999999999999 nm is more than half the box");
}

TEST_P(RDFSamplerTest, AttachedSamplerCountsTheFramesItIsAskedFor) {
    // A Context whose System has no sampler: frames only at sample(), equal to the engine on getState's positions.
    Box box = triclinicBox(3.6);
    Ballistic b = ballisticSystem(900, &box, 3.2, 5);
    VerletIntegrator integrator(0.002);
    Context context(b.system, integrator, platform(), properties());
    context.setPositions(b.positions);
    context.setVelocities(b.velocities);
    RDFSampler settings(indexRange(0, 900, 2), indexRange(1, 900, 2), 1.2, 120, 1);
    AttachedRDFSampler attached(context, settings);
    unique_ptr<OpenMMNarumi::Rdf::RdfEngine> engine = engineFor(b.system, settings);
    for (int frame = 0; frame < 3; frame++) {
        integrator.step(4);
        State state = context.getState(State::Positions);
        Vec3 a, v, c;
        state.getPeriodicBoxVectors(a, v, c);
        double vectors[9] = {a[0], a[1], a[2], v[0], v[1], v[2], c[0], c[1], c[2]};
        engine->addFrame(reinterpret_cast<const double*>(state.getPositions().data()), vectors);
        attached.sample();
    }
    RDFSamplerResult result = attached.getResult();
    EXPECT_EQ(result.numFrames, 3);   // none taken by the steps themselves
    EXPECT_EQ(result.lastSampledStep, 12);
    expectResultEqualsEngine(result, *engine);
}

TEST_P(RDFSamplerTest, AttachedSamplerKeepsItsFramesWhenTheContextGoes) {
    Box box = cubicBox(3.0);
    Ballistic b = ballisticSystem(300, &box, 3.0, 3);
    RDFSampler settings(indexRange(0, 300), {}, 1.0, 50, 1);
    VerletIntegrator integrator(0.002);
    auto context = make_unique<Context>(b.system, integrator, platform(), properties());
    context->setPositions(b.positions);
    AttachedRDFSampler attached(*context, settings);
    attached.sample();
    integrator.step(2);
    attached.sample();
    RDFSamplerResult live = attached.getResult();
    EXPECT_EQ(live.numFrames, 2);
    context->reinitialize(true);   // deletes the ContextImpl that owned the sampler's kernel
    EXPECT_FALSE(attached.isAttached());
    RDFSamplerResult kept = attached.getResult();
    EXPECT_EQ(kept.numFrames, 2);
    EXPECT_EQ(kept.pairCounts, live.pairCounts);
    expectThrowsNaming([&] { attached.sample(); }, "deleted or reinitialized");
    {
        AttachedRDFSampler second(*context, settings);   // attaches to the new ContextImpl ...
        second.sample();
        context.reset();                                 // ... which is deleted before the handle
        EXPECT_FALSE(second.isAttached());
        EXPECT_EQ(second.getResult().numFrames, 1);
    }
    VerletIntegrator another(0.002);
    context = make_unique<Context>(b.system, another, platform(), properties());
    context->setPositions(b.positions);
    {
        AttachedRDFSampler third(*context, settings);
        third.sample();
    }                                                    // the handle goes first: the Context runs on without it
    another.step(3);
    expectThrowsNaming([&] { AttachedRDFSampler(*context, RDFSampler({0, 1000})); }, "selection1[1] = 1000");
}

} // namespace

#endif // NARUMI_RDF_SAMPLER_TESTS_H_
