/**
 * The platform-independent API of RDFSampler: bad constructor arguments throw an OpenMMException naming the value,
 * and the sampler survives XML serialization.  (What each platform's kernel samples is tested by RDFSamplerTests.h
 * through the platforms' drivers.)
 */

#include "NarumiTestSystems.h"
#include "RDFSampler.h"
#include "openmm/serialization/XmlSerializer.h"
#include <cmath>

using namespace OpenMMNarumi::Test;
using namespace OpenMMNarumi;
using namespace OpenMM;
using namespace std;

TEST(RdfSampler, BadArgumentsThrowNamingTheValue) {
    expectThrowsNaming([] { RDFSampler({0, 1}, {}, 1.0, 0); }, "bins = 0");
    // The engine's limit, before anything of that size is allocated.
    expectThrowsNaming([] { RDFSampler({0, 1}, {}, 1.0, (1 << 20) + 1); }, "bins = 1048577 is outside 1 to 1048576");
    EXPECT_EQ(RDFSampler({0, 1}, {}, 1.0, 1 << 20).getNumBins(), 1 << 20);
    expectThrowsNaming([] { RDFSampler({0, 1}, {}, 0.5, 10, 100, 0.5); }, "rMax = 0.5");
    expectThrowsNaming([] { RDFSampler({0, 1}, {}, 1.0, 10, 100, -0.25); }, "rMin = -0.25");
    expectThrowsNaming([] { RDFSampler({0, 1}, {}, 1.0, 10, 0); }, "samplingInterval = 0");
    expectThrowsNaming([] { RDFSampler({0, 1}, {}, NAN); }, "rMax = nan");
}

TEST(RdfSampler, SerializationRoundTrip) {
    System system;
    for (int i = 0; i < 10; i++)
        system.addParticle(1.0);
    RDFSampler* sampler = new RDFSampler({0, 2, 4}, {1, 3}, 0.9, 77, 25, 0.05);
    sampler->setExclusionGroups({0, 0, 1, 1, 2, 2, 3, 3, 4, 4});
    sampler->setForceGroup(7);
    sampler->setName("water O-H");
    system.addForce(sampler);
    stringstream buffer;
    XmlSerializer::serialize<System>(&system, "System", buffer);
    unique_ptr<System> copy(XmlSerializer::deserialize<System>(buffer));
    const RDFSampler* restored = dynamic_cast<const RDFSampler*>(&copy->getForce(0));
    ASSERT_NE(restored, nullptr);
    EXPECT_EQ(restored->getSelection1(), sampler->getSelection1());
    EXPECT_EQ(restored->getSelection2(), sampler->getSelection2());
    EXPECT_EQ(restored->getExclusionGroups(), sampler->getExclusionGroups());
    EXPECT_EQ(restored->getRMin(), 0.05);
    EXPECT_EQ(restored->getRMax(), 0.9);
    EXPECT_EQ(restored->getNumBins(), 77);
    EXPECT_EQ(restored->getSamplingInterval(), 25);
    EXPECT_EQ(restored->getForceGroup(), 7);
    EXPECT_EQ(restored->getName(), "water O-H");
}
