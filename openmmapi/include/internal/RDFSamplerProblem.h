#ifndef OPENMM_NARUMI_RDF_SAMPLER_PROBLEM_H_
#define OPENMM_NARUMI_RDF_SAMPLER_PROBLEM_H_

/**
 * What every platform's RDFSampler kernel does first: the RDF engine's problem for a sampler in a System (its
 * selections, range, bins, exclusion groups, checked against the System's default box), with bad input reported as
 * an OpenMMException "RDFSampler: <the engine's message naming the value>" when the Context is created.  Only the
 * platforms' kernels include this header (they link the RDF engine); the API library itself needs no engine.
 */

#include "RDFSampler.h"
#include "RdfEngine.h"
#include "openmm/OpenMMException.h"
#include "openmm/System.h"
#include <stdexcept>
#include <string>

namespace OpenMMNarumi {

inline Rdf::RdfProblem rdfSamplerProblem(const OpenMM::System& system, const RDFSampler& sampler, Rdf::Backend backend) {
    Rdf::RdfSettings settings;
    settings.rMin = sampler.getRMin();
    settings.rMax = sampler.getRMax();
    settings.bins = sampler.getNumBins();
    settings.backend = backend;
    OpenMM::Vec3 defaultBox[3];
    system.getDefaultPeriodicBoxVectors(defaultBox[0], defaultBox[1], defaultBox[2]);
    try {
        return Rdf::buildSamplerProblem(system.getNumParticles(), sampler.getSelection1(), sampler.getSelection2(), settings,
                                        sampler.getExclusionGroups(),
                                        system.usesPeriodicBoundaryConditions() ? &defaultBox[0][0] : nullptr);
    }
    catch (const std::invalid_argument& error) {
        throw OpenMM::OpenMMException(std::string("RDFSampler: ") + error.what());
    }
}

} // namespace OpenMMNarumi

#endif // OPENMM_NARUMI_RDF_SAMPLER_PROBLEM_H_
