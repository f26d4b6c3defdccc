"""The API reference (docs/api, built from the docstrings) is complete: every public class, function, method and
property of the Python API has a docstring, every public constant a "#:" comment, and every public module and
re-exported constant a place in docs/api.  The walk covers the public modules' __all__ and the SWIG module's classes,
down to the members that this package's classes define (not those inherited from OpenMM, MDAnalysis or object)."""
import importlib
import inspect
import pathlib
import re
import types

import pytest

import openmmnarumi

#: The public modules: their __all__ is the API (docs/python-api.md), each documented in docs/api.
PUBLIC_MODULES = ["openmmnarumi", "openmmnarumi.rdf", "openmmnarumi.potentialmap", "openmmnarumi.hcp",
                  "openmmnarumi.pqr", "openmmnarumi.check", "openmmnarumi.mdanalysis", "openmmnarumi.gromacs"]
#: SWIG's wrappers of std::pair and std::vector (narumi.i's %template): containers, not this project's API.
SWIG_CONTAINERS = {"BondPair", "BondPairs", "IntVector", "LongLongVector", "SwigPyIterator"}
#: pybind11 writes a signature line ("name(self: T, x: float) -> None") where a binding has no docstring.
PYBIND11_SIGNATURE = re.compile(r"^\s*(\d+\. )?\w+\(.*\)( -> .+)?\s*$")
PYBIND11_OVERLOADED = "Overloaded function."
DOCS_API = pathlib.Path(__file__).resolve().parents[2] / "docs" / "api"


def documentation(obj):
    """obj's docstring without what tools generate: pybind11's signature lines, and the docstring of an int (a SWIG
    enum value) or of any other instance's type."""
    if isinstance(obj, (property, types.FunctionType, types.ModuleType, type)):
        doc = obj.__doc__
    elif inspect.isroutine(obj) or inspect.isdatadescriptor(obj):
        doc = inspect.getdoc(obj)
    else:
        doc = None  # an instance: its __doc__ is its type's
    if doc is None:
        return ""
    lines = [line for line in doc.splitlines() if not PYBIND11_SIGNATURE.match(line)
             and line.strip() != PYBIND11_OVERLOADED]
    return "\n".join(lines).strip()


def members(name, obj):
    """(dotted name, object) of obj and, for a class, of its public methods and properties that openmmnarumi's
    classes define (the class's own and its openmmnarumi base classes')."""
    yield name, obj
    if not inspect.isclass(obj):
        return
    for cls in obj.__mro__:
        if not cls.__module__.startswith("openmmnarumi"):
            continue  # OpenMM's, MDAnalysis', pybind11's and object's members are documented there
        for memberName, member in vars(cls).items():
            if isinstance(member, (staticmethod, classmethod)):
                member = member.__func__
            if not memberName.startswith("_") and (inspect.isroutine(member) or inspect.isdatadescriptor(member)):
                yield f"{name}.{memberName}", member


def undocumented(name, obj):
    """The dotted names of obj and its members (see members) that have no docstring."""
    return [memberName for memberName, member in members(name, obj) if not documentation(member)]


def publicObjects():
    """(dotted name, object) of every public module, of the classes and routines in their __all__, and of the SWIG
    module and its classes and functions."""
    objects = {}
    for moduleName in PUBLIC_MODULES:
        module = importlib.import_module(moduleName)
        objects[moduleName] = module
        for name in module.__all__:
            value = getattr(module, name)
            if inspect.isclass(value) or inspect.isroutine(value):
                objects[f"{moduleName}.{name}"] = value
    narumi = openmmnarumi.narumi
    objects[narumi.__name__] = narumi
    for name, value in vars(narumi).items():
        if not name.startswith("_") and name not in SWIG_CONTAINERS and (
                inspect.isclass(value) and value.__module__ == narumi.__name__ or inspect.isfunction(value)):
            objects[f"{narumi.__name__}.{name}"] = value
    return objects


def publicConstants():
    """(module name, name) of every name in the public modules' __all__ that is no class, routine or module."""
    constants = []
    for moduleName in PUBLIC_MODULES:
        module = importlib.import_module(moduleName)
        for name in module.__all__:
            value = getattr(module, name)
            if not (inspect.isclass(value) or inspect.isroutine(value) or inspect.ismodule(value)):
                constants.append((moduleName, name))
    return constants


def hasAttributeDoc(name, sources):
    """Whether one of the sources assigns name under a "#:" comment, or with one on the same line: autodoc's
    documentation of a constant."""
    pattern = re.compile(rf"^#:.*\n(?:#:.*\n)*{name} = |^{name} = .*#: ", re.MULTILINE)
    return any(pattern.search(source) for source in sources)


def referenceText():
    return "".join(path.read_text() for path in sorted(DOCS_API.glob("*.rst")))


def test_every_public_name_has_a_docstring():
    missing = sorted({item for name, value in publicObjects().items() for item in undocumented(name, value)})
    assert not missing, "public names without a docstring:\n  " + "\n  ".join(missing)


def test_the_walk_reaches_every_kind_of_member():
    """The walk visits SWIG methods and static methods, the properties of a SWIG struct, pybind11 methods and
    properties inherited from the compiled base class, Python properties and MDAnalysis classes' own methods (so an
    empty walk cannot pass the test above)."""
    visited = {memberName for name, value in publicObjects().items() for memberName, _ in members(name, value)}
    for name in ["openmmnarumi.NarumiNonbondedForce.addException", "openmmnarumi.NarumiNonbondedForce.cast",
                 "openmmnarumi.narumi.RDFSamplerResult.sumInverseVolume",
                 "openmmnarumi.narumi.AttachedRDFSampler.sample", "openmmnarumi.narumi.createNarumiNonbondedForce",
                 "openmmnarumi.rdf.RDFEngine.binCenters", "openmmnarumi.rdf.RDFEngine.numFrames",
                 "openmmnarumi.hcp.SurfacePotential.electrostaticSize",
                 "openmmnarumi.mdanalysis.InterRDF.deviceForPart",
                 "openmmnarumi.pqr.readPQR", "openmmnarumi.check.main"]:
        assert name in visited, name


def test_an_undocumented_member_is_found():
    """The check fails where it should: a method, a property, a static method, a function and a pybind11-style
    signature-only docstring without text are each reported; documented ones are not."""

    class Documented:
        """A class."""
        __module__ = "openmmnarumi.fake"

        def method(self):
            """Does something (nm)."""

        def bare(self):
            pass

        @property
        def value(self):
            return 1

        @staticmethod
        def factory():
            pass

    def bareFunction():
        pass

    def signatureOnly():
        pass
    signatureOnly.__doc__ = "signatureOnly(self: openmmnarumi._rdf.RDFEngine) -> None\n"
    assert undocumented("Documented", Documented) == ["Documented.bare", "Documented.value", "Documented.factory"]
    assert undocumented("bareFunction", bareFunction) == ["bareFunction"]
    assert undocumented("signatureOnly", signatureOnly) == ["signatureOnly"]
    assert documentation(Documented.method) == "Does something (nm)."


@pytest.mark.parametrize("name", ["NoCutoff", "Narumi", "ReactionField"])
def test_enum_values_do_not_count_as_documented(name):
    """SWIG's enum values are ints, whose __doc__ is int's own: that is no documentation of theirs."""
    assert documentation(getattr(openmmnarumi.NarumiNonbondedForce, name)) == ""


def test_every_public_constant_is_documented_in_the_reference():
    """Each constant has a "#:" comment where it is assigned, and the reference shows it: autodoc finds the constants
    that the documented module assigns itself; re-exported ones need an autodata line in docs/api."""
    sources = [path.read_text() for path in pathlib.Path(openmmnarumi.__file__).parent.rglob("*.py")]
    reference = referenceText()
    constants = publicConstants()
    assert ("openmmnarumi.hcp", "DEFAULT_THRESHOLDS") in constants
    assert ("openmmnarumi", "COULOMB_CONSTANT") in constants
    for moduleName, name in constants:
        assert hasAttributeDoc(name, sources), f"{moduleName}.{name} has no '#:' comment where it is assigned"
        assignedThere = hasAttributeDoc(name, [inspect.getsource(importlib.import_module(moduleName))])
        assert assignedThere or f".. autodata:: {moduleName}.{name}\n" in reference, \
            f"{moduleName}.{name} is missing from docs/api (add an autodata line)"


def test_every_public_module_is_in_the_reference():
    reference = referenceText()
    for moduleName in PUBLIC_MODULES:
        assert f".. automodule:: {moduleName}\n" in reference, f"{moduleName} is missing from docs/api"
