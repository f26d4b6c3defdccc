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
    /** Coulomb form used inside the cutoff (with NoCutoff, ReactionField and Shifted both mean plain Coulomb, divided by
     *  the Coulomb dielectric eps_r, which is 1 unless set). */
    enum ElectrostaticsMethod {
        /** The reaction field: q1 q2 / (4 pi eps0 eps_r) (1/r + k_rf r^2 - c_rf), with the terms of excluded charges
         *  that ReactionFieldConvention chooses. */
        ReactionField = 0,
        /** The smoothed cutoff of Rodrigues et al.: q1 q2 / (4 pi eps0 eps_r r) (1 - r^2/rc^2)^2. */
        Shifted = 1,
        /** No Coulomb term at all: Lennard-Jones only (the Narumi paper's benchmark). */
        NoCoulomb = 2
    };
    /**
     * How per-atom forces and the energy are summed on a GPU.  Reference and CPU always sum in double.  Values 4-6 are
     * reserved (files of 0.2.0 may hold them) for the paper's float pairs (methods C-E), which the CUDA platform runs
     * for accuracy studies only, through its diagnostics (NARUMI_DIAGNOSTICS, docs/development.md), never as a force's
     * setting.
     */
    enum AccumulationMethod {
        /** Narumi's trick: float high part + int32 fixed-point low part per component. */
        Narumi = 0,
        /** Plain float accumulation (Narumi's method A). */
        SingleFloat = 1,
        /** Double accumulation of single-precision pair forces (Narumi's method B). */
        DoubleFloat = 2,
        /** OpenMM's own 64-bit fixed point (scale 2^32), every pair term rounded into it. */
        FixedPoint64 = 3,
        /**
         * OpenMM CUDA's scheme (opt-in; its speed: docs/benchmarks.md): each atom's terms of one tile (32 partners)
         * summed in floating point (double with Precision=double) and each tile's sum merged into 64-bit fixed point;
         * large terms (pair forces of 2^15 kJ/mol/nm or more, energies and a block's forces on itself of 128 or more)
         * go to the fixed point directly.  Deterministic, but smaller excluded terms do not cancel exactly (their float
         * rounding stays) and the net force is not exactly zero.
         */
        TileSums = 7
    };
    /**
     * What is done to each Lennard-Jones pair at the cutoff (GROMACS's vdw-modifier).  The switching function
     * (setUseSwitchingFunction) is the other way to bring Lennard-Jones to zero there; the two cannot be combined.
     */
    enum LennardJonesModifier {
        /** Nothing: the pair's Lennard-Jones energy is cut at the cutoff (OpenMM's convention; the default). */
        NoLennardJonesModifier = 0,
        /** GROMACS's Potential-shift: every non-excepted pair within the cutoff has its own Lennard-Jones energy at
         *  the cutoff subtracted, C12/rc^12 - C6/rc^6, so that it is zero there; forces are unchanged, exceptions
         *  are not shifted. */
        LennardJonesPotentialShift = 1
    };
    /**
     * Which reaction field (ElectrostaticsMethod ReactionField with a cutoff) is computed.  Both have
     * k_rf = (eps_rf - eps_r) / ((2 eps_rf + eps_r) rc^3) and c_rf = 1/rc + k_rf rc^2 (eps_r: the Coulomb dielectric,
     * eps_rf: the reaction-field dielectric, infinity allowed); they differ in what the excluded charges contribute.
     */
    enum ReactionFieldConvention {
        /** OpenMM's NonbondedForce: exception pairs get only their own plain Coulomb term (the default). */
        OpenMMReactionField = 0,
        /**
         * GROMACS's reaction field: beside OpenMM's terms, every exception pair (excluded or 1-4) closer than the
         * cutoff gets q1 q2 / (4 pi eps0 eps_r) (k_rf r^2 - c_rf) from the particles' charges, and every particle its
         * self term -q^2 c_rf / (8 pi eps0 eps_r), as GROMACS's Coulomb (SR) holds them.
         */
        GromacsReactionField = 1
    };

    /** An empty force: NoCutoff, ReactionField, Narumi accumulation, cutoff 1 nm, no switching, dispersion correction
     *  on, named "NarumiNonbondedForce" (NonbondedForce's defaults), and OpenMM's conventions: Coulomb dielectric 1, no
     *  Lennard-Jones modifier, OpenMM's reaction field, no Lennard-Jones types. */
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
    /** Narumi, SingleFloat, DoubleFloat, FixedPoint64 or TileSums; another value throws naming it. */
    void setAccumulationMethod(AccumulationMethod method);

    /** Cutoff distance in nm (default 1 nm; ignored with NoCutoff). */
    double getCutoffDistance() const;
    /** Cutoff distance in nm; it must be positive and finite. */
    void setCutoffDistance(double distance);
    /** Dielectric constant (dimensionless) of the reaction-field continuum, eps_rf (default 78.3; may be infinity). */
    double getReactionFieldDielectric() const;
    /**
     * Dielectric constant of the reaction-field continuum, eps_rf: positive, or infinity (a conducting boundary,
     * k_rf = 1/(2 rc^3)).  0 is refused: GROMACS's mdp writes 0 for infinity, which here is spelled infinity.
     */
    void setReactionFieldDielectric(double dielectric);
    /** Relative dielectric constant (dimensionless) eps_r of the medium, GROMACS's epsilon-r (default 1). */
    double getCoulombDielectric() const;
    /**
     * Relative dielectric constant eps_r (GROMACS's epsilon-r), positive and finite: the Coulomb energy of every pair
     * and exception is divided by it (as GROMACS divides its pairs' and 1-4 pairs'), and it enters k_rf.  Read when
     * the Context is created.
     */
    void setCoulombDielectric(double dielectric);
    /** What is done to Lennard-Jones pairs at the cutoff (default NoLennardJonesModifier). */
    LennardJonesModifier getLennardJonesModifier() const;
    /**
     * NoLennardJonesModifier or LennardJonesPotentialShift; another value throws naming it.  LennardJonesPotentialShift
     * needs a cutoff method, no switching function and, with CutoffPeriodic, no dispersion correction (checked at
     * Context creation).
     */
    void setLennardJonesModifier(LennardJonesModifier modifier);
    /** OpenMM's or GROMACS's reaction field (default OpenMMReactionField). */
    ReactionFieldConvention getReactionFieldConvention() const;
    /**
     * OpenMMReactionField or GromacsReactionField; another value throws naming it.  GromacsReactionField needs
     * ElectrostaticsMethod ReactionField and a cutoff method (checked at Context creation).
     */
    void setReactionFieldConvention(ReactionFieldConvention convention);
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
     * Give a particle a Lennard-Jones type (an integer >= 0), or -1 for none (the default).  Two typed particles whose
     * type pair has an entry (addLennardJonesTypePair) interact with that entry's C6 and C12; every other pair uses
     * the combination rule of the particles' own sigma and epsilon (NBFIX semantics).  Exceptions keep their own
     * parameters.  updateParametersInContext copies types.  The CUDA platform takes at most 2,048 distinct
     * (type, sigma, epsilon) combinations among the particles once any type has an entry.
     */
    void setParticleLennardJonesType(int particle, int type);
    /** A particle's Lennard-Jones type, -1 if it has none. */
    int getParticleLennardJonesType(int particle) const;
    /**
     * Add the Lennard-Jones parameters of a pair of types (in either order) from sigma (nm) and epsilon (kJ/mol),
     * stored as C6 = 4 epsilon sigma^6 and C12 = 4 epsilon sigma^12, and return the entry's index.  A second entry
     * for the same pair is an error unless replace is true (then it is overwritten and keeps its index).
     */
    int addLennardJonesTypePair(int type1, int type2, double sigma, double epsilon, bool replace = false);
    /**
     * Add the Lennard-Jones parameters of a pair of types (in either order) as C6 (kJ/mol nm^6, finite) and C12
     * (kJ/mol nm^12, finite, >= 0): the pair's energy is C12/r^12 - C6/r^6 (GROMACS's [ nonbond_params ]; C6 = 0 or
     * C12 = 0 are allowed), and return the entry's index.  A second entry for the same pair is an error unless
     * replace is true (then it is overwritten and keeps its index).
     */
    int addLennardJonesTypePair_usingC6C12(int type1, int type2, double c6, double c12, bool replace = false);
    /** The number of type-pair entries. */
    int getNumLennardJonesTypePairs() const {
        return typePairs.size();
    }
    /** A type-pair entry's types, C6 (kJ/mol nm^6) and C12 (kJ/mol nm^12); an index out of range throws naming it. */
    void getLennardJonesTypePairParameters(int index, int& type1, int& type2, double& c6, double& c12) const;
    /** Change a type-pair entry's types, C6 (kJ/mol nm^6) and C12 (kJ/mol nm^12); updateParametersInContext copies
     *  them.  A pair that another entry holds is an error. */
    void setLennardJonesTypePairParameters(int index, int type1, int type2, double c6, double c12);

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
     * Copy particle and exception parameters, Lennard-Jones types and type pairs into an existing Context (the
     * settings are read when the Context is created).  As in NonbondedForce, the exception pairs must not change, and
     * an exception that was excluded (chargeProd = epsilon = 0) when the Context was created may not start to
     * interact (an interacting one may be set to zero).
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
        int lennardJonesType;
    };
    struct ExceptionInfo {
        int particle1, particle2;
        double chargeProd, sigma, epsilon;
    };
    struct TypePairInfo {
        int type1, type2;
        double c6, c12;
    };
    void checkParticleIndex(int index) const;
    void checkExceptionIndex(int index) const;
    void checkTypePairIndex(int index) const;

    NonbondedMethod nonbondedMethod;
    ElectrostaticsMethod electrostaticsMethod;
    AccumulationMethod accumulationMethod;
    LennardJonesModifier lennardJonesModifier;
    ReactionFieldConvention reactionFieldConvention;
    double cutoffDistance, switchingDistance, reactionFieldDielectric, coulombDielectric;
    bool useSwitchingFunction, useDispersionCorrection, exceptionsUsePeriodic;
    std::vector<ParticleInfo> particles;
    std::vector<ExceptionInfo> exceptions;
    std::map<std::pair<int, int>, int> exceptionIndexOfPair; // (min, max) particle pair -> exception index
    std::vector<TypePairInfo> typePairs;
    std::map<std::pair<int, int>, int> typePairIndexOfPair;  // (min, max) type pair -> entry index
};

} // namespace OpenMMNarumi

/** The namespace's name before 0.2.0; kept for one release (deprecated). */
namespace NarumiPlugin = OpenMMNarumi;

#endif // OPENMM_NARUMI_NONBONDED_FORCE_H_
