"""Shared fixtures: systems built with OpenMM's own tools, and the shared data folder."""
import functools
import os

import numpy as np
import openmm
import openmm.app as app
import openmm.unit as unit
import pytest

import openmmnarumi  # noqa: F401  (loads the plugin's kernels)


def pytest_addoption(parser):
    parser.addoption("--data-dir", default=os.environ.get("NARUMI_DATA_DIR", os.path.join(
        os.path.dirname(__file__), "..", "..", "..", "shared", "data")),
        help="folder with the shared PDB inputs (default ../shared/data beside the repository)")


@pytest.fixture(scope="session")
def cuda_devices():
    """The device list of the multi-device tests: NARUMI_TEST_DEVICES ("0,1" on two GPUs), else the one GPU twice."""
    setting = os.environ.get("NARUMI_TEST_DEVICES") or "0,0"
    try:
        devices = [int(item) for item in setting.split(",")]
    except ValueError:
        raise ValueError(f"NARUMI_TEST_DEVICES = {setting!r} is not a list of CUDA devices") from None
    if len(devices) < 2 or min(devices) < 0:
        raise ValueError(f"NARUMI_TEST_DEVICES = {setting!r} must name two or more CUDA devices")
    return devices


@pytest.fixture(scope="session")
def data_dir(request):
    # Absolute, so that tests that change the working folder still find the data.
    return os.path.abspath(request.config.getoption("--data-dir"))


@pytest.fixture(scope="session")
def martini_rerun(data_dir):
    """rerun(system, **mdp_overrides) -> (folder, gromacs.Rerun) of a Martini bilayer of data/martini, each computed
    once per session (gmx_d, tests/support/gromacs.py); skips where gmx_d or the data is absent."""
    from tests.support import gromacs
    gromacs.skip_unless_available()

    @functools.lru_cache(maxsize=None)
    def cached(system, overrides):
        folder = os.path.join(data_dir, "martini", system)
        if not os.path.isdir(folder):
            pytest.skip(f"{folder} is absent (pytest --data-dir)")
        return folder, gromacs.rerun(folder, dict(overrides))

    return lambda system, **overrides: cached(system, tuple(sorted(overrides.items())))


def water_box(edge_nm, nonbonded_method=app.CutoffPeriodic, cutoff_nm=1.0, box_shape="cube"):
    """TIP3P water from OpenMM's Modeller: returns (topology, positions, system)."""
    forcefield = app.ForceField("amber14/tip3p.xml")
    modeller = app.Modeller(app.Topology(), [])
    d = edge_nm
    box_vectors = {  # OpenMM's reduced forms of the three box shapes Modeller knows
        "cube": [(d, 0, 0), (0, d, 0), (0, 0, d)],
        "dodecahedron": [(d, 0, 0), (0, d, 0), (d / 2, d / 2, d * np.sqrt(2) / 2)],
        "octahedron": [(d, 0, 0), (d / 3, 2 * np.sqrt(2) * d / 3, 0), (-d / 3, np.sqrt(2) * d / 3, np.sqrt(6) * d / 3)],
    }[box_shape]
    modeller.addSolvent(forcefield, boxVectors=[openmm.Vec3(*v) * unit.nanometer for v in box_vectors])
    system = forcefield.createSystem(modeller.topology, nonbondedMethod=nonbonded_method,
                                     nonbondedCutoff=cutoff_nm * unit.nanometer, rigidWater=True)
    return modeller.topology, modeller.positions, system


def nonbonded_force(system):
    return next(f for f in system.getForces() if isinstance(f, openmm.NonbondedForce))


def is_narumi(force):
    return openmmnarumi.NarumiNonbondedForce.isinstance(force)


def isolate_in_group(system, selected, group=1):
    """Put the forces for which selected(force) is true in group and everything else in group 0."""
    for force in system.getForces():
        force.setForceGroup(group if selected(force) else 0)


def energy_and_forces(system, positions, platform_name, group=None):
    context = openmm.Context(system, openmm.VerletIntegrator(0.001), openmm.Platform.getPlatformByName(platform_name))
    context.setPositions(positions)
    kwargs = {} if group is None else {"groups": {group}}
    state = context.getState(getEnergy=True, getForces=True, **kwargs)
    return (state.getPotentialEnergy().value_in_unit(unit.kilojoule_per_mole),
            state.getForces(asNumpy=True).value_in_unit(unit.kilojoule_per_mole / unit.nanometer))


def relative_rms(actual, expected):
    return float(np.sqrt(np.sum((actual - expected) ** 2) / np.sum(expected ** 2)))


def available_platforms():
    names = [openmm.Platform.getPlatform(i).getName() for i in range(openmm.Platform.getNumPlatforms())]
    return [name for name in ("Reference", "CPU") if name in names]


class PositionRecorder:
    """Stores the frames OpenMM hands to reporters, for the oracle."""

    def __init__(self, interval):
        self.interval, self.frames = interval, []

    def describeNextReport(self, simulation):
        return {"steps": self.interval - simulation.currentStep % self.interval, "periodic": False,
                "include": ["positions"]}

    def report(self, simulation, state):
        self.frames.append((state.getPositions(asNumpy=True).value_in_unit(unit.nanometer),
                            state.getPeriodicBoxVectors(asNumpy=True).value_in_unit(unit.nanometer)))


def write_pqr(path, topology, positions, charges, radii):
    """PDB2PQR's whitespace-separated layout: serial, name, residue, chain, number, x y z (A), charge, radius (A)."""
    with open(path, "w") as out:
        out.write("REMARK written by the test\n")
        for atom, x, q, r in zip(topology.atoms(), positions * 10.0, charges, radii * 10.0):
            out.write(f"ATOM  {atom.index + 1:5d} {atom.name:<4s} {atom.residue.name:>3s} {atom.residue.chain.id} "
                      f"{int(atom.residue.id):4d}    {x[0]:8.3f} {x[1]:8.3f} {x[2]:8.3f} {q:7.4f} {r:6.4f}\n")
        out.write("END\n")
