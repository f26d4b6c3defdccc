"""The Python API's one naming convention (docs/python-api.md): public names are CapWords or camelCase, every old
name still works for one release and warns with its replacement, the shared helpers are one object, and the defaults
agree (kT/e at 300 K everywhere)."""
import inspect
import os
import re
import subprocess
import sys

import numpy as np
import openmm
import openmm.app as app
import openmm.unit as unit
import pytest

import openmmnarumi
from openmmnarumi import gromacs, hcp, potentialmap, rdf

PACKAGES = [openmmnarumi, rdf, potentialmap, hcp, gromacs]
PUBLIC_NAME = re.compile(r"^([A-Z][A-Za-z0-9]*|[a-z][A-Za-z0-9]*|[A-Z][A-Z0-9_]*)$")  # CapWords, camelCase, CONSTANT


def water_topology(molecules):
    topology = app.Topology()
    chain = topology.addChain()
    for _ in range(molecules):
        residue = topology.addResidue("HOH", chain)
        oxygen = topology.addAtom("O", app.element.oxygen, residue)
        for name in ("H1", "H2"):
            topology.addBond(oxygen, topology.addAtom(name, app.element.hydrogen, residue))
    return topology


def small_molecule():
    """Two residues of three atoms: positions (nm), charges (e) and the hierarchy."""
    positions = np.array([[0.0, 0, 0], [0.12, 0, 0], [0, 0.13, 0], [0.5, 0.1, 0], [0.6, 0.2, 0], [0.55, 0, 0.1]])
    charges = np.array([-0.8, 0.4, 0.4, 0.5, -0.2, -0.3])
    return positions, charges, ([0, 0, 0, 1, 1, 1], [0, 0], [0])


#: The OpenMM class a class stands in for: its members keep OpenMM's names.
OPENMM_COUNTERPARTS = {"NarumiNonbondedForce": openmm.NonbondedForce}
#: OpenMM's name for another parameterisation of a method (NonbondedForce.addParticle_usingRVdw): such a class's
#: own methods of that form follow OpenMM (NarumiNonbondedForce.addLennardJonesTypePair_usingC6C12).
OPENMM_ALTERNATIVE_FORM = re.compile(r"^[a-z][A-Za-z0-9]*_using[A-Z][A-Za-z0-9]*$")


@pytest.mark.parametrize("package", PACKAGES, ids=lambda p: p.__name__)
def test_public_names_follow_the_convention(package):
    for name in package.__all__:
        assert hasattr(package, name), f"{package.__name__}.{name} is in __all__ but missing"
        assert PUBLIC_NAME.match(name), f"{package.__name__}.{name} is neither CapWords, camelCase nor a CONSTANT"
        value = getattr(package, name)
        if inspect.isclass(value) and value.__module__.startswith("openmmnarumi.") and "_" not in value.__module__:
            for member, _ in inspect.getmembers(value):
                if hasattr(OPENMM_COUNTERPARTS.get(name), member):
                    continue  # OpenMM's own name (NonbondedForce.addParticle_usingRVdw): a drop-in keeps it
                if name in OPENMM_COUNTERPARTS and OPENMM_ALTERNATIVE_FORM.match(member):
                    continue
                if not member.startswith("_") and "_" in member:
                    # the only snake_case members are the deprecated aliases, and they warn
                    assert "Deprecated alias" in (inspect.getattr_static(value, member).__doc__ or ""), \
                        f"{name}.{member}"


def test_import_does_not_warn():
    subprocess.run([sys.executable, "-W", "error::DeprecationWarning", "-c",
                    "import openmmnarumi, openmmnarumi.rdf, openmmnarumi.potentialmap, openmmnarumi.hcp"], check=True)


def test_one_shared_helper_per_job():
    assert potentialmap.chargesFromSystem is hcp.chargesFromSystem
    assert potentialmap.DEFAULT_TEMPERATURE == hcp.DEFAULT_TEMPERATURE == 300.0
    # One conversion: hcp's units are a subset of potentialmap's, with the same factors.
    values = np.array([1.0, -2.5])
    for units in hcp.UNITS:
        assert np.allclose(hcp.convertPotential(values, units), values * potentialmap.unitFactor(units))


def test_charges_from_either_force():
    topology = water_topology(2)
    forcefield = app.ForceField("amber14/tip3p.xml")
    system = forcefield.createSystem(topology, nonbondedMethod=app.NoCutoff)
    charges = potentialmap.chargesFromSystem(system)
    assert charges.dtype == np.float64 and np.allclose(charges, [-0.834, 0.417, 0.417] * 2)
    narumiSystem = forcefield.createSystem(topology, nonbondedMethod=app.CutoffNonPeriodic,
                                           nonbondedCutoff=1.0 * unit.nanometer)
    openmmnarumi.replaceNonbondedForces(narumiSystem)
    assert not any(isinstance(f, openmm.NonbondedForce) for f in narumiSystem.getForces())
    np.testing.assert_array_equal(hcp.chargesFromSystem(narumiSystem), charges)


def test_unified_default_temperature():
    kT = 8.314462618e-3 * 300.0
    assert potentialmap.unitFactor("kT/e") == pytest.approx(1 / kT, rel=1e-15)
    assert hcp.convertPotential(kT, "kT/e") == pytest.approx(1.0, rel=1e-15)
    defaults = [inspect.signature(f).parameters["temperature"].default for f in (
        potentialmap.unitFactor, potentialmap.PotentialMap.inUnits, potentialmap.PotentialMap.writeDX,
        potentialmap.PotentialMap.writeSlicePNG, potentialmap.PotentialMapReporter, hcp.convertPotential)]
    assert defaults == [300.0] * len(defaults)
    from openmmnarumi.hcp import cli as hcpCli
    from openmmnarumi.potentialmap import cli as mapCli
    assert hcpCli._parseArguments(["x.pdb"]).temperature == 300.0
    assert mapCli._parseArguments(["x.pdb"]).temperature == 300.0


def test_writer_default_temperature(tmp_path):
    grid = potentialmap.PotentialMap(np.ones((2, 2, 2)), np.zeros(3), np.full(3, 0.1))
    grid.writeDX(str(tmp_path / "map.dx"))
    assert "# values in kT/e at 300 K" in (tmp_path / "map.dx").read_text()


def deprecated(call, *names):
    """call() under pytest.warns, checking that the warning names each of names (old and new)."""
    with pytest.warns(DeprecationWarning) as record:
        result = call()
    messages = " ".join(str(w.message) for w in record)
    for name in names:
        assert name in messages, (name, messages)
    return result


def test_deprecated_rdf_names(tmp_path):
    topology = water_topology(4)
    assert deprecated(lambda: rdf.select_atoms(topology, {"name": "O"}), "select_atoms", "selectAtoms") == \
        rdf.selectAtoms(topology, {"name": "O"})
    assert deprecated(lambda: rdf.exclusion_groups(topology, "residue"), "exclusion_groups", "exclusionGroups") == \
        rdf.exclusionGroups(topology, "residue")
    positions = np.random.default_rng(0).uniform(0, 2.0, size=(12, 3))
    engine = rdf.RDFEngine(12, list(range(12)), rMax=0.9, bins=30, backend="cpu")
    engine.addFrame(positions, np.eye(3) * 2.0)
    old = deprecated(lambda: rdf.RDFResult.from_engine(engine, run="old"), "from_engine", "RDFResult.fromEngine")
    new = rdf.RDFResult.fromEngine(engine, run="old")
    np.testing.assert_array_equal(old.g, new.g)
    assert old.metadata == new.metadata
    deprecated(lambda: old.write_csv(tmp_path / "old.csv"), "RDFResult.write_csv", "RDFResult.writeCSV")
    new.writeCSV(tmp_path / "new.csv")
    assert (tmp_path / "old.csv").read_text() == (tmp_path / "new.csv").read_text()


def test_deprecated_rdf_trajectory(tmp_path):
    mdtraj = pytest.importorskip("mdtraj")
    topology = water_topology(20)
    rng = np.random.default_rng(1)
    xyz = rng.uniform(0, 1.5, size=(3, topology.getNumAtoms(), 3)).astype(np.float32)
    trajectory = mdtraj.Trajectory(xyz, mdtraj.Topology.from_openmm(topology),
                                   unitcell_lengths=np.full((3, 3), 1.5), unitcell_angles=np.full((3, 3), 90.0))
    trajectory[0].save_pdb(str(tmp_path / "water.pdb"))
    trajectory.save_dcd(str(tmp_path / "water.dcd"))
    arguments = (str(tmp_path / "water.dcd"), str(tmp_path / "water.pdb"), "name O")
    new = rdf.computeRDFTrajectory(*arguments, rMax=0.7, bins=14, backend="cpu", progress=False)
    for alias in (rdf.compute_rdf_trajectory, openmmnarumi.compute_rdf_trajectory):
        old = deprecated(lambda: alias(*arguments, rMax=0.7, bins=14, backend="cpu", progress=False),
                         "compute_rdf_trajectory", "computeRDFTrajectory")
        assert old.frames == new.frames == 3
        np.testing.assert_array_equal(old.counts, new.counts)


def test_deprecated_hcp_functions():
    positions, charges, hierarchy = small_molecule()
    topology = water_topology(2)
    radii = hcp.atomicRadii(topology)
    np.testing.assert_array_equal(deprecated(lambda: hcp.atomic_radii(topology), "atomic_radii", "atomicRadii"), radii)
    for old, new in zip(deprecated(lambda: hcp.component_indices(topology, "chains"), "component_indices"),
                        hcp.componentIndices(topology, "chains")):
        np.testing.assert_array_equal(old, new)
    assert deprecated(lambda: hcp.electrostatic_size(positions, radii, "ellipsoid"), "electrostaticSize") == \
        hcp.electrostaticSize(positions, radii, "ellipsoid")
    old = deprecated(lambda: hcp.surface_points(positions, radii, probe_radius=0.1, density=50.0),
                     "surface_points", "surfacePoints", "'probe_radius'", "'probeRadius'")
    new = hcp.surfacePoints(positions, radii, probeRadius=0.1, density=50.0)
    np.testing.assert_array_equal(old.points, new.points)
    keyword = deprecated(lambda: hcp.surfacePoints(positions, radii, probe_radius=0.1, density=50.0), "'probe_radius'")
    np.testing.assert_array_equal(keyword.points, new.points)
    with pytest.raises(TypeError, match="probe_radius"):
        hcp.surfacePoints(positions, radii, probe_radius=0.1, probeRadius=0.1)
    assert deprecated(lambda: hcp.convert_potential(4.184, unit="kcal/mol/e"), "convert_potential", "'unit'") == \
        pytest.approx(hcp.convertPotential(4.184, units="kcal/mol/e"))
    assert deprecated(hcp.cuda_available, "cuda_available", "cudaAvailable") == hcp.cudaAvailable()
    transforms = [(np.eye(3), np.zeros(3)), (np.eye(3), np.array([3.0, 0, 0]))]
    oldTopology, oldPositions = deprecated(lambda: hcp.assemble_copies(topology, positions, transforms),
                                           "assemble_copies", "assembleCopies")
    newTopology, newPositions = hcp.assembleCopies(topology, positions, transforms)
    assert oldTopology.getNumChains() == newTopology.getNumChains() == 2
    np.testing.assert_array_equal(oldPositions, newPositions)
    system = openmm.System()
    force = openmm.NonbondedForce()
    for q in charges:
        system.addParticle(16.0)
        force.addParticle(q, 0.3, 0.5)
    system.addForce(force)
    np.testing.assert_allclose(deprecated(lambda: hcp.charges_from_system(system), "charges_from_system"), charges)


def test_deprecated_hcp_engine_names():
    positions, charges, hierarchy = small_molecule()
    old = deprecated(lambda: hcp.SurfacePotential(positions, charges, hierarchy=hierarchy, eps_in=2.0, eps_out=60.0,
                                                  electrostatic_size=0.4, backend="cpu"),
                     "'eps_in'", "'soluteDielectric'", "'eps_out'", "'solventDielectric'", "'electrostatic_size'")
    new = hcp.SurfacePotential(positions, charges, hierarchy=hierarchy, soluteDielectric=2.0, solventDielectric=60.0,
                               electrostaticSize=0.4, backend="cpu")
    assert (new.soluteDielectric, new.solventDielectric, new.electrostaticSize) == (2.0, 60.0, 0.4)
    assert deprecated(lambda: old.eps_in, "eps_in", "soluteDielectric") == 2.0
    assert deprecated(lambda: old.eps_out, "eps_out", "solventDielectric") == 60.0
    assert deprecated(lambda: old.electrostatic_size, "electrostaticSize") == 0.4
    assert deprecated(lambda: old.total_charge, "total_charge", "totalCharge") == pytest.approx(new.totalCharge)
    assert deprecated(old.component_counts, "component_counts", "componentCounts") == new.componentCounts()
    approximate = deprecated(lambda: old.approximate_charges("residue"), "approximate_charges", "approximateCharges")
    expected = new.approximateCharges("residue")
    for a, b in zip(approximate[:3], expected[:3]):
        np.testing.assert_array_equal(a, b)
    assert [list(m) for m in approximate[3]] == [list(m) for m in expected[3]]
    deprecated(lambda: old.set_positions(positions + 0.01), "set_positions", "setPositions")
    new.setPositions(positions + 0.01)
    sized = deprecated(lambda: hcp.SurfacePotential(positions, charges, hierarchy=hierarchy, radii=np.full(6, 0.15),
                                                    size_method="ellipsoid", backend="cpu"), "'size_method'")
    assert sized.electrostaticSize == hcp.SurfacePotential(positions, charges, hierarchy=hierarchy, radii=np.full(6, 0.15),
                                                           sizeMethod="ellipsoid", backend="cpu").electrostaticSize
    surface = hcp.surfacePoints(positions, np.full(6, 0.15), density=50.0)
    np.testing.assert_array_equal(deprecated(lambda: surface.atom_index, "atom_index", "atomIndex"), surface.atomIndex)
    rebuilt = deprecated(lambda: hcp.SurfacePointSet(surface.points, surface.normals, atom_index=surface.atomIndex,
                                                     offset=surface.offset), "'atom_index'")
    assert len(rebuilt) == len(surface)
    result, expected = old.compute(surface), new.compute(surface)
    np.testing.assert_array_equal(result.potentials, expected.potentials)
    assert deprecated(lambda: result.device_milliseconds, "device_milliseconds", "deviceMilliseconds") == -1.0


def test_deprecated_hcp_writers(tmp_path):
    positions, _, _ = small_molecule()
    values = np.linspace(-1, 1, len(positions))
    deprecated(lambda: hcp.write_csv(str(tmp_path / "old.csv"), points_nm=positions, potentials=values,
                                     atom_index=np.arange(6), unit="kT/e"), "write_csv", "writeCSV", "'points_nm'")
    hcp.writeCSV(str(tmp_path / "new.csv"), points=positions, potentials=values, atomIndex=np.arange(6), units="kT/e")
    assert (tmp_path / "old.csv").read_text() == (tmp_path / "new.csv").read_text()
    deprecated(lambda: hcp.write_ply(str(tmp_path / "old.ply"), positions, values, color_limit=2.0), "write_ply")
    hcp.writePLY(str(tmp_path / "new.ply"), positions, values, colorLimit=2.0)
    assert (tmp_path / "old.ply").read_text() == (tmp_path / "new.ply").read_text()
    deprecated(lambda: hcp.write_png(str(tmp_path / "old.png"), positions, values, unit="kT/e", max_points=4),
               "write_png", "writePNG", "'max_points'")
    assert os.path.getsize(tmp_path / "old.png") > 1000


def test_deprecated_prepare_molecule_keywords(data_dir):
    path = os.path.join(data_dir, "5dfr_minimized.pdb")
    if not os.path.exists(path):
        pytest.skip(f"{path} not found (--data-dir)")
    old = deprecated(lambda: hcp.prepare_molecule(pdb_path=path, forcefield_files=("amber14-all.xml",),
                                                  keep_solvent=False, ph=7.0),
                     "prepare_molecule", "prepareMolecule", "'pdb_path'", "'forcefield_files'", "'keep_solvent'", "'ph'")
    new = hcp.prepareMolecule(pdbFile=path, forcefield=("amber14-all.xml",), keepSolvent=False, pH=7.0)
    np.testing.assert_array_equal(old[1], new[1])
    np.testing.assert_array_equal(old[2], new[2])


def test_every_public_name_has_a_docstring():
    """help() shows something for every class, function, method and property users reach, SWIG's C++ classes too."""
    import importlib
    import importlib.util
    import inspect
    missing, seen = [], set()

    def check(obj, name):
        if id(obj) not in seen:
            seen.add(id(obj))
            if not (inspect.getdoc(obj) or "").strip():
                missing.append(name)

    moduleNames = ["openmmnarumi", "openmmnarumi.rdf", "openmmnarumi.potentialmap", "openmmnarumi.hcp",
                   "openmmnarumi.gromacs"]
    if importlib.util.find_spec("MDAnalysis") is not None:
        moduleNames.append("openmmnarumi.mdanalysis")  # MDAnalysis' naming, but help() shows everything
    for moduleName in moduleNames:
        module = importlib.import_module(moduleName)
        for attribute in module.__all__:
            obj = getattr(module, attribute)
            if inspect.ismodule(obj):
                continue
            check(obj, f"{moduleName}.{attribute}")
            if inspect.isclass(obj):
                for memberName, member in vars(obj).items():
                    if not memberName.startswith("_") and memberName != "thisown" and (
                            callable(member) or isinstance(member, (property, staticmethod, classmethod))):
                        check(getattr(obj, memberName), f"{moduleName}.{attribute}.{memberName}")
    assert not missing, f"no docstring: {missing}"


def test_one_cuda_device_keyword_everywhere():
    """Every entry point that can run on a GPU takes cudaDevice (the command lines --cuda-device), with one default:
    GPU 0, or for PotentialMapReporter the simulation's own GPU."""
    from openmmnarumi.potentialmap.reporter import simulationCudaDevice
    defaults = {rdf.RDFEngine.__init__: 0, rdf.computeRDFTrajectory: 0, potentialmap.computePotentialMap: 0,
                potentialmap.potentialMapFromStructure: 0, potentialmap.potentialMapFromTrajectory: 0,
                potentialmap.PotentialMapReporter.__init__: None, hcp.SurfacePotential.__init__: 0}
    for function, default in defaults.items():
        parameters = inspect.signature(inspect.unwrap(function)).parameters
        assert "cudaDevice" in parameters, function.__qualname__
        assert parameters["cudaDevice"].default == default, function.__qualname__
    for command in ("rdf", "potentialmap", "hcp"):
        text = subprocess.run([sys.executable, "-m", f"openmmnarumi.{command}", "--help"], capture_output=True,
                              text=True, check=True).stdout
        assert "--cuda-device" in text, command
    system = openmm.System()
    system.addParticle(1.0)
    context = openmm.Context(system, openmm.VerletIntegrator(0.001), openmm.Platform.getPlatformByName("Reference"))
    assert simulationCudaDevice(context) == 0


def test_surface_potential_device_keyword_is_deprecated():
    positions, charges, hierarchy = small_molecule()
    with pytest.warns(DeprecationWarning, match="cudaDevice"):
        engine = hcp.SurfacePotential(positions, charges, hierarchy=hierarchy, electrostaticSize=0.5, backend="cpu",
                                      device=0)
    assert engine.backend == "cpu"


@pytest.mark.skipif(not rdf.cudaAvailable(), reason="no CUDA device")
def test_a_missing_cuda_device_is_named_by_every_engine():
    positions, charges, hierarchy = small_molecule()
    with pytest.raises(ValueError, match="99"):
        rdf.RDFEngine(6, [0, 1, 2], rMax=0.5, bins=10, backend="cuda", cudaDevice=99)
    with pytest.raises(ValueError, match="99"):
        rdf.RDFEngine(6, [0, 1, 2], rMax=0.5, bins=10, backend="cuda", cudaDevice=[0, 99])
    with pytest.raises(ValueError, match="99"):
        potentialmap.computePotentialMap(positions, charges, spacing=0.2, backend="cuda", cudaDevice=99)
    with pytest.raises(ValueError, match="99"):
        potentialmap.computePotentialMap(positions, charges, spacing=0.2, backend="cuda", cudaDevice=[0, 99])
    with pytest.raises(ValueError, match="99"):
        hcp.SurfacePotential(positions, charges, hierarchy=hierarchy, electrostaticSize=0.5, backend="cuda",
                             cudaDevice=99)


def test_cuda_device_option_takes_one_device_or_a_list():
    import argparse
    from openmmnarumi._devices import cudaDeviceArgument
    assert cudaDeviceArgument("2") == 2
    assert cudaDeviceArgument("0,1") == [0, 1]
    for bad in ("a", "0,-1", ""):
        with pytest.raises(argparse.ArgumentTypeError, match=repr(bad)):
            cudaDeviceArgument(bad)
