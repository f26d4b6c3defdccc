// SWIG interface of the openmm-narumi plugin: NarumiNonbondedForce, the NonbondedForce converter and RDFSampler.
%define NARUMI_MODULE_DOCSTRING
"The C++ API of openmm-narumi in Python (SWIG): NarumiNonbondedForce, createNarumiNonbondedForce,
replaceNonbondedForces, RDFSampler, RDFSamplerResult and AttachedRDFSampler, with the C++ headers' documentation.
Units are OpenMM's (nm, e, kJ/mol); the openmmnarumi package re-exports the public names."
%enddef
%module(package="openmmnarumi", docstring=NARUMI_MODULE_DOCSTRING) narumi

%import(module="openmm") "swig/OpenMMSwigHeaders.i"
%include "swig/typemaps.i"
%include <std_string.i>
%include <std_vector.i>
%include <std_pair.i>

// The headers' export macro (internal/NarumiExport.h) means nothing to the wrapper.
#define OPENMM_EXPORT_NARUMI

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
#include "openmm/serialization/XmlSerializer.h"
#include <memory>
#include <sstream>
%}

%template(BondPair) std::pair<int, int>;
%template(BondPairs) std::vector<std::pair<int, int> >;
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

%apply double& OUTPUT {double& charge, double& sigma, double& epsilon, double& chargeProd, double& c6, double& c12};
%apply int& OUTPUT {int& particle1, int& particle2, int& type1, int& type2};

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
%pythonappend OpenMMNarumi::NarumiNonbondedForce::getLennardJonesTypePairParameters(int index, int& type1, int& type2, double& c6, double& c12) const %{
    val[2] = unit.Quantity(val[2], unit.kilojoule_per_mole*unit.nanometer**6)
    val[3] = unit.Quantity(val[3], unit.kilojoule_per_mole*unit.nanometer**12)
%}
%pythonprepend OpenMMNarumi::NarumiNonbondedForce::createExceptionsFromBonds %{
    bonds = _bondPairs(bonds)
%}
%extend OpenMMNarumi::NarumiNonbondedForce {
    %pythoncode %{
    def addParticle_usingRVdw(self, charge, rVDW, epsilon):
        """Adds a particle from its van der Waals radius (AMBER's Rmin/2, nm or a Quantity) instead of sigma, as
        NonbondedForce.addParticle_usingRVdw does: sigma = rVDW / (2^(1/6) / 2)."""
        return self.addParticle(charge, rVDW / openmm.RVDW_PER_SIGMA, epsilon)

    def addException_usingRMin(self, particle1, particle2, chargeProd, rMin, epsilon):
        """Adds an exception from the distance of the Lennard-Jones minimum (nm or a Quantity) instead of sigma, as
        NonbondedForce.addException_usingRMin does: sigma = rMin / 2^(1/6)."""
        return self.addException(particle1, particle2, chargeProd, rMin / openmm.RMIN_PER_SIGMA, epsilon)
    %}
}
%pythonbegin %{
import operator

import openmm
import openmm.unit as unit
%}
%pythoncode %{
def _nanometers(positions):
    """Positions (a Quantity, or nm in a sequence or NumPy array, each row a Vec3, tuple or Quantity) as a list of
    (x, y, z) floats in nm."""
    if unit.is_quantity(positions):
        positions = positions.value_in_unit(unit.nanometer)
    rows = []
    for row in positions:
        if unit.is_quantity(row):
            row = row.value_in_unit(unit.nanometer)
        rows.append(tuple(float(x.value_in_unit(unit.nanometer) if unit.is_quantity(x) else x) for x in row))
    return rows


def _bondPairs(bonds):
    """Any sequence of index pairs (tuples, lists, rows of a NumPy array, BondPair) as tuples of two ints."""
    pairs = []
    for bond in bonds:
        try:
            first, second = bond
            pairs.append((operator.index(first), operator.index(second)))
        except (TypeError, ValueError):
            raise TypeError(f"createExceptionsFromBonds: a bond must be a pair of particle indices, got {bond!r}") from None
    return pairs
%}

// What both forces have in Python beside OpenMM's own: cast() and isinstance() for the generic Force that
// System.getForce and XmlSerializer.deserialize return (SWIG can downcast only the classes OpenMM was built with),
// and working copies for copy.copy, copy.deepcopy and pickle (through XmlSerializer, as OpenMM's own forces).
%define NARUMI_FORCE_IN_PYTHON(CLASS, ARTICLE)
%pythonappend OpenMMNarumi::CLASS::cast(OpenMM::Force& force) %{
    val._castFrom = force  # the view must not outlive the wrapper that owns the C++ object
%}
%newobject OpenMMNarumi::CLASS::_fromXML;
%ignore OpenMMNarumi::CLASS::CLASS(const CLASS&);
%extend OpenMMNarumi::CLASS {
    /** The CLASS behind a generic Force (from System.getForce or XmlSerializer.deserialize). */
    static OpenMMNarumi::CLASS& cast(OpenMM::Force& force) {
        OpenMMNarumi::CLASS* result = dynamic_cast<OpenMMNarumi::CLASS*>(&force);
        if (result == NULL)
            throw OpenMM::OpenMMException("cast: the Force is a " + force.getName() + ", not " ARTICLE " " #CLASS);
        return *result;
    }
    /** Whether a generic Force is a CLASS. */
    static bool isinstance(OpenMM::Force& force) {
        return dynamic_cast<OpenMMNarumi::CLASS*>(&force) != NULL;
    }
    /** A new CLASS from the XML of XmlSerializer.serialize (copies and pickles). */
    static OpenMMNarumi::CLASS* _fromXML(const std::string& xml) {
        std::istringstream stream(xml);
        std::unique_ptr<OpenMM::Force> force(OpenMM::XmlSerializer::deserialize<OpenMM::Force>(stream));
        OpenMMNarumi::CLASS* result = dynamic_cast<OpenMMNarumi::CLASS*>(force.get());
        if (result == NULL)
            throw OpenMM::OpenMMException("the XML holds a " + force->getName() + ", not " ARTICLE " " #CLASS);
        force.release();
        return result;
    }
    %pythoncode %{
    def _ownership(self):
        source = self.__dict__.get("_castFrom")
        return self.this.own() if source is None else source.thisown

    def _setOwnership(self, own):
        source = self.__dict__.get("_castFrom")
        if source is None:
            self.this.own(own)
        else:
            source.thisown = own

    # A view made by cast() owns what the Force it was cast from owns, so that System.addForce takes the object
    # over from either of them (and the other one then owns nothing either).
    thisown = property(_ownership, _setOwnership, doc="Whether this wrapper owns (will delete) its C++ object")

    def __getstate__(self):
        return openmm.XmlSerializer.serialize(self)

    def __setstate__(self, state):
        self.this = self._fromXML(state).this

    def __copy__(self):
        return self._fromXML(openmm.XmlSerializer.serialize(self))

    def __deepcopy__(self, memo):
        return self.__copy__()
    %}
}
%enddef

NARUMI_FORCE_IN_PYTHON(NarumiNonbondedForce, "a")
NARUMI_FORCE_IN_PYTHON(RDFSampler, "an")

// The headers themselves, so that their doxygen comments become the Python docstrings (swig -doxygen).
%include "NarumiNonbondedForce.h"

%newobject OpenMMNarumi::createNarumiNonbondedForce;
// Positions as OpenMM's Context.setPositions takes them (a Quantity, or nm in a list or NumPy array): _nanometers
// makes them a list of (x, y, z) floats in nm, which this typemap reads.
%typemap(in) const std::vector<OpenMM::Vec3>& positions (std::vector<OpenMM::Vec3> converted) {
    PyObject* rows = PySequence_Fast($input, "positions must be a sequence of (x, y, z)");
    if (rows == NULL)
        SWIG_fail;
    Py_ssize_t count = PySequence_Fast_GET_SIZE(rows);
    converted.resize(count);
    for (Py_ssize_t i = 0; i < count && !PyErr_Occurred(); i++) {
        PyObject* row = PySequence_Fast(PySequence_Fast_GET_ITEM(rows, i), "each position must be a sequence (x, y, z)");
        if (row != NULL && PySequence_Fast_GET_SIZE(row) != 3)
            PyErr_Format(PyExc_ValueError, "position %zd has %zd coordinates, not 3", i, PySequence_Fast_GET_SIZE(row));
        for (int k = 0; row != NULL && k < 3 && !PyErr_Occurred(); k++)
            converted[i][k] = PyFloat_AsDouble(PySequence_Fast_GET_ITEM(row, k));
        Py_XDECREF(row);
    }
    Py_DECREF(rows);
    if (PyErr_Occurred())
        SWIG_fail;
    $1 = &converted;
}
%typemap(typecheck, precedence=SWIG_TYPECHECK_DOUBLE_ARRAY) const std::vector<OpenMM::Vec3>& positions {
    $1 = PySequence_Check($input) ? 1 : 0;
}
// replaceNonbondedForces takes keywords (an overloaded SWIG function cannot): a Python function over the C++ overloads.
%rename(_replaceNonbondedForces) OpenMMNarumi::replaceNonbondedForces;
%include "NonbondedForceConversion.h"
%pythoncode %{
def replaceNonbondedForces(system, positions=None, accumulationMethod=NarumiNonbondedForce.Narumi):
    """Replace every NonbondedForce of system by an equivalent NarumiNonbondedForce at the same index (same name,
    force group, particles, exceptions and settings) and return how many NarumiNonbondedForces were made.

    positions (a Quantity, or nm in a list or NumPy array) are needed to fuse the pair-table forces of OpenMM's
    GromacsTopFile, CharmmPsfFile and AmberPrmtopFile into one force, after a check on the Reference platform;
    without them such a System is refused.  accumulationMethod is the forces' NarumiNonbondedForce accumulation
    method (default Narumi; TileSums: OpenMM CUDA's scheme, not exact; README, "Accumulation methods").  A refusal raises
    OpenMMException with the System unchanged; forces after the first one replaced are copies, so get them again
    from the System.
    """
    if positions is None:
        return _replaceNonbondedForces(system, accumulationMethod)
    return _replaceNonbondedForces(system, _nanometers(positions), accumulationMethod)
%}

%feature("kwargs") OpenMMNarumi::RDFSampler::RDFSampler;
%include "RDFSampler.h"
%include "AttachedRDFSampler.h"
