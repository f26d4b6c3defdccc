"""RDF engine, reporter and trajectory command against independent oracles: a double-precision NumPy brute force
(exact counts up to float rounding at bin edges), mdtraj.compute_rdf, an ideal gas, an fcc crystal."""
import csv
import json
import os
import subprocess
import sys

import numpy as np
import openmm
import openmm.app as app
import openmm.unit as unit
import pytest

from conftest import PositionRecorder, water_box
from rdf_brute_force import assert_in_band, count_band
from openmmnarumi import RDFEngine, RDFReporter
from openmmnarumi.rdf import cudaAvailable, selectAtoms

TRICLINIC = np.array([[3.4, 0, 0], [0.31 * 3.4, 0.93 * 3.4, 0], [-0.42 * 3.4, 0.27 * 3.4, 0.81 * 3.4]])
BOXES = {"none": (None, 1.6), "rectangular": (np.diag([3.1, 2.9, 3.3]), 1.4), "triclinic": (TRICLINIC, 1.35)}


def random_positions(n, box, seed):
    rng = np.random.default_rng(seed)
    fractions = rng.uniform(-0.3, 1.3, size=(n, 3))
    return fractions * 3.0 if box is None else fractions @ box


def engine_counts(positions, box, sel1, sel2=None, **options):
    engine = RDFEngine(len(positions), sel1, sel2, **options)
    engine.addFrame(positions, box)
    return engine


@pytest.mark.parametrize("box_name", list(BOXES))
@pytest.mark.parametrize("kind", ["identical", "disjoint", "overlapping", "exclusions"])
def test_counts_match_numpy_brute_force(box_name, kind):
    box, r_max = BOXES[box_name]
    n = 360
    positions = random_positions(n, box, seed=len(box_name) * 7 + len(kind))
    groups = np.arange(n) // 3
    sel1, sel2, use_groups = {"identical": (np.arange(n), None, False),
                              "disjoint": (np.arange(0, n, 2), np.arange(1, n, 2), False),
                              "overlapping": (np.arange(0, 240), np.arange(150, n), False),
                              "exclusions": (np.arange(0, 240), np.arange(150, n), True)}[kind]
    band = count_band(positions, box, sel1, sel2, 0.05, r_max, 83, groups if use_groups else None)
    assert band[0].sum() > 2000 and band[2] < band[0].sum() / 100
    results = []
    for algorithm in ("all-pairs", "cell-list"):
        engine = engine_counts(positions, box, sel1, sel2, rMax=r_max, rMin=0.05, bins=83, backend="cpu",
                               algorithm=algorithm, exclusionGroups=groups.tolist() if use_groups else None)
        assert engine.lastAlgorithm == algorithm
        assert_in_band(engine.pairCounts(), band)
        results.append(engine.pairCounts())
    np.testing.assert_array_equal(results[0], results[1])


@pytest.mark.skipif(not cudaAvailable(), reason="no CUDA device (or a build without CUDA)")
@pytest.mark.parametrize("box_name", list(BOXES))
def test_cuda_counts_equal_cpu_counts(box_name):
    box, r_max = BOXES[box_name]
    positions = random_positions(3000, box, seed=3).astype(np.float32)
    sel1, sel2 = np.arange(0, 2000), np.arange(1000, 3000)
    cpu = engine_counts(positions, box, sel1, sel2, rMax=r_max, bins=500, backend="cpu").pairCounts()
    for algorithm in ("all-pairs", "cell-list"):
        gpu = engine_counts(positions, box, sel1, sel2, rMax=r_max, bins=500, backend="cuda", algorithm=algorithm)
        assert gpu.backend == "cuda"
        np.testing.assert_array_equal(gpu.pairCounts(), cpu)


@pytest.mark.skipif(not cudaAvailable(), reason="no CUDA device (or a build without CUDA)")
def test_frames_spread_over_a_device_list_count_what_the_cpu_counts(cuda_devices):
    # Two pipelines (by default on the same GPU listed twice), frames handed to whichever has room; 64-bit sums.
    box, r_max = BOXES["rectangular"]
    sel1 = np.arange(0, 1500)
    spread = RDFEngine(2500, sel1, None, rMax=r_max, bins=300, backend="cuda", cudaDevice=cuda_devices)
    cpu = RDFEngine(2500, sel1, None, rMax=r_max, bins=300, backend="cpu")
    for frame in range(8):
        positions = random_positions(2500, box, seed=40 + frame).astype(np.float32)
        spread.addFrame(positions, box)
        cpu.addFrame(positions, box)
    assert spread.backend == "cuda"
    assert spread.pairCounts().sum() > 0
    np.testing.assert_array_equal(spread.pairCounts(), cpu.pairCounts())


def test_mdtraj_compute_rdf_agrees():
    mdtraj = pytest.importorskip("mdtraj")
    # Three frames in boxes of different volume: both tools normalise by the sum over frames of 1/V.
    n_waters, r_max, bins = 150, 1.0, 50
    topology = mdtraj.Topology()
    chain = topology.add_chain()
    for _ in range(n_waters):
        residue = topology.add_residue("HOH", chain)
        for name, symbol in (("O", "O"), ("H1", "H"), ("H2", "H")):
            topology.add_atom(name, mdtraj.element.get_by_symbol(symbol), residue)
    rng = np.random.default_rng(2024)
    edges = np.array([2.3, 2.4, 2.5])
    xyz = (rng.uniform(0, 1, size=(3, 3 * n_waters, 3)) * edges[:, None, None]).astype(np.float32)
    trajectory = mdtraj.Trajectory(xyz, topology, unitcell_lengths=np.repeat(edges[:, None], 3, axis=1),
                                   unitcell_angles=np.full((3, 3), 90.0))
    oxygens, hydrogens = topology.select("name O"), topology.select("name H1 or name H2")
    for sel1, sel2 in ((oxygens, None), (oxygens, hydrogens)):
        pairs = topology.select_pairs(sel1, sel1 if sel2 is None else sel2)
        r_md, g_md = mdtraj.compute_rdf(trajectory, pairs, r_range=(0.0, r_max), n_bins=bins)
        engine = RDFEngine(trajectory.n_atoms, sel1, sel2, rMax=r_max, bins=bins, backend="cpu")
        low, high = 0, 0
        for frame in range(3):
            # Coordinates below 2.5 nm: float rounding moves a distance by less than 1.5e-6 nm.
            band = count_band(xyz[frame], trajectory.unitcell_vectors[frame], sel1, sel2, 0.0, r_max, bins,
                              tolerance=1.5e-6)
            low, high = low + band[0], high + band[1]
            engine.addFrame(xyz[frame], trajectory.unitcell_vectors[frame])
        np.testing.assert_allclose(engine.binCenters(), r_md, rtol=1e-12)
        # g to 1e-6 wherever no pair lies within float rounding of a bin edge (where the two single-precision
        # codes may legitimately split differently); there the counts stay within the oracle's band.
        certain = low == high
        assert certain.sum() > bins * 0.6
        np.testing.assert_allclose(engine.rdf()[certain], g_md[certain], rtol=1e-6, atol=0)
        assert_in_band(engine.pairCounts(), (low, high, 0))


def test_ideal_gas_gives_one():
    n, frames, bins = 500, 60, 10
    rng = np.random.default_rng(5)
    box = np.diag([2.0, 2.0, 2.0])
    engine = RDFEngine(n, np.arange(n), rMax=1.0, bins=bins, backend="cpu")
    for _ in range(frames):
        engine.addFrame(rng.uniform(0, 2.0, size=(n, 3)), box)
    g, counts = engine.rdf(), engine.pairCounts()
    sigma = 1 / np.sqrt(counts / 2)
    assert np.all(np.abs(g - 1) < 5 * sigma), (g, sigma)
    assert abs(np.average(g, weights=counts) - 1) < 0.01


def test_fcc_crystal_shells():
    a, m = 0.41, 5
    basis = np.array([[0, 0, 0], [0.5, 0.5, 0], [0.5, 0, 0.5], [0, 0.5, 0.5]]) + 0.1
    cells = np.array([(i, j, k) for i in range(m) for j in range(m) for k in range(m)])
    positions = ((cells[:, None, :] + basis[None, :, :]) * a).reshape(-1, 3)
    n = len(positions)
    engine = engine_counts(positions, np.diag([a * m] * 3), np.arange(n), rMax=0.7, bins=35, backend="cpu")
    counts, coordination = engine.pairCounts(), engine.coordinationNumber()
    shells = {a / np.sqrt(2): 12, a: 6, a * np.sqrt(1.5): 24, a * np.sqrt(2): 12}
    total = 0
    for radius, neighbours in shells.items():
        k = int(radius / 0.02)
        total += neighbours
        assert counts[k] == n * neighbours
        assert coordination[k] == pytest.approx(total)
    assert counts[:int(a * np.sqrt(2) / 0.02) + 1].sum() == n * total  # nothing between the shells
    assert np.argmax(engine.rdf()) == int(a / np.sqrt(2) / 0.02)


def test_selections_of_one_and_zero_atoms():
    positions = random_positions(40, np.eye(3) * 2.0, seed=9)
    box = np.eye(3) * 2.0
    single = engine_counts(positions, box, [4], rMax=0.9, bins=20, backend="cpu")
    assert single.pairCounts().sum() == 0 and single.numPairsPerFrame == 0
    with pytest.raises(ValueError, match="no atom pairs"):
        single.rdf()
    others = list(range(5, 40))
    one_vs_many = engine_counts(positions, box, [4], others, rMax=0.9, bins=20, backend="cpu")
    assert_in_band(one_vs_many.pairCounts(), count_band(positions, box, [4], others, 0.0, 0.9, 20))
    empty = engine_counts(positions, box, [], others, rMax=0.9, bins=20, backend="cpu")
    assert empty.pairCounts().sum() == 0
    with pytest.raises(ValueError):
        empty.rdf()


def test_bad_input_gives_clear_errors():
    box = np.eye(3) * 2.0
    positions = random_positions(30, box, seed=1)
    engine = RDFEngine(30, np.arange(30), rMax=0.9, bins=10, backend="cpu")
    bad = positions.copy()
    bad[17, 2] = np.nan
    with pytest.raises(ValueError, match="atom 17 is not finite"):
        engine.addFrame(bad, box)
    with pytest.raises(ValueError, match="more than half the box"):
        engine.addFrame(positions, np.eye(3) * 1.7)
    with pytest.raises(ValueError, match=r"shape \(30, 3\)"):
        engine.addFrame(positions[:29], box)
    assert engine.numFrames == 0
    with pytest.raises(ValueError, match="twice"):
        RDFEngine(30, [1, 2, 1], rMax=0.9, bins=10)
    with pytest.raises(ValueError, match="backend"):
        RDFEngine(30, [1, 2], rMax=0.9, bins=10, backend="gpu")
    with pytest.raises(ValueError, match="rMax"):
        RDFEngine(30, [1, 2], rMax=-1.0, bins=10)


def test_exclusion_blocks_normalise_like_mdanalysis():
    # MDAnalysis' exclusion_block=(1, 2) for O against H of 3-site waters: N = N_O * N_H - n_waters * 1 * 2.
    n_waters = 100
    box = np.eye(3) * 2.2
    positions = random_positions(3 * n_waters, box, seed=4)
    oxygens, hydrogens = np.arange(0, 300, 3), np.setdiff1d(np.arange(300), np.arange(0, 300, 3))
    groups = np.arange(300) // 3
    engine = engine_counts(positions, box, oxygens, hydrogens, rMax=1.0, bins=40, backend="cpu",
                           exclusionGroups=groups.tolist())
    assert engine.numPairsPerFrame == 100 * 200 - 100 * 2
    assert_in_band(engine.pairCounts(), count_band(positions, box, oxygens, hydrogens, 0.0, 1.0, 40, groups))


def test_select_atoms_queries():
    topology, _, _ = water_box(1.6)
    oxygens = selectAtoms(topology, {"resname": "HOH", "name": "O"})
    assert oxygens == [atom.index for atom in topology.atoms() if atom.name == "O"]
    assert selectAtoms(topology, {"element": ["H"]}) == [a.index for a in topology.atoms() if a.element.symbol == "H"]
    assert selectAtoms(topology, np.array([5, 2])) == [5, 2]
    with pytest.raises(ValueError, match="unknown selection keys"):
        selectAtoms(topology, {"atomname": "O"})
    mdtraj = pytest.importorskip("mdtraj")
    assert selectAtoms(topology, "name O and resname HOH") == oxygens
    assert selectAtoms(mdtraj.Topology.from_openmm(topology), {"name": "O"}) == oxygens


def run_water_simulation(platform_name, reporters, steps=20, edge=2.0):
    topology, positions, system = water_box(edge)
    integrator = openmm.LangevinMiddleIntegrator(300 * unit.kelvin, 1 / unit.picosecond, 0.001 * unit.picoseconds)
    integrator.setRandomNumberSeed(7)
    simulation = app.Simulation(topology, system, integrator, openmm.Platform.getPlatformByName(platform_name))
    simulation.context.setPositions(positions)
    simulation.context.setVelocitiesToTemperature(300 * unit.kelvin, 7)
    simulation.reporters.extend(reporters)
    simulation.step(steps)
    return simulation


@pytest.mark.parametrize("platform_name", ["CPU", "CUDA"])
def test_reporter_in_a_simulation(tmp_path, platform_name):
    names = [openmm.Platform.getPlatform(i).getName() for i in range(openmm.Platform.getNumPlatforms())]
    if platform_name not in names or (platform_name == "CUDA" and not cudaAvailable()):
        pytest.skip(f"no {platform_name} platform or device here")
    csv_path = tmp_path / "oo.csv"
    reporter = RDFReporter(str(csv_path), 5, {"resname": "HOH", "name": "O"}, rMax=0.9 * unit.nanometer, bins=90,
                           exclusion="residue")
    recorder = PositionRecorder(5)
    simulation = run_water_simulation(platform_name, [reporter, recorder])
    assert reporter.describeNextReport(simulation) == {"steps": 5, "periodic": None, "include": []}
    reporter.close()
    result = reporter.result()
    assert result.frames == 4 == len(recorder.frames) and reporter.lastStep == 20
    oxygens = [atom.index for atom in simulation.topology.atoms() if atom.name == "O"]
    low, high = 0, 0
    for positions, box in recorder.frames:
        band = count_band(positions, box, oxygens, None, 0.0, 0.9, 90)
        low, high = low + band[0], high + band[1]
    assert_in_band(result.counts, (low, high, 0))
    rows = list(csv.DictReader(open(csv_path)))
    assert len(rows) == 90
    g = np.array([float(row["g"]) for row in rows])
    np.testing.assert_allclose(g, result.g, rtol=1e-8)
    assert 0.26 < float(rows[int(np.argmax(g))]["r_nm"]) < 0.30, "the first O-O peak of water"
    metadata = json.loads((tmp_path / "oo.json").read_text())
    assert metadata["frames"] == 4 and metadata["lastStep"] == 20 and metadata["units"]["r_nm"] == "nm"
    assert (tmp_path / "oo.png").stat().st_size > 1000


def test_trajectory_command_on_a_dcd(tmp_path):
    mdtraj = pytest.importorskip("mdtraj")
    dcd, pdb = str(tmp_path / "water.dcd"), str(tmp_path / "water.pdb")
    simulation = run_water_simulation("CPU", [app.DCDReporter(dcd, 4)], steps=20)
    state = simulation.context.getState(getPositions=True)
    with open(pdb, "w") as handle:
        app.PDBFile.writeFile(simulation.topology, state.getPositions(), handle)
    out = str(tmp_path / "rdf.csv")
    result = subprocess.run([sys.executable, "-m", "openmmnarumi.rdf", dcd, "--top", pdb, "--sel1", "name O",
                             "--sel2", "name H1 or name H2", "--r-max", "0.95", "--bins", "95", "--backend", "cpu",
                             "--output", out], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert "5 frames" in result.stdout and os.path.getsize(str(tmp_path / "rdf.png")) > 1000
    with open(out) as handle:
        rows = list(csv.DictReader(handle))
    counts = np.array([int(row["pair_count"]) for row in rows])
    trajectory = mdtraj.load(dcd, top=pdb)
    oxygens, hydrogens = trajectory.topology.select("name O"), trajectory.topology.select("name H1 or name H2")
    low, high, ambiguous = 0, 0, 0
    for frame in range(trajectory.n_frames):
        band = count_band(trajectory.xyz[frame], trajectory.unitcell_vectors[frame], oxygens, hydrogens, 0.0, 0.95, 95)
        low, high, ambiguous = low + band[0], high + band[1], ambiguous + band[2]
    assert_in_band(counts, (low, high, ambiguous))
    r, g = mdtraj.compute_rdf(trajectory, trajectory.topology.select_pairs(oxygens, hydrogens), r_range=(0, 0.95),
                              n_bins=95)
    certain = low == high
    np.testing.assert_allclose(np.array([float(row["g"]) for row in rows])[certain], g[certain], rtol=1e-6)
    bad = subprocess.run([sys.executable, "-m", "openmmnarumi.rdf", dcd, "--top", pdb, "--sel1", "name O",
                          "--r-max", "5", "--output", out], capture_output=True, text=True)
    assert bad.returncode == 2 and "more than half the box" in bad.stderr


def test_dhfr_water_oxygens_match_mdtraj(data_dir):
    path = os.path.join(data_dir, "5dfr_solv-cube_equil.pdb")
    if not os.path.exists(path):
        pytest.skip(f"{path} is not there")
    mdtraj = pytest.importorskip("mdtraj")
    trajectory = mdtraj.load(path)
    oxygens = trajectory.topology.select("water and name O")
    engine = RDFEngine(trajectory.n_atoms, oxygens, rMax=1.0, bins=100)
    engine.addFrame(trajectory.xyz[0], trajectory.unitcell_vectors[0])
    distances = mdtraj.compute_distances(trajectory, trajectory.topology.select_pairs(oxygens, oxygens))[0]
    histogram, _ = np.histogram(distances, range=(0, 1.0), bins=100)
    ours = engine.pairCounts() // 2
    # Both are single precision, with different arithmetic: only pairs on a bin edge may differ, and PDB coordinates
    # (a 1e-4 nm grid) put more pairs there than random ones would (6 of 450,485 when this was written).
    assert np.abs(ours.astype(np.int64) - histogram).sum() <= 3e-5 * histogram.sum()
    assert 0.26 < engine.binCenters()[np.argmax(engine.rdf())] < 0.30


def test_engine_takes_quantities():
    positions = np.random.default_rng(3).random((40, 3)) * 2.0
    box = np.eye(3) * 2.0
    plain = RDFEngine(40, list(range(40)), rMax=0.9, bins=30, rMin=0.1, backend="cpu")
    plain.addFrame(positions, box)
    quantities = RDFEngine(40, list(range(40)), rMax=9 * unit.angstrom, bins=30, rMin=0.1 * unit.nanometer,
                           backend="cpu")
    quantities.addFrame(positions * 10 * unit.angstrom, box * unit.nanometer)
    assert (quantities.rMin, quantities.rMax) == (0.1, pytest.approx(0.9))
    assert np.array_equal(quantities.pairCounts(), plain.pairCounts())
