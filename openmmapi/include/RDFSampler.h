#ifndef OPENMM_NARUMI_RDF_SAMPLER_H_
#define OPENMM_NARUMI_RDF_SAMPLER_H_

#include "internal/NarumiExport.h"
#include "openmm/Context.h"
#include "openmm/Force.h"
#include <vector>

namespace OpenMMNarumi {

/** What a Context has sampled so far; g(r) = pairCounts / (numPairsPerFrame * sumInverseVolume * shell volume). */
struct RDFSamplerResult {
    /** Ordered-pair counts per bin summed over frames (identical selections count each unordered pair twice). */
    std::vector<long long> pairCounts;
    /** Frames sampled. */
    long long numFrames = 0;
    /** Frames sampled without a periodic box (their volume must come from elsewhere: a reference volume). */
    long long framesWithoutBox = 0;
    /** Sum over frames with a periodic box of 1/V (nm^-3). */
    double sumInverseVolume = 0;
    /** Ordered pairs per frame that g(r) is normalised by: N1 N2, less the atoms in both selections and the pairs
     *  within a group. */
    long long numPairsPerFrame = 0;
    /** The step count of the last frame, -1 before the first. */
    long long lastSampledStep = -1;
};

/**
 * Radial distribution functions sampled inside the simulation, with no host synchronisation and no
 * position download.  Add it to a System like a force: it contributes no energy and no force.  At the start of each
 * time step whose step count is a multiple of the sampling interval (and was not sampled before), its kernel counts
 * the selected pairs of the Context's current positions into 64-bit histograms that stay on the platform's device
 * (on CUDA: OpenMM's own position buffer, on OpenMM's stream).  getResult() downloads them.
 *
 * The counts are those of the RDF engine (analysis/rdf, docs/rdf.md): every ordered pair (i in selection 1, j in
 * selection 2, i != j, not in one exclusion group) with rMin <= r < rMax (minimum image in a periodic System), with
 * bitwise the same pair arithmetic on every platform, so the counts equal RDFEngine's for the same frames.
 *
 * Distances in nm (in Python also length Quantities), the sampling interval in time steps.
 */
class OPENMM_EXPORT_NARUMI RDFSampler : public OpenMM::Force {
public:
    /**
     * selection1, selection2: atom indices (selection2 empty: the same as selection1).  rMax, rMin in nm; bins
     * histogram bins over [rMin, rMax); samplingInterval in time steps.  The sampler is put in force group 31,
     * alone: it computes nothing in force or energy evaluations, and a group of its own keeps it out of every group
     * selection.
     */
    explicit RDFSampler(const std::vector<int>& selection1, const std::vector<int>& selection2 = std::vector<int>(),
                        double rMax = 1.0, int bins = 200, int samplingInterval = 100, double rMin = 0.0);

    /** The atom indices of selection 1. */
    const std::vector<int>& getSelection1() const {
        return selection1;
    }
    /** Empty when it is the same as selection 1. */
    const std::vector<int>& getSelection2() const {
        return selection2;
    }
    /** Atom indices (selection2 empty: the same as selection1); checked against the System at Context creation. */
    void setSelections(const std::vector<int>& selection1, const std::vector<int>& selection2 = std::vector<int>());
    /** The lower edge of the first bin, nm. */
    double getRMin() const {
        return rMin;
    }
    /** The upper edge of the last bin, nm. */
    double getRMax() const {
        return rMax;
    }
    /** The histogram's range in nm; throws unless 0 <= rMin < rMax (finite). */
    void setRange(double rMin, double rMax);
    /** The number of histogram bins over [rMin, rMax). */
    int getNumBins() const {
        return bins;
    }
    /** The number of histogram bins; throws unless 1 <= bins <= 2^20 (the RDF engine's limit). */
    void setNumBins(int bins);
    /** Frames are taken at the start of each step whose step count is a multiple of this. */
    int getSamplingInterval() const {
        return samplingInterval;
    }
    /** The sampling interval in time steps; throws unless steps >= 1. */
    void setSamplingInterval(int steps);
    /** One integer per particle (empty: none): pairs of atoms with equal groups are not counted, e.g. the residue
     *  or molecule index, as MDAnalysis' exclusion_block. */
    const std::vector<int>& getExclusionGroups() const {
        return exclusionGroups;
    }
    /** One group per particle (checked against the System at Context creation), or empty for none. */
    void setExclusionGroups(const std::vector<int>& groupOfParticle);

    /** Downloads what context has sampled (waits for the device's queue on GPU platforms). */
    RDFSamplerResult getResult(OpenMM::Context& context) const;
    /** Discards the frames context has sampled. */
    void reset(OpenMM::Context& context) const;
    /** Samples context's current positions now, whatever the step count. */
    void sample(OpenMM::Context& context) const;
    /** The sampler follows the System's periodicity (minimum image when another force is periodic); it never
     *  makes a System periodic itself.  Settings changed after a Context was created take effect on reinitialize(). */
    bool usesPeriodicBoundaryConditions() const override {
        return false;
    }

protected:
    /** OpenMM's Force interface: the ForceImpl that a Context holds for this sampler. */
    OpenMM::ForceImpl* createImpl() const override;

private:
    friend class AttachedRDFSampler;  // reaches the ContextImpl of a Context that does not contain the sampler
    std::vector<int> selection1, selection2, exclusionGroups;
    double rMin, rMax;
    int bins, samplingInterval;
};

} // namespace OpenMMNarumi

#endif // OPENMM_NARUMI_RDF_SAMPLER_H_
