"""Potential maps against a float64 NumPy oracle, analytic values, gridData's OpenDX reader and a real simulation."""
import os

import numpy as np
import openmm
import openmm.app as app
import openmm.unit as unit
import pytest

from openmmnarumi import COULOMB_CONSTANT
from openmmnarumi import potentialmap as pm
from openmmnarumi import _potentialmap

from conftest import relative_rms, water_box

PAPER_THRESHOLD = 1e-4 * 10 * COULOMB_CONSTANT  # 1e-4 e/A in kJ/mol/e (the paper's Table 2 selection)
BACKENDS = ["cpu", pytest.param("cuda", marks=pytest.mark.skipif(not _potentialmap.cudaAvailable(), reason="no CUDA device"))]


_ORACLE_CACHE = {}


def oracle(points, positions, charges, cutoff=None, box=None, sensitivity=False):
    """float64 definition: every atom (cutoff None) or every image within the cutoff; pairs under 0.001 nm skipped.

    With sensitivity, also each point's sum of |t| + |dt/dr| (|a - o| + |p - o| + r), o the first lattice point: the
    shift of V when every coordinate and term moves by one relative unit, the scale of single-precision rounding.
    """
    key = (points.tobytes(), positions.tobytes(), np.asarray(charges).tobytes(), cutoff, None if box is None else np.asarray(box).tobytes())
    if key in _ORACLE_CACHE:
        return _ORACLE_CACHE[key] if sensitivity else _ORACLE_CACHE[key][0]
    shifts = [np.zeros(3)]
    if box is not None:
        n = np.arange(-2, 3)
        grid = np.stack(np.meshgrid(n, n, n, indexing="ij"), -1).reshape(-1, 3)
        # Only images whose atoms can come within the cutoff of the lattice's bounding box.
        lo, hi = points.min(axis=0) - cutoff, points.max(axis=0) + cutoff
        shifts = [shift for shift in grid @ np.asarray(box)
                  if np.all((positions + shift).max(axis=0) >= lo) and np.all((positions + shift).min(axis=0) <= hi)]
    origin = points[0]
    values, scales = np.zeros(len(points)), np.zeros(len(points))
    q = np.abs(charges)
    for start in range(0, len(points), 2000):
        chunk = points[start:start + 2000]
        for shift in shifts:
            images = positions + shift
            d = np.linalg.norm(chunk[:, None, :] - images[None], axis=-1)
            keep = d >= pm.COINCIDENCE_RADIUS
            safe = np.where(keep, d, 1)
            if cutoff is None:
                term = np.where(keep, charges / safe, 0)
                slope = np.where(keep, q / safe ** 2, 0)
            else:
                keep &= d < cutoff
                s = 1 - d ** 2 / cutoff ** 2
                term = np.where(keep, charges * s ** 2 / safe, 0)
                slope = np.where(keep, q * (s ** 2 / safe ** 2 + 4 * s / cutoff ** 2), 0)
            reach = np.linalg.norm(images - origin, axis=1)[None] + np.linalg.norm(chunk - origin, axis=1)[:, None] + d
            values[start:start + 2000] += COULOMB_CONSTANT * term.sum(axis=1)
            scales[start:start + 2000] += COULOMB_CONSTANT * (np.abs(term) + slope * reach).sum(axis=1)
    _ORACLE_CACHE[key] = (values, scales)
    return (values, scales) if sensitivity else values


def lattice_points(result):
    axes = [result.coordinates(a) for a in range(3)]
    return np.stack(np.meshgrid(*axes, indexing="ij"), -1).reshape(-1, 3)


def max_relative_error(values, reference):
    assert np.all(np.isfinite(values))
    mask = np.abs(reference) > PAPER_THRESHOLD
    assert mask.sum() > 100
    return float(np.max(np.abs(values[mask] - reference[mask]) / np.abs(reference[mask])))


def random_system(n, lo, hi, seed):
    rng = np.random.default_rng(seed)
    return rng.uniform(lo, hi, (n, 3)), rng.uniform(-1, 1, n)


def assert_matches_oracle(values, reference, sensitivity, backend, accumulation="compensated"):
    """CPU (double sums, float output): 2e-7 relative.  CUDA (single precision): the error at every point within a
    few float epsilons of the oracle's sensitivity; plain float sums add up to ~sqrt(n) eps more.  The paper's max
    relative error is no test there: it grows without bound where V nearly cancels."""
    values = values.ravel()
    if backend == "cpu":
        assert max_relative_error(values, reference) < 2e-7
        return
    assert np.all(np.isfinite(values))
    assert np.all(values[sensitivity == 0] == 0)  # no term reaches these points
    reached = sensitivity > 0
    scaled = np.max(np.abs(values[reached] - reference[reached]) / sensitivity[reached])
    assert scaled < (2e-5 if accumulation == "float" else 2e-6)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("msmOrder, msmAccuracy", [(3, 1e-3), (5, 1e-3), (5, 1e-4)])
def test_msm_matches_the_direct_sum_oracle(msmAccuracy, msmOrder, backend):
    # A net-charged random cloud: the long range the cutoff method drops is what MSM must carry.  (msmAccuracy as a
    # bound for neutral charges, water and proteins: test_msm_accuracy.py.)
    positions, charges = random_system(600, 0, 4.0, 7)
    charges[0] += 3.0
    lattice = ([-0.3, -0.2, 0.1], [0.2, 0.21, 0.19], [24, 23, 25])
    result = pm.computePotentialMap(positions, charges, lattice=lattice, method="msm", msmAccuracy=msmAccuracy,
                                    msmOrder=msmOrder, backend=backend)
    reference = oracle(lattice_points(result), positions, charges)
    error = relative_rms(result.values.ravel(), reference)
    assert 0 < error < msmAccuracy
    cutoff = pm.computePotentialMap(positions, charges, lattice=lattice, method="cutoff", cutoff=1.2, backend="cpu")
    assert relative_rms(cutoff.values.ravel(), reference) > 10 * msmAccuracy


@pytest.mark.parametrize("backend", BACKENDS)
def test_periodic_msm_of_a_charged_triclinic_cell(backend):
    # A net charge: the neutralizing background of Ewald (and PME) is part of the potential.
    from ewald_sum import ewald_potential
    rng = np.random.default_rng(9)
    box = np.array([[3.2, 0, 0], [1.0, 3.0, 0], [-1.2, 1.1, 2.9]])
    positions = rng.random((1200, 3)) @ box
    charges = rng.normal(size=1200) * 0.5
    assert abs(charges.sum()) > 1
    lattice = ([0.05, 0.1, 0.07], [0.31, 0.33, 0.27], [8, 7, 9])
    reference = None
    for order in (3, 5):
        result = pm.computePotentialMap(positions, charges, lattice=lattice, method="msm", boxVectors=box, msmOrder=order,
                                        backend=backend)
        if reference is None:
            reference = ewald_potential(lattice_points(result), positions, charges, box)
        assert 0 < relative_rms(result.values.ravel(), reference) < 1e-3


def test_msm_bad_settings_raise_with_the_value():
    positions, charges = random_system(20, 0, 1.0, 8)
    with pytest.raises(ValueError, match="msmAccuracy"):
        pm.computePotentialMap(positions, charges, spacing=0.2, method="msm", msmAccuracy=1e-7)
    with pytest.raises(ValueError, match="half the smallest width"):
        pm.computePotentialMap(positions, charges, spacing=0.2, method="msm", boxVectors=np.diag([2.0, 2.0, 2.0]))
    with pytest.raises(ValueError, match="at least 0.001 .* for msmOrder 3"):
        pm.computePotentialMap(positions, charges, spacing=0.2, method="msm", msmAccuracy=1e-4, msmOrder=3)
    with pytest.raises(ValueError, match="msmOrder"):
        pm.computePotentialMap(positions, charges, spacing=0.2, method="msm", msmOrder=4)
    with pytest.raises(ValueError, match="'direct', 'cutoff' or 'msm'"):
        pm.computePotentialMap(positions, charges, spacing=0.2, method="ewald")


@pytest.mark.skipif(not _potentialmap.cudaAvailable(), reason="no CUDA device (or a build without CUDA)")
@pytest.mark.parametrize("method", ["direct", "cutoff"])
def test_slabs_over_a_device_list_match_the_oracle(method, cuda_devices):
    # The lattice's z planes cut into slabs, one per listed device (by default the same GPU twice), side by side.
    positions, charges = random_system(300, 0, 2.5, 5)
    result = pm.computePotentialMap(positions, charges, lattice=([-0.2, 0.1, 0.0], [0.1, 0.12, 0.09], [27, 23, 29]),
                                    method=method, cutoff=1.0, backend="cuda", cudaDevice=cuda_devices)
    reference, sensitivity = oracle(lattice_points(result), positions, charges, sensitivity=True,
                                    **({"cutoff": 1.0} if method == "cutoff" else {}))
    assert_matches_oracle(result.values, reference, sensitivity, "cuda", "compensated")


@pytest.mark.skipif(not _potentialmap.cudaAvailable(), reason="no CUDA device (or a build without CUDA)")
@pytest.mark.parametrize("periodic", [False, True])
def test_msm_slabs_over_a_device_list_match_one_device(periodic, cuda_devices):
    # Each slab's device computes the long range of all atoms (its own lattices) and the short range of its slab.
    positions, charges = random_system(800, 0, 3.0, 6)
    charges[0] += 2.0
    box = np.array([[3.0, 0, 0], [0.8, 2.9, 0], [-0.9, 1.0, 3.1]]) if periodic else None
    lattice = ([-0.2, 0.1, 0.0], [0.1, 0.12, 0.09], [27, 23, 29])
    one = pm.computePotentialMap(positions, charges, lattice=lattice, method="msm", boxVectors=box, backend="cuda")
    several = pm.computePotentialMap(positions, charges, lattice=lattice, method="msm", boxVectors=box, backend="cuda",
                                     cudaDevice=cuda_devices)
    scale = np.max(np.abs(one.values))
    assert scale > 10
    assert np.max(np.abs(several.values - one.values)) < 2e-5 * scale
    if not periodic:
        reference = oracle(lattice_points(several), positions, charges)
        assert relative_rms(several.values.ravel(), reference) < 1e-3


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("accumulation", ["compensated", "narumi", "float"])
def test_direct_matches_numpy(backend, accumulation):
    positions, charges = random_system(300, 0, 2.5, 1)
    result = pm.computePotentialMap(positions, charges, lattice=([-0.2, 0.1, 0.0], [0.1, 0.12, 0.09], [27, 23, 29]),
                                    method="direct", accumulation=accumulation, backend=backend)
    assert result.shape == (27, 23, 29)
    reference, sensitivity = oracle(lattice_points(result), positions, charges, sensitivity=True)
    assert_matches_oracle(result.values, reference, sensitivity, backend, accumulation)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("accumulation", ["compensated", "narumi", "float"])
@pytest.mark.parametrize("boxShape", [None, "rectangular", "triclinic"])
def test_cutoff_matches_numpy_same_switch(backend, accumulation, boxShape):
    positions, charges = random_system(300, 0, 3.0, 2)
    box = {None: None, "rectangular": np.diag([3.0, 2.7, 2.9]),
           "triclinic": np.array([[3.0, 0, 0], [0.9, 2.9, 0], [-1.2, 1.1, 2.6]])}[boxShape]
    result = pm.computePotentialMap(positions, charges, lattice=([-0.3, 0.0, 0.1], [0.13, 0.13, 0.13], [26, 23, 22]), method="cutoff",
                                    cutoff=1.0, boxVectors=box, accumulation=accumulation, backend=backend)
    reference, sensitivity = oracle(lattice_points(result), positions, charges, cutoff=1.0, box=box, sensitivity=True)
    assert_matches_oracle(result.values, reference, sensitivity, backend, accumulation)


@pytest.mark.parametrize("backend", BACKENDS)
def test_single_charge_is_analytic(backend):
    position = np.array([[0.512, 0.487, 0.533]])
    for method, cutoff in (("direct", None), ("cutoff", 0.6)):
        result = pm.computePotentialMap(position, [-0.75], lattice=([0, 0, 0], [0.1] * 3, [11, 11, 11]), method=method,
                                        cutoff=cutoff or 1.2, backend=backend)
        r = np.linalg.norm(lattice_points(result) - position, axis=1)
        expected = COULOMB_CONSTANT * -0.75 / r * (1 if cutoff is None else np.where(r < cutoff, (1 - r ** 2 / cutoff ** 2) ** 2, 0))
        np.testing.assert_allclose(result.values.ravel(), expected, rtol=1e-6, atol=1e-6 * np.max(np.abs(expected)))


@pytest.mark.parametrize("backend", BACKENDS)
def test_neutral_periodic_water_box(backend):
    """A TIP3P box: periodic cutoff map against the minimum-image oracle, invariant under whole-box translations."""
    topology, positions, system = water_box(1.8)
    positions = np.array(positions.value_in_unit(unit.nanometer))
    charges = pm.chargesFromSystem(system)
    assert abs(charges.sum()) < 1e-9
    box = np.array(topology.getPeriodicBoxVectors().value_in_unit(unit.nanometer))
    result = pm.computePotentialMap(positions, charges, spacing=0.12, boxVectors=box, cutoff=0.85, backend=backend)
    np.testing.assert_allclose(result.spacing * np.array(result.shape), np.diag(box))  # the lattice tiles the box
    reference, sensitivity = oracle(lattice_points(result), positions, charges, cutoff=0.85, box=box, sensitivity=True)
    assert_matches_oracle(result.values, reference, sensitivity, backend)
    shifted = pm.computePotentialMap(positions + box[0] - 2 * box[2], charges, spacing=0.12, boxVectors=box, cutoff=0.85, backend=backend)
    np.testing.assert_allclose(shifted.values, result.values, rtol=0, atol=2e-5 * np.max(np.abs(result.values)))


@pytest.mark.parametrize("backend", BACKENDS)
def test_atoms_on_lattice_points_are_skipped_there(backend):
    positions, charges = random_system(60, 0, 2.0, 3)
    positions[::2] = 0.1 * np.round(positions[::2] / 0.1)  # every other atom exactly on a lattice point
    for method in ("direct", "cutoff"):
        result = pm.computePotentialMap(positions, charges, lattice=([0, 0, 0], [0.1] * 3, [21, 21, 21]), method=method,
                                        cutoff=0.8, backend=backend)
        reference, sensitivity = oracle(lattice_points(result), positions, charges, cutoff=None if method == "direct" else 0.8,
                                        sensitivity=True)
        assert_matches_oracle(result.values, reference, sensitivity, backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_dense_cluster_loses_no_atom(backend):
    cluster, cluster_charges = random_system(3000, 1.0, 1.02, 4)  # thousands of atoms in one 0.02 nm cube
    background, background_charges = random_system(200, 0, 2.5, 5)
    positions = np.vstack([cluster, background])
    charges = np.concatenate([cluster_charges, background_charges])
    result = pm.computePotentialMap(positions, charges, lattice=([0.05] * 3, [0.1] * 3, [24, 24, 24]), cutoff=1.0, backend=backend)
    reference, sensitivity = oracle(lattice_points(result), positions, charges, cutoff=1.0, sensitivity=True)
    assert_matches_oracle(result.values, reference, sensitivity, backend)


def test_bad_input_raises_with_the_value():
    positions, charges = random_system(10, 0, 1.0, 6)
    lattice = ([0, 0, 0], [0.1] * 3, [5, 5, 5])
    with pytest.raises(ValueError, match="got 0 nm"):
        pm.computePotentialMap(positions, charges, lattice=([0, 0, 0], [0.0, 0.1, 0.1], [5, 5, 5]), backend="cpu")
    with pytest.raises(ValueError, match="-0.05"):
        pm.computePotentialMap(positions, charges, spacing=-0.05, backend="cpu")
    with pytest.raises(ValueError, match="empty"):
        pm.computePotentialMap(positions, charges, lattice=([0, 0, 0], [0.1] * 3, [5, 0, 5]), backend="cpu")
    bad = positions.copy()
    bad[7, 2] = np.nan
    with pytest.raises(ValueError, match="atom 7"):
        pm.computePotentialMap(bad, charges, lattice=lattice, backend="cpu")
    with pytest.raises(ValueError, match="half the smallest width"):
        pm.computePotentialMap(positions, charges, lattice=lattice, cutoff=1.0, boxVectors=np.diag([1.5, 3, 3]), backend="cpu")
    with pytest.raises(ValueError, match="one entry per atom"):
        pm.computePotentialMap(positions, charges[:-1], lattice=lattice, backend="cpu")
    with pytest.raises(ValueError, match="method"):
        pm.computePotentialMap(positions, charges, lattice=lattice, method="pme", backend="cpu")
    with pytest.raises(ValueError, match="non-periodic|periodic"):
        pm.computePotentialMap(positions, charges, lattice=lattice, method="direct", boxVectors=np.diag([3, 3, 3]), backend="cpu")
    with pytest.raises(ValueError, match="units"):
        pm.unitFactor("volts")


def test_units():
    assert pm.unitFactor("kJ/mol/e") == 1
    assert pm.unitFactor("V") == pytest.approx(0.010364269656262174)      # 1 kJ/mol per e = 1000/F volt
    assert pm.unitFactor("kT/e", 300) == pytest.approx(1 / 2.494338785445972)
    assert pm.unitFactor("kT/e", 300 * unit.kelvin) == pm.unitFactor("kT/e", 300)
    assert pm.unitFactor("e/A") * COULOMB_CONSTANT * 10 == pytest.approx(1)


def test_dx_file_reads_back_with_gridData(tmp_path):
    gridData = pytest.importorskip("gridData")
    positions, charges = random_system(50, 0, 2.0, 7)
    result = pm.computePotentialMap(positions, charges, lattice=([0.3, -0.2, 0.1], [0.1, 0.15, 0.12], [13, 11, 7]),
                                    cutoff=0.8, backend="cpu")
    path = tmp_path / "map.dx"
    result.writeDX(str(path), units="kT/e", temperature=310)
    grid = gridData.Grid(str(path))
    assert grid.grid.shape == (13, 11, 7)
    np.testing.assert_allclose(grid.origin, [3.0, -2.0, 1.0])          # Angstrom
    np.testing.assert_allclose(grid.delta, [1.0, 1.5, 1.2])
    np.testing.assert_allclose(grid.grid, result.values / (0.0083144626 * 310), rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("extension", [".mrc", ".map"])
def test_mrc_file_reads_back_with_gridData(tmp_path, extension):
    # gridData's MRC reader (origin and voxel size from the header) against the values written, in Angstrom and kT/e.
    gridData = pytest.importorskip("gridData")
    positions, charges = random_system(50, 0, 2.0, 7)
    result = pm.computePotentialMap(positions, charges, lattice=([0.3, -0.2, 0.1], [0.1, 0.15, 0.12], [13, 11, 7]),
                                    cutoff=0.8, backend="cpu")
    path = tmp_path / f"map{extension}"
    result.write(str(path), units="kT/e", temperature=310)
    grid = gridData.Grid(str(path), file_format="MRC")  # gridData does not know the .map extension
    assert grid.grid.shape == (13, 11, 7)
    np.testing.assert_allclose(grid.origin, [3.0, -2.0, 1.0], atol=1e-5)
    np.testing.assert_allclose(grid.delta, [1.0, 1.5, 1.2], rtol=1e-6)
    np.testing.assert_allclose(grid.grid, result.values / (0.0083144626 * 310), rtol=1e-6, atol=1e-6)


def test_map_files_of_unknown_format_are_refused_first(tmp_path):
    with pytest.raises(ValueError, match="extension"):
        pm.PotentialMapReporter(str(tmp_path / "average.ccp4"), 10)
    assert pm.main([os.path.join(tmp_path, "missing.pdb"), "--output", str(tmp_path / "out.txt")]) == 2


def test_png_slice(tmp_path):
    positions, charges = random_system(30, 0, 1.5, 8)
    result = pm.computePotentialMap(positions, charges, spacing=0.1, backend="cpu")
    path = tmp_path / "slice.png"
    result.writeSlicePNG(str(path), axis="y")
    with open(path, "rb") as png:
        assert png.read(8) == b"\x89PNG\r\n\x1a\n"


class _PositionRecorder:
    """Keeps the positions the simulation hands to reporters at the same steps as the map reporter."""

    def __init__(self, interval):
        self.interval = interval
        self.frames = []

    def describeNextReport(self, simulation):
        return {"steps": self.interval - simulation.currentStep % self.interval, "periodic": False, "include": ["positions"]}

    def report(self, simulation, state):
        self.frames.append(state.getPositions(asNumpy=True).value_in_unit(unit.nanometer).copy())


def _water_simulation(edge_nm, cutoff_nm):
    """A Langevin simulation of a TIP3P box on the Reference platform: (topology, system, simulation)."""
    topology, positions, system = water_box(edge_nm, cutoff_nm=cutoff_nm)
    integrator = openmm.LangevinMiddleIntegrator(300 * unit.kelvin, 1 / unit.picosecond, 0.002 * unit.picoseconds)
    simulation = app.Simulation(topology, system, integrator, openmm.Platform.getPlatformByName("Reference"))
    simulation.context.setPositions(positions)
    return topology, system, simulation


def _run_with_recorder(simulation, reporter, interval, steps):
    """Runs the simulation with reporter and a _PositionRecorder at the same steps; returns the recorder."""
    recorder = _PositionRecorder(interval)
    simulation.reporters += [reporter, recorder]
    simulation.step(steps)
    return recorder


@pytest.mark.parametrize("backend", BACKENDS)
def test_reporter_writes_the_time_average(tmp_path, backend):
    topology, system, simulation = _water_simulation(1.8, 0.8)
    path = tmp_path / "average.dx"
    reporter = pm.PotentialMapReporter(str(path), 5, spacing=0.15 * unit.nanometer, cutoff=0.8 * unit.nanometer, backend=backend)
    recorder = _run_with_recorder(simulation, reporter, 5, 15)
    assert len(recorder.frames) == 3 and reporter.backend == backend
    average = reporter.map
    box = np.array(topology.getPeriodicBoxVectors().value_in_unit(unit.nanometer))
    points = lattice_points(average)
    charges = pm.chargesFromSystem(system)
    expected, sensitivity = np.mean([oracle(points, frame, charges, cutoff=0.8, box=box, sensitivity=True)
                                     for frame in recorder.frames], axis=0)
    assert_matches_oracle(average.values, expected, sensitivity, backend)
    reporter.close()
    assert path.exists() and (tmp_path / "average.png").exists()
    gridData = pytest.importorskip("gridData")
    np.testing.assert_allclose(gridData.Grid(str(path)).grid, average.inUnits("kT/e"), rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("backend", BACKENDS)
def test_reporter_averages_msm_maps_as_the_ewald_potential(tmp_path, backend):
    from ewald_sum import ewald_potential
    topology, system, simulation = _water_simulation(2.5, 1.0)
    path = tmp_path / "msm.dx"
    reporter = pm.PotentialMapReporter(str(path), 4, spacing=0.31 * unit.nanometer, method="msm", msmOrder=5,
                                       backend=backend, png=False)
    recorder = _run_with_recorder(simulation, reporter, 4, 8)
    average = reporter.map
    box = np.array(topology.getPeriodicBoxVectors().value_in_unit(unit.nanometer))
    charges = pm.chargesFromSystem(system)
    expected = np.mean([ewald_potential(lattice_points(average), frame, charges, box) for frame in recorder.frames], axis=0)
    error = relative_rms(average.values.ravel(), expected)
    assert len(recorder.frames) == 2 and 0 < error < 1e-3
    reporter.close()
    simulation.reporters.remove(reporter)
    # Continuing needs the same msm settings; other ones are named.
    with pytest.raises(ValueError, match="msmOrder"):
        other = pm.PotentialMapReporter(str(path), 4, spacing=0.31 * unit.nanometer, method="msm", msmOrder=3,
                                        backend=backend, png=False, append=True)
        simulation.reporters.append(other)
        simulation.step(4)


def test_reporter_names_bad_msm_settings_at_once(tmp_path):
    with pytest.raises(ValueError, match="msmOrder"):
        pm.PotentialMapReporter(str(tmp_path / "m.dx"), 10, method="msm", msmOrder=4)
    with pytest.raises(ValueError, match="msmAccuracy"):
        pm.PotentialMapReporter(str(tmp_path / "m.dx"), 10, method="msm", msmAccuracy=1e-9)


def test_command_line_msm_map_is_the_direct_sums(tmp_path, data_dir):
    pdb = os.path.join(data_dir, "5dfr_minimized.pdb")
    if not os.path.exists(pdb):
        pytest.skip(f"{pdb} not found")
    gridData = pytest.importorskip("gridData")
    grids = {}
    for method, extension in (("msm", ".mrc"), ("direct", ".dx")):
        out = tmp_path / f"{method}{extension}"
        assert pm.main([pdb, "--spacing", "0.3", "--method", method, "--output", str(out), "--quiet"]) == 0
        grids[method] = gridData.Grid(str(out)).grid
    msm, direct = grids["msm"], grids["direct"]
    assert msm.shape == direct.shape and (tmp_path / "msm.png").exists()
    assert relative_rms(msm, direct) < 1e-3


def test_command_line_on_dhfr(tmp_path, data_dir):
    pdb = os.path.join(data_dir, "5dfr_minimized.pdb")
    if not os.path.exists(pdb):
        pytest.skip(f"{pdb} not found")
    out = tmp_path / "dhfr.dx"
    assert pm.main([pdb, "--spacing", "0.25", "--method", "cutoff", "--cutoff", "1.0", "--output", str(out)]) == 0
    gridData = pytest.importorskip("gridData")
    grid = gridData.Grid(str(out))
    assert np.all(np.isfinite(grid.grid)) and (tmp_path / "dhfr.png").exists()
    assert grid.grid.min() < -1 and grid.grid.max() > 1  # a protein's map has both signs, well beyond 1 kT/e


def test_trajectory_average_with_mdtraj(tmp_path):
    pytest.importorskip("mdtraj")
    topology, positions, system = water_box(1.6, cutoff_nm=0.7)
    integrator = openmm.VerletIntegrator(0.001 * unit.picoseconds)
    simulation = app.Simulation(topology, system, integrator, openmm.Platform.getPlatformByName("Reference"))
    simulation.context.setPositions(positions)
    simulation.context.setVelocitiesToTemperature(300 * unit.kelvin, 1)
    pdb_path, dcd_path = str(tmp_path / "water.pdb"), str(tmp_path / "water.dcd")
    with open(pdb_path, "w") as f:
        app.PDBFile.writeFile(topology, positions, f)
    recorder = _PositionRecorder(4)
    simulation.reporters += [app.DCDReporter(dcd_path, 4), recorder]
    simulation.step(12)
    del simulation  # closes the DCD file
    result = pm.potentialMapFromTrajectory(dcd_path, pdb_path, forcefield=["amber14/tip3p.xml"], spacing=0.2, cutoff=0.7,
                                           backend="cpu", progress=False)
    assert result.frames == 3
    box = np.array(topology.getPeriodicBoxVectors().value_in_unit(unit.nanometer))
    charges = pm.chargesFromSystem(system)
    expected = np.mean([oracle(lattice_points(result), f, charges, cutoff=0.7, box=box) for f in recorder.frames], axis=0)
    # DCD stores single-precision Angstrom coordinates: ~1e-6 nm, hence the looser tolerance.
    assert max_relative_error(result.values.ravel(), expected) < 1e-3


def test_pqr_input_gives_the_pdbs_map(data_dir, tmp_path):
    """The map of a PQR file carrying the force field's charges equals the PDB's map within the file's rounding."""
    from conftest import write_pqr
    from openmmnarumi import hcp
    pdb = os.path.join(data_dir, "5dfr_minimized.pdb")
    if not os.path.exists(pdb):
        pytest.skip(f"{pdb} not found")
    topology, positions, charges = hcp.prepareMolecule(pdb, forcefield=("amber14-all.xml", "amber14/tip3p.xml"))
    pqr = str(tmp_path / "dhfr.pqr")
    write_pqr(pqr, topology, positions, charges, hcp.atomicRadii(topology))
    fromPdb = pm.potentialMapFromStructure(pdb, spacing=0.3, cutoff=1.0, backend="cpu")
    fromPqr = pm.potentialMapFromStructure(pqr, spacing=0.3, cutoff=1.0, backend="cpu")
    assert fromPqr.shape == fromPdb.shape and np.allclose(fromPqr.origin, fromPdb.origin, atol=1e-4)
    assert relative_rms(fromPqr.values, fromPdb.values) < 1e-3
