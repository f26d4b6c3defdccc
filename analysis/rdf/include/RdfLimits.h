#ifndef NARUMI_RDF_LIMITS_H_
#define NARUMI_RDF_LIMITS_H_

/** Limits of the RDF engine that its users (RDFSampler) check before allocating anything. */

namespace OpenMMNarumi::Rdf {

/** The most bins: bin indices stay exact integers in the engine's float bin arithmetic. */
constexpr int MAX_BINS = 1 << 20;

} // namespace OpenMMNarumi::Rdf

#endif // NARUMI_RDF_LIMITS_H_
