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

// The headers themselves, so that their doxygen comments become the Python docstrings (swig -doxygen).
%ignore OpenMMNarumi::NarumiNonbondedForce::NarumiNonbondedForce(const NarumiNonbondedForce&);
%extend OpenMMNarumi::NarumiNonbondedForce {
    /** The NarumiNonbondedForce behind a generic Force (from System.getForce or XmlSerializer.deserialize). */
    static OpenMMNarumi::NarumiNonbondedForce& cast(OpenMM::Force& force) {
        OpenMMNarumi::NarumiNonbondedForce* narumi = dynamic_cast<OpenMMNarumi::NarumiNonbondedForce*>(&force);
        if (narumi == NULL)
            throw OpenMM::OpenMMException("cast: the Force is a " + force.getName() + ", not a NarumiNonbondedForce");
        return *narumi;
    }
    /** Whether a generic Force is a NarumiNonbondedForce. */
    static bool isinstance(OpenMM::Force& force) {
        return dynamic_cast<OpenMMNarumi::NarumiNonbondedForce*>(&force) != NULL;
    }
}
%include "NarumiNonbondedForce.h"

%newobject OpenMMNarumi::createNarumiNonbondedForce;
%include "NonbondedForceConversion.h"

%feature("kwargs") OpenMMNarumi::RDFSampler::RDFSampler;
%pythonappend OpenMMNarumi::RDFSampler::cast(OpenMM::Force& force) %{
    val._castFrom = force  # the view must not outlive the wrapper that owns the C++ object
%}
%ignore OpenMMNarumi::RDFSampler::RDFSampler(const RDFSampler&);
%extend OpenMMNarumi::RDFSampler {
    /** The RDFSampler behind a generic Force (from System.getForce or XmlSerializer.deserialize). */
    static OpenMMNarumi::RDFSampler& cast(OpenMM::Force& force) {
        OpenMMNarumi::RDFSampler* sampler = dynamic_cast<OpenMMNarumi::RDFSampler*>(&force);
        if (sampler == NULL)
            throw OpenMM::OpenMMException("cast: the Force is a " + force.getName() + ", not an RDFSampler");
        return *sampler;
    }
    /** Whether a generic Force is an RDFSampler. */
    static bool isinstance(OpenMM::Force& force) {
        return dynamic_cast<OpenMMNarumi::RDFSampler*>(&force) != NULL;
    }
}
%include "RDFSampler.h"
%include "AttachedRDFSampler.h"
