#ifndef OPENMM_NARUMI_NONBONDED_FORCE_H_
#define OPENMM_NARUMI_NONBONDED_FORCE_H_

#include "internal/NarumiExport.h"
#include "openmm/Context.h"
#include "openmm/Force.h"
#include <map>
#include <utility>
#include <vector>

namespace OpenMMNarumi {

/**
 * A cutoff (non-Ewald) Coulomb + Lennard-Jones force that can replace OpenMM's NonbondedForce, with the same
 * parameters, methods and rules.  On GPUs it is computed in single precision with forces and energy accumulated by
 * Narumi's float + 32-bit fixed-point trick, and bonded pairs are excluded after the all-pairs pass (Narumi et al.
 * 2008).  On the Reference and CPU platforms everything is double precision; that path is the oracle every other
 * implementation is tested against.
 *
 * Units are OpenMM's: distances in nm, charges in e, energies in kJ/mol.  In Python every argument may also be an
 * openmm.unit Quantity, and the getters of distances and parameters return Quantities, as NonbondedForce's do.
 */
class OPENMM_EXPORT_NARUMI NarumiNonbondedForce : public OpenMM::Force {
public:
    /** How long-range interactions are treated (same values as OpenMM's NonbondedForce). */
    enum NonbondedMethod {
        /** Every pair interacts; Coulomb is the plain 1/r sum. */
        NoCutoff = 0,
        /** Pairs beyond the cutoff are ignored; no periodic images. */
        CutoffNonPeriodic = 1,
        /** Pairs beyond the cutoff are ignored; minimum-image convention in a rectangular or triclinic box. */
        CutoffPeriodic = 2
    };
    /** Coulomb form used inside the cutoff (with NoCutoff, ReactionField and Shifted both mean plain Coulomb). */
    enum ElectrostaticsMethod {
        /** OpenMM's reaction field: q1 q2 / (4 pi eps0) (1/r + k_rf r^2 - c_rf). */
        ReactionField = 0,
        /** The smoothed cutoff of Rodrigues et al.: q1 q2 / (4 pi eps0 r) (1 - r^2/rc^2)^2. */
        Shifted = 1,
        /** No Coulomb term at all: Lennard-Jones only (the Narumi paper's benchmark). */
        NoCoulomb = 2
    };
    /**
     * How per-atom forces and the energy are summed on a GPU.  Reference and CPU always sum in double.  Values 4-6 are
     * reserved for the paper's float pairs (methods C-E), which the CUDA platform runs for accuracy studies only,
     * through its diagnostics (NARUMI_DIAGNOSTICS, docs/development.md), never as a force's setting.
     */
    enum AccumulationMethod {
        /** Narumi's trick: float high part + int32 fixed-point low part per component. */
        Narumi = 0,
        /** Plain float accumulation (Narumi's method A). */
        SingleFloat = 1,
        /** Double accumulation of single-precision pair forces (Narumi's method B). */
        DoubleFloat = 2,
        /** OpenMM's own 64-bit fixed point (scale 2^32). */
        FixedPoint64 = 3
    };

    /** An empty force: NoCutoff, ReactionField, Narumi accumulation, cutoff 1 nm, no switching, dispersion correction
     *  on, named "NarumiNonbondedForce" (NonbondedForce's defaults). */
    NarumiNonbondedForce();

    /** The number of particles (the System's, once all are added). */
    int getNumParticles() const {
        return particles.size();
    }
    /** The number of exceptions (excluded or modified pairs). */
    int getNumExceptions() const {
        return exceptions.size();
    }

    /** NoCutoff, CutoffNonPeriodic or CutoffPeriodic (default NoCutoff, as in NonbondedForce). */
    NonbondedMethod getNonbondedMethod() const;
    /** NoCutoff, CutoffNonPeriodic or CutoffPeriodic; another value throws naming it. */
    void setNonbondedMethod(NonbondedMethod method);
    /** ReactionField (default), Shifted or NoCoulomb. */
    ElectrostaticsMethod getElectrostaticsMethod() const;
    /** ReactionField, Shifted or NoCoulomb; another value throws naming it. */
    void setElectrostaticsMethod(ElectrostaticsMethod method);
    /** How a GPU sums forces and energy (default Narumi); Reference and CPU always sum in double. */
    AccumulationMethod getAccumulationMethod() const;
    /** Narumi, SingleFloat, DoubleFloat or FixedPoint64; another value throws naming it. */
    void setAccumulationMethod(AccumulationMethod method);

    /** Cutoff distance in nm (default 1 nm; ignored with NoCutoff). */
    double getCutoffDistance() const;
    /** Cutoff distance in nm; it must be positive and finite. */
    void setCutoffDistance(double distance);
    /** Dielectric constant (dimensionless) of the reaction-field continuum (default 78.3). */
    double getReactionFieldDielectric() const;
    /** Dielectric constant of the reaction-field continuum; it must be positive. */
    void setReactionFieldDielectric(double dielectric);
    /** Whether Lennard-Jones is smoothed to zero between the switching distance and the cutoff (OpenMM's polynomial). */
    bool getUseSwitchingFunction() const;
    /** Turn Lennard-Jones switching on or off. */
    void setUseSwitchingFunction(bool use);
    /** Where Lennard-Jones switching starts, in nm (used when switching is on; must lie below the cutoff; default -1:
     *  not set). */
    double getSwitchingDistance() const;
    /** Where Lennard-Jones switching starts, in nm: 0 <= distance < cutoff while switching is on (with every method, as
     *  in NonbondedForce), checked at Context creation. */
    void setSwitchingDistance(double distance);
    /** Whether the isotropic long-range Lennard-Jones correction is added (periodic systems only; OpenMM's formula;
     *  default true). */
    bool getUseDispersionCorrection() const;
    /** Turn the long-range dispersion correction on or off (it applies to CutoffPeriodic only). */
    void setUseDispersionCorrection(bool use);
    /** Whether exceptions use the minimum-image convention (OpenMM's default: false). */
    bool getExceptionsUsePeriodicBoundaryConditions() const;
    /** Whether exceptions use the minimum-image convention. */
    void setExceptionsUsePeriodicBoundaryConditions(bool periodic);

    /** Add a particle (charge in e, sigma in nm, epsilon in kJ/mol) and return its index. */
    int addParticle(double charge, double sigma, double epsilon);
    /** A particle's charge (e), sigma (nm) and epsilon (kJ/mol); an index out of range throws naming it. */
    void getParticleParameters(int index, double& charge, double& sigma, double& epsilon) const;
    /** Change a particle's charge (e), sigma (nm) and epsilon (kJ/mol); updateParametersInContext copies them. */
    void setParticleParameters(int index, double charge, double sigma, double epsilon);

    /**
     * Add an exception and return its index: particles particle1 and particle2 interact with chargeProd (e^2), sigma
     * (nm) and epsilon (kJ/mol) instead of the combined parameters, with plain Coulomb and no cutoff, as in
     * NonbondedForce.  chargeProd = epsilon = 0 excludes the pair.  A second exception for the same pair is an error
     * unless replace is true.
     */
    int addException(int particle1, int particle2, double chargeProd, double sigma, double epsilon, bool replace = false);
    /** An exception's particles, charge product (e^2), sigma (nm) and epsilon (kJ/mol). */
    void getExceptionParameters(int index, int& particle1, int& particle2, double& chargeProd, double& sigma, double& epsilon) const;
    /** Change an exception's particles, charge product (e^2), sigma (nm) and epsilon (kJ/mol); its pair must stay the
     *  same once a Context exists. */
    void setExceptionParameters(int index, int particle1, int particle2, double chargeProd, double sigma, double epsilon);

    /**
     * Exclude 1-2 and 1-3 pairs of a bond graph (bonds: pairs of particle indices) and add 1-4 exceptions whose
     * charge product and epsilon are the combined ones scaled by coulomb14Scale and lj14Scale (dimensionless factors,
     * e.g. AMBER's 0.8333 and 0.5), exactly as NonbondedForce::createExceptionsFromBonds does (same exceptions, same
     * order).  Call it after all particles are added.  As in NonbondedForce, an exception added before for one of
     * these pairs is an error; then nothing is added.
     */
    void createExceptionsFromBonds(const std::vector<std::pair<int, int> >& bonds, double coulomb14Scale, double lj14Scale);

    /**
     * Copy particle and exception parameters into an existing Context.  As in NonbondedForce, the exception pairs must
     * not change, and an exception that was excluded (chargeProd = epsilon = 0) when the Context was created may not
     * start to interact (an interacting one may be set to zero).
     */
    void updateParametersInContext(OpenMM::Context& context);

    /** True for CutoffPeriodic. */
    bool usesPeriodicBoundaryConditions() const override {
        return nonbondedMethod == CutoffPeriodic;
    }

protected:
    /** OpenMM's Force interface: the ForceImpl that a Context holds for this force. */
    OpenMM::ForceImpl* createImpl() const override;

private:
    struct ParticleInfo {
        double charge, sigma, epsilon;
    };
    struct ExceptionInfo {
        int particle1, particle2;
        double chargeProd, sigma, epsilon;
    };
    void checkParticleIndex(int index) const;
    void checkExceptionIndex(int index) const;

    NonbondedMethod nonbondedMethod;
    ElectrostaticsMethod electrostaticsMethod;
    AccumulationMethod accumulationMethod;
    double cutoffDistance, switchingDistance, reactionFieldDielectric;
    bool useSwitchingFunction, useDispersionCorrection, exceptionsUsePeriodic;
    std::vector<ParticleInfo> particles;
    std::vector<ExceptionInfo> exceptions;
    std::map<std::pair<int, int>, int> exceptionIndexOfPair; // (min, max) particle pair -> exception index
};

} // namespace OpenMMNarumi

/** The namespace's name before 0.2.0; kept for one release (deprecated). */
namespace NarumiPlugin = OpenMMNarumi;

#endif // OPENMM_NARUMI_NONBONDED_FORCE_H_
