// SWIG interface of the openmm-narumi plugin: NarumiNonbondedForce, the NonbondedForce converter and RDFSampler.
%module(package="openmmnarumi") narumi

%import(module="openmm") "swig/OpenMMSwigHeaders.i"
%include "swig/typemaps.i"
%include <std_string.i>
%include <std_vector.i>
%include <std_pair.i>

%{
#include "NarumiNonbondedForce.h"
#include "NonbondedForceConversion.h"
#include "RDFSampler.h"
#include "AttachedRDFSampler.h"
#include "OpenMM.h"
#include "OpenMMAmoeba.h"
#include "OpenMMDrude.h"
#include "openmm/RPMDIntegrator.h"
#include "openmm/RPMDMonteCarloBarostat.h"
%}

%template(BondPairs) std::vector<std::pair<int, int> >;
%template(BondPair) std::pair<int, int>;
%template(IntVector) std::vector<int>;
%template(LongLongVector) std::vector<long long>;

// C++ exceptions become openmm.OpenMMException, the class OpenMM's own wrappers raise.
%exception {
    try {
        $action
    } catch (std::exception& e) {
        PyObject* openmmModule = PyImport_ImportModule("openmm");
        PyObject* exceptionType = (openmmModule ? PyObject_GetAttrString(openmmModule, "OpenMMException") : NULL);
        PyErr_SetString(exceptionType ? exceptionType : PyExc_Exception, e.what());
        Py_XDECREF(exceptionType);
        Py_XDECREF(openmmModule);
        SWIG_fail;
    }
}

%apply double& OUTPUT {double& charge, double& sigma, double& epsilon, double& chargeProd};
%apply int& OUTPUT {int& particle1, int& particle2};

// Getters return quantities in OpenMM's unit system, as NonbondedForce's do; setters accept plain numbers or quantities.
%pythonappend OpenMMNarumi::NarumiNonbondedForce::getCutoffDistance() const %{
    val = unit.Quantity(val, unit.nanometer)
%}
%pythonappend OpenMMNarumi::NarumiNonbondedForce::getSwitchingDistance() const %{
    val = unit.Quantity(val, unit.nanometer)
%}
%pythonappend OpenMMNarumi::NarumiNonbondedForce::getParticleParameters(int index, double& charge, double& sigma, double& epsilon) const %{
    val[0] = unit.Quantity(val[0], unit.elementary_charge)
    val[1] = unit.Quantity(val[1], unit.nanometer)
    val[2] = unit.Quantity(val[2], unit.kilojoule_per_mole)
%}
%pythonappend OpenMMNarumi::NarumiNonbondedForce::getExceptionParameters(int index, int& particle1, int& particle2, double& chargeProd, double& sigma, double& epsilon) const %{
    val[2] = unit.Quantity(val[2], unit.elementary_charge*unit.elementary_charge)
    val[3] = unit.Quantity(val[3], unit.nanometer)
    val[4] = unit.Quantity(val[4], unit.kilojoule_per_mole)
%}
%pythonappend OpenMMNarumi::NarumiNonbondedForce::cast(OpenMM::Force& force) %{
    val._castFrom = force  # the view must not outlive the wrapper that owns the C++ object
%}
%pythonbegin %{
import openmm.unit as unit
%}

namespace OpenMMNarumi {

class NarumiNonbondedForce : public OpenMM::Force {
public:
    enum NonbondedMethod { NoCutoff = 0, CutoffNonPeriodic = 1, CutoffPeriodic = 2 };
    enum ElectrostaticsMethod { ReactionField = 0, Shifted = 1, NoCoulomb = 2 };
    enum AccumulationMethod { Narumi = 0, SingleFloat = 1, DoubleFloat = 2, FixedPoint64 = 3, TakahashiIitaka = 4, Nitadori = 5,
                              ModifiedNitadori = 6 };

    NarumiNonbondedForce();
    int getNumParticles() const;
    int getNumExceptions() const;
    NonbondedMethod getNonbondedMethod() const;
    void setNonbondedMethod(NonbondedMethod method);
    ElectrostaticsMethod getElectrostaticsMethod() const;
    void setElectrostaticsMethod(ElectrostaticsMethod method);
    AccumulationMethod getAccumulationMethod() const;
    void setAccumulationMethod(AccumulationMethod method);
    double getCutoffDistance() const;
    void setCutoffDistance(double distance);
    double getReactionFieldDielectric() const;
    void setReactionFieldDielectric(double dielectric);
    bool getUseSwitchingFunction() const;
    void setUseSwitchingFunction(bool use);
    double getSwitchingDistance() const;
    void setSwitchingDistance(double distance);
    bool getUseDispersionCorrection() const;
    void setUseDispersionCorrection(bool use);
    bool getExceptionsUsePeriodicBoundaryConditions() const;
    void setExceptionsUsePeriodicBoundaryConditions(bool periodic);
    int addParticle(double charge, double sigma, double epsilon);
    void getParticleParameters(int index, double& charge, double& sigma, double& epsilon) const;
    void setParticleParameters(int index, double charge, double sigma, double epsilon);
    int addException(int particle1, int particle2, double chargeProd, double sigma, double epsilon, bool replace = false);
    void getExceptionParameters(int index, int& particle1, int& particle2, double& chargeProd, double& sigma, double& epsilon) const;
    void setExceptionParameters(int index, int particle1, int particle2, double chargeProd, double sigma, double epsilon);
    void createExceptionsFromBonds(const std::vector<std::pair<int, int> >& bonds, double coulomb14Scale, double lj14Scale);
    void updateParametersInContext(OpenMM::Context& context);
    bool usesPeriodicBoundaryConditions() const;

    %extend {
        /** The NarumiNonbondedForce behind a generic Force (from System.getForce or XmlSerializer.deserialize). */
        static OpenMMNarumi::NarumiNonbondedForce& cast(OpenMM::Force& force) {
            OpenMMNarumi::NarumiNonbondedForce* narumi = dynamic_cast<OpenMMNarumi::NarumiNonbondedForce*>(&force);
            if (narumi == NULL)
                throw OpenMM::OpenMMException("cast: the Force is a " + force.getName() + ", not a NarumiNonbondedForce");
            return *narumi;
        }
        static bool isinstance(OpenMM::Force& force) {
            return dynamic_cast<OpenMMNarumi::NarumiNonbondedForce*>(&force) != NULL;
        }
    }
};

%newobject createNarumiNonbondedForce;
NarumiNonbondedForce* createNarumiNonbondedForce(const OpenMM::NonbondedForce& force);
int replaceNonbondedForces(OpenMM::System& system);


/** What a Context's RDFSampler has sampled so far (RDFSampler.getResult). */
struct RDFSamplerResult {
    std::vector<long long> pairCounts;
    long long numFrames;
    long long framesWithoutBox;
    double sumInverseVolume;
    long long numPairsPerFrame;
    long long lastSampledStep;
};

%feature("kwargs") RDFSampler::RDFSampler;
%pythonappend RDFSampler::cast(OpenMM::Force& force) %{
    val._castFrom = force  # the view must not outlive the wrapper that owns the C++ object
%}

/**
 * Radial distribution functions sampled inside the simulation (on CUDA: from OpenMM's own position buffer, on its
 * stream, no download).  Add it to the System; it contributes no energy or force.  Distances in nm.
 */
class RDFSampler : public OpenMM::Force {
public:
    RDFSampler(const std::vector<int>& selection1, const std::vector<int>& selection2 = std::vector<int>(),
               double rMax = 1.0, int bins = 200, int samplingInterval = 100, double rMin = 0.0);
    const std::vector<int>& getSelection1() const;
    const std::vector<int>& getSelection2() const;
    void setSelections(const std::vector<int>& selection1, const std::vector<int>& selection2 = std::vector<int>());
    double getRMin() const;
    double getRMax() const;
    void setRange(double rMin, double rMax);
    int getNumBins() const;
    void setNumBins(int bins);
    int getSamplingInterval() const;
    void setSamplingInterval(int steps);
    const std::vector<int>& getExclusionGroups() const;
    void setExclusionGroups(const std::vector<int>& groupOfParticle);
    RDFSamplerResult getResult(OpenMM::Context& context) const;
    void reset(OpenMM::Context& context) const;
    void sample(OpenMM::Context& context) const;
    bool usesPeriodicBoundaryConditions() const;

    %extend {
        /** The RDFSampler behind a generic Force (from System.getForce or XmlSerializer.deserialize). */
        static OpenMMNarumi::RDFSampler& cast(OpenMM::Force& force) {
            OpenMMNarumi::RDFSampler* sampler = dynamic_cast<OpenMMNarumi::RDFSampler*>(&force);
            if (sampler == NULL)
                throw OpenMM::OpenMMException("cast: the Force is a " + force.getName() + ", not an RDFSampler");
            return *sampler;
        }
        static bool isinstance(OpenMM::Force& force) {
            return dynamic_cast<OpenMMNarumi::RDFSampler*>(&force) != NULL;
        }
    }
};

/**
 * An RDFSampler attached to a Context that already exists (its System need not contain it): frames are taken from
 * the Context's own positions when sample() is called; RDFReporter uses it.  The Context owns the sampler's kernel;
 * after the Context is deleted or reinitialized, getResult() still returns the frames taken until then.
 */
class AttachedRDFSampler {
public:
    AttachedRDFSampler(OpenMM::Context& context, const RDFSampler& settings);
    ~AttachedRDFSampler();
    void sample();
    RDFSamplerResult getResult() const;
    bool isAttached() const;
    const RDFSampler& getSettings() const;
};

}
