"""openmmnarumi.mdanalysis against independent oracles: MDAnalysis' own InterRDF on the same frames, a NumPy
double-precision direct sum (potential maps), the ALPB formula in NumPy (surface potential); identical counts on
every parallel backend (serial, multiprocessing, dask, a dask.distributed LocalCluster) and worker count; a DCD
written by a simulation of NarumiNonbondedForce; bad input and a worker failing mid-run raise.  CUDA variants
skip without a device."""
import os

import numpy as np
import openmm
import openmm.app as app
import openmm.unit as unit
import pytest

mda = pytest.importorskip("MDAnalysis")
from MDAnalysis.analysis.rdf import InterRDF as ReferenceInterRDF  # noqa: E402
from MDAnalysis.lib.mdamath import triclinic_vectors  # noqa: E402

import openmmnarumi  # noqa: E402
from openmmnarumi.mdanalysis import (DaskClusterBackend, InterRDF, PotentialMapAnalysis,  # noqa: E402
                                     SurfacePotentialAnalysis)
from openmmnarumi.rdf import cudaAvailable  # noqa: E402

from conftest import relative_rms, water_box  # noqa: E402
from test_potentialmap import lattice_points, oracle  # noqa: E402  (the maps' float64 direct sum)

engines = ["cpu"] + (["cuda"] if cudaAvailable() else [])


def water_universe(n_molecules=300, n_frames=6, box=(25.0, 25.0, 25.0, 90.0, 90.0, 90.0), seed=1):
    """Random 'water' (O, H, H residues, TIP3P charges) in a box (Angstrom), in memory."""
    rng = np.random.default_rng(seed)
    n = 3 * n_molecules
    u = mda.Universe.empty(n, n_residues=n_molecules, atom_resindex=np.repeat(np.arange(n_molecules), 3),
                           trajectory=True)
    u.add_TopologyAttr("name", ["OW", "HW1", "HW2"] * n_molecules)
    u.add_TopologyAttr("type", ["O", "H", "H"] * n_molecules)
    u.add_TopologyAttr("elements", ["O", "H", "H"] * n_molecules)
    u.add_TopologyAttr("resname", ["SOL"] * n_molecules)
    u.add_TopologyAttr("charges", [-0.834, 0.417, 0.417] * n_molecules)
    vectors = triclinic_vectors(np.array(box, dtype=np.float32))
    coordinates = (rng.random((n_frames, n, 3)) * 1.2 - 0.1) @ vectors  # some atoms outside the cell
    u.load_new(coordinates.astype(np.float32), order="fac", dimensions=np.array(box, dtype=np.float32))
    return u


def assert_counts_match_mdanalysis(ours, reference):
    """Equal bins and counts up to the pairs whose distance rounds across a bin edge (single vs double)."""
    np.testing.assert_allclose(ours.results.edges, reference.results.edges, rtol=0, atol=1e-12)
    np.testing.assert_allclose(ours.results.bins, reference.results.bins, rtol=0, atol=1e-12)
    difference = np.abs(ours.results.count - reference.results.count).sum()
    assert reference.results.count.sum() > 10000
    assert difference <= max(8, 1e-4 * reference.results.count.sum()), difference
    # The same normalisation: g differs only where the counts do.
    np.testing.assert_allclose(ours.results.rdf * reference.results.count, reference.results.rdf * ours.results.count,
                               rtol=1e-12, atol=1e-300)


# --- InterRDF against MDAnalysis' InterRDF -----------------------------------------------------------------------

@pytest.mark.parametrize("engine", engines)
@pytest.mark.parametrize("box", [(25.0, 25.0, 25.0, 90.0, 90.0, 90.0), (30.0, 28.0, 26.0, 70.0, 80.0, 65.0)],
                         ids=["cubic", "triclinic"])
@pytest.mark.parametrize("case", ["identical", "disjoint", "exclusion_block", "exclude_same", "density", "none"])
def test_interrdf_equals_mdanalysis(engine, box, case):
    u = water_universe(box=box)
    oxygens, hydrogens = u.select_atoms("name OW"), u.select_atoms("type H")
    args = {"identical": dict(g1=oxygens, g2=oxygens),  # an atom in both groups pairs with itself at r = 0
            "disjoint": dict(g1=oxygens, g2=hydrogens),
            "exclusion_block": dict(g1=u.atoms, g2=u.atoms, exclusion_block=(3, 3)),
            "exclude_same": dict(g1=u.atoms, g2=hydrogens, exclude_same="residue"),
            "density": dict(g1=oxygens, g2=hydrogens, norm="density"),
            "none": dict(g1=hydrogens, g2=u.atoms, norm="none")}[case]
    settings = dict(nbins=50, range=(0.0, 10.0))
    reference = ReferenceInterRDF(**args, **settings).run()
    ours = InterRDF(**args, **settings, engine=engine).run()
    assert ours.results.count.dtype == np.int64
    assert_counts_match_mdanalysis(ours, reference)


def test_interrdf_frame_selection_and_rmin():
    u = water_universe(n_frames=8)
    oxygens = u.select_atoms("name OW")
    settings = dict(nbins=40, range=(2.0, 9.0))
    reference = ReferenceInterRDF(oxygens, oxygens, **settings).run(start=1, stop=7, step=2)
    ours = InterRDF(oxygens, oxygens, **settings).run(start=1, stop=7, step=2)
    assert list(ours.frames) == [1, 3, 5]
    assert_counts_match_mdanalysis(ours, reference)


def test_interrdf_reads_the_dcd_of_a_narumi_simulation(tmp_path):
    """OpenMM writes a DCD of a simulation with NarumiNonbondedForce; MDAnalysis reads it for both classes."""
    topology, positions, system = water_box(2.5)
    openmmnarumi.replaceNonbondedForces(system)
    simulation = app.Simulation(topology, system, openmm.LangevinMiddleIntegrator(300, 1, 0.002),
                                openmm.Platform.getPlatformByName("CPU"))
    simulation.context.setPositions(positions)
    simulation.minimizeEnergy(maxIterations=50)
    pdb, dcd = str(tmp_path / "water.pdb"), str(tmp_path / "water.dcd")
    with open(pdb, "w") as f:
        app.PDBFile.writeFile(topology, positions, f)
    simulation.reporters.append(app.DCDReporter(dcd, 10))
    simulation.step(60)
    del simulation
    u = mda.Universe(pdb, dcd)
    assert len(u.trajectory) == 6
    oxygens = u.select_atoms("name O")
    settings = dict(nbins=60, range=(0.0, 12.0))
    reference = ReferenceInterRDF(oxygens, oxygens, exclusion_block=(1, 1), **settings).run()
    ours = InterRDF(oxygens, oxygens, exclusion_block=(1, 1), **settings).run()
    assert_counts_match_mdanalysis(ours, reference)
    # The first O-O peak of water at about 2.8 A.
    assert 2.5 < ours.results.bins[np.argmax(ours.results.rdf)] < 3.1


# --- parallel backends: identical results -------------------------------------------------------------------------

def run_everywhere(make, **runs):
    results = {"serial": make().run()}
    for name, kwargs in runs.items():
        results[name] = make().run(**kwargs)
    return results


def test_interrdf_counts_identical_on_every_backend_and_worker_count():
    u = water_universe(n_frames=7)
    oxygens, hydrogens = u.select_atoms("name OW"), u.select_atoms("type H")
    results = run_everywhere(lambda: InterRDF(oxygens, hydrogens, nbins=50, range=(0.0, 10.0)),
                             multiprocessing2=dict(backend="multiprocessing", n_workers=2),
                             multiprocessing3=dict(backend="multiprocessing", n_workers=3),
                             dask2=dict(backend="dask", n_workers=2),
                             parts5=dict(backend="multiprocessing", n_workers=2, n_parts=5))
    serial = results.pop("serial")
    for name, run in results.items():
        assert np.array_equal(run.results.count, serial.results.count), name
        assert run.results.volume_cum == pytest.approx(serial.results.volume_cum, rel=1e-12), name
        np.testing.assert_allclose(run.results.rdf, serial.results.rdf, rtol=1e-12, err_msg=name)
        assert list(run.frames) == list(range(7)), name


def test_dask_distributed_local_cluster():
    distributed = pytest.importorskip("distributed")
    u = water_universe(n_frames=6)
    oxygens = u.select_atoms("name OW")
    serial = InterRDF(oxygens, oxygens, nbins=50, range=(0.0, 10.0)).run()
    surface = SurfacePotentialAnalysis(u.residues[:10].atoms, mode="exact").run()
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        backend = DaskClusterBackend(client)
        assert backend.n_workers == 2
        clustered = InterRDF(oxygens, oxygens, nbins=50, range=(0.0, 10.0)).run(backend=backend)
        assert np.array_equal(clustered.results.count, serial.results.count)
        # The same through the scheduler's address, as against a remote cluster.
        remote = DaskClusterBackend(cluster.scheduler_address)
        clusteredSurface = SurfacePotentialAnalysis(u.residues[:10].atoms, mode="exact").run(backend=remote)
        np.testing.assert_allclose(clusteredSurface.results.total, surface.results.total, rtol=1e-12)
        # A part that fails on a worker fails the run.
        coordinates = u.trajectory.coordinate_array.copy()
        coordinates[4, 6] = np.nan  # an oxygen
        broken = mda.Universe(u._topology, coordinates, dimensions=u.dimensions)
        with pytest.raises(ValueError, match="not finite"):
            InterRDF(broken.select_atoms("name OW"), broken.select_atoms("name OW"), nbins=10,
                     range=(0.0, 10.0)).run(backend=backend)
        remote.client.close()


def test_unreachable_scheduler_is_a_clear_error():
    pytest.importorskip("distributed")
    with pytest.raises(ConnectionError, match="tcp://127.0.0.1:9"):
        DaskClusterBackend("tcp://127.0.0.1:9", timeout=1)


@pytest.mark.parametrize("backend", ["serial", "multiprocessing", "dask"])
def test_a_failing_frame_fails_the_run(backend):
    u = water_universe(n_frames=6)
    coordinates = u.trajectory.coordinate_array.copy()
    coordinates[4, 3] = np.nan
    broken = mda.Universe(u._topology, coordinates, dimensions=u.dimensions)
    oxygens = broken.select_atoms("name OW")
    with pytest.raises(ValueError, match="not finite"):
        InterRDF(oxygens, oxygens, nbins=10, range=(0.0, 10.0)).run(backend=backend, n_workers=2 if backend != "serial" else None)


def test_device_of_each_part():
    u = water_universe(n_frames=2)
    rdf = InterRDF(u.atoms, u.atoms, devices=[0, 0, 1])
    assert [rdf.deviceForPart(k) for k in range(5)] == [0, 0, 1, 0, 0]
    with pytest.raises(ValueError, match="devices"):
        InterRDF(u.atoms, u.atoms, devices=[-1])


PLAIN_SCRIPT = """
import numpy as np
import MDAnalysis as mda
from openmmnarumi.mdanalysis import InterRDF
rng = np.random.default_rng(5)
u = mda.Universe.empty(600, trajectory=True)
u.add_TopologyAttr("name", ["OW"] * 600)
u.load_new((rng.random((4, 600, 3)) * 25.0).astype(np.float32), order="fac",
           dimensions=np.array([25.0, 25.0, 25.0, 90.0, 90.0, 90.0], dtype=np.float32))
rdf = InterRDF(u.atoms, u.atoms, nbins=40, range=(0.0, 10.0)).run(backend="multiprocessing", n_workers=2)
np.save(OUTPUT, rdf.results.count)
"""


def test_multiprocessing_runs_from_a_plain_script_without_a_main_guard(tmp_path):
    """A script with no ``if __name__ == "__main__":`` guard runs in parallel (workers do not run it again), and its
    counts are those of the serial run here."""
    import subprocess
    import sys
    script = tmp_path / "plain.py"
    output = tmp_path / "count.npy"
    script.write_text(f"OUTPUT = {str(output)!r}\n" + PLAIN_SCRIPT)
    result = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    namespace = {"OUTPUT": str(tmp_path / "serial.npy")}
    exec(PLAIN_SCRIPT.replace('.run(backend="multiprocessing", n_workers=2)', ".run()"), namespace)
    assert np.load(output).sum() > 10000
    assert np.array_equal(np.load(output), np.load(tmp_path / "serial.npy"))


def test_a_plain_script_whose_analysis_needs_it_gets_one_clear_error(tmp_path):
    """An analysis class defined in a script without the guard: the workers must run the script, which starts them
    again; the run ends in one error that says what to do."""
    import subprocess
    import sys
    script = tmp_path / "subclass.py"
    body = PLAIN_SCRIPT.replace("rdf = InterRDF(", "class MyRDF(InterRDF):\n    pass\nrdf = MyRDF(")
    script.write_text(f"OUTPUT = {str(tmp_path / 'count.npy')!r}\n" + body)
    result = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert result.returncode != 0
    # The run's own exception (the dying workers may print their tracebacks after it).
    raised = [line for line in result.stderr.splitlines() if line.startswith("RuntimeError: the multiprocessing workers")]
    assert len(raised) == 1 and 'if __name__ == "__main__":' in raised[0], result.stderr[-3000:]


@pytest.mark.skipif(not cudaAvailable(), reason="no CUDA device")
def test_cuda_workers_after_the_parent_used_cuda(cuda_devices):
    """The parent runs on the GPU first; workers (forkserver) still get the GPUs of the multi-device tests."""
    u = water_universe(n_frames=6)
    oxygens = u.select_atoms("name OW")
    serial = InterRDF(oxygens, oxygens, nbins=50, range=(0.0, 10.0), engine="cuda").run()
    parallel = InterRDF(oxygens, oxygens, nbins=50, range=(0.0, 10.0), engine="cuda", devices=cuda_devices).run(
        backend="multiprocessing", n_workers=2)
    assert np.array_equal(parallel.results.count, serial.results.count)


@pytest.mark.skipif(not cudaAvailable(), reason="no CUDA device")
def test_a_missing_device_is_named():
    u = water_universe(n_frames=2)
    with pytest.raises(ValueError, match="cudaDevice = 99"):
        InterRDF(u.atoms, u.atoms, range=(0.0, 8.0), engine="cuda", devices=[99]).run()
    with pytest.raises(ValueError, match="cudaDevice = 99"):
        PotentialMapAnalysis(u.atoms, spacing=3.0, engine="cuda", devices=[99]).run()


# --- potential maps -----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("engine", engines)
def test_potential_map_direct_equals_numpy_average(engine, tmp_path):
    u = water_universe(n_molecules=40, n_frames=4, box=(14.0, 14.0, 14.0, 90, 90, 90))
    analysis = PotentialMapAnalysis(u.atoms, spacing=2.0, method="direct", margin=2.0, engine=engine).run()
    potential_map = analysis.results.potential_map
    assert potential_map.frames == 4
    points = lattice_points(potential_map)
    expected = np.mean([oracle(points, ts.positions.astype(np.float64) * 0.1, u.atoms.charges)
                        for ts in u.trajectory], axis=0).reshape(potential_map.shape)
    scale = np.abs(expected).max()
    np.testing.assert_allclose(potential_map.values, expected, rtol=0, atol=1e-5 * scale)
    potential_map.writeDX(str(tmp_path / "map.dx"))
    assert os.path.getsize(tmp_path / "map.dx") > 1000
    parallel = PotentialMapAnalysis(u.atoms, spacing=2.0, method="direct", margin=2.0, engine=engine).run(
        backend="multiprocessing", n_workers=2)
    np.testing.assert_allclose(parallel.results.potential_map.values, potential_map.values, rtol=1e-12, atol=1e-12 * scale)


def test_potential_map_periodic_cutoff_equals_the_engine_frame_by_frame():
    from openmmnarumi.potentialmap import computePotentialMap
    u = water_universe(n_molecules=60, n_frames=3, box=(16.0, 17.0, 18.0, 90, 90, 90))
    analysis = PotentialMapAnalysis(u.atoms, spacing=2.0, cutoff=7.0).run()
    assert analysis.periodic
    frames = [computePotentialMap(ts.positions.astype(np.float64) * 0.1, u.atoms.charges, spacing=0.2, cutoff=0.7,
                                  boxVectors=triclinic_vectors(ts.dimensions).astype(np.float64) * 0.1).values for ts in u.trajectory]
    expected = np.mean(frames, axis=0)  # each frame's map rounded to float32 by compute(); the sum is not
    np.testing.assert_allclose(analysis.results.potential_map.values, expected, rtol=0,
                               atol=1e-6 * np.abs(expected).max())


@pytest.mark.parametrize("engine", engines)
def test_potential_map_msm_is_the_ewald_potential(engine):
    from ewald_sum import ewald_potential
    u = water_universe(n_molecules=300, n_frames=2, box=(26.0, 27.0, 28.0, 90, 90, 90))
    analysis = PotentialMapAnalysis(u.atoms, spacing=3.0, method="msm", msm_order=3, engine=engine).run()
    assert analysis.periodic
    potential_map = analysis.results.potential_map
    points = lattice_points(potential_map)
    expected = np.mean([ewald_potential(points, ts.positions.astype(np.float64) * 0.1, u.atoms.charges,
                                        triclinic_vectors(ts.dimensions).astype(np.float64) * 0.1)
                        for ts in u.trajectory], axis=0)
    error = relative_rms(potential_map.values.ravel(), expected)
    assert 0 < error < 1e-3


def test_potential_map_bad_input():
    u = water_universe(n_frames=2)
    with pytest.raises(ValueError, match="empty"):
        PotentialMapAnalysis(u.atoms[[]])
    with pytest.raises(ValueError, match="3 charges for 900 atoms"):
        PotentialMapAnalysis(u.atoms, charges=[1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="method"):
        PotentialMapAnalysis(u.atoms, method="pme")
    with pytest.raises(ValueError, match="spacing = 0 A"):
        PotentialMapAnalysis(u.atoms, spacing=0)
    with pytest.raises(ValueError, match="cutoff = -12 A"):
        PotentialMapAnalysis(u.atoms, cutoff=-12)
    with pytest.raises(ValueError, match="msmOrder"):
        PotentialMapAnalysis(u.atoms, method="msm", msm_order=4)
    no_box = mda.Universe(u._topology, u.trajectory.coordinate_array.copy())
    with pytest.raises(ValueError, match="no box"):
        PotentialMapAnalysis(no_box.atoms, periodic=True)


# --- surface potential --------------------------------------------------------------------------------------------

def rigid_copies(positions, n_frames, seed=3):
    """Frames that are rotations and translations of one structure."""
    rng = np.random.default_rng(seed)
    frames = [positions]
    for _ in range(n_frames - 1):
        q, _ = np.linalg.qr(rng.normal(size=(3, 3)))
        q *= np.sign(np.linalg.det(q))
        frames.append((positions - positions.mean(0)) @ q + positions.mean(0) + rng.normal(size=3))
    return np.array(frames, dtype=np.float32)


@pytest.mark.parametrize("engine", engines)
def test_surface_potential_exact_equals_the_alpb_formula_and_follows_the_molecule(engine):
    from openmmnarumi import COULOMB_CONSTANT
    from openmmnarumi.hcp import ALPB_ALPHA
    u = water_universe(n_molecules=20, n_frames=1, box=(12.0, 12.0, 12.0, 90, 90, 90), seed=5)
    molecule = mda.Universe(u._topology, rigid_copies(u.atoms.positions.astype(np.float64), 4))
    analysis = SurfacePotentialAnalysis(molecule.atoms, mode="exact", engine=engine).run()
    total = analysis.results.total
    assert len(total) == 4
    # Rigid motions: the points follow the molecule, so every frame has frame 0's potentials.
    np.testing.assert_allclose(total, total[0], rtol=1e-6)
    # Frame 0 against the ALPB formula in NumPy (eps_in 1, eps_out 80).
    beta = 1.0 / 80.0
    points = analysis.results.points * 0.1
    positions = molecule.trajectory[0].positions.astype(np.float64) * 0.1
    d = np.linalg.norm(points[:, None, :] - positions[None, :, :], axis=2)
    size = analysis._size
    r = size + analysis._offset
    charges = molecule.atoms.charges
    phi = COULOMB_CONSTANT / (80.0 * (1 + ALPB_ALPHA * beta)) * np.sum(
        charges[None, :] * ((1 + ALPB_ALPHA) / d - ALPB_ALPHA * (1 - beta) / r), axis=1)
    assert total[0] == pytest.approx(phi.sum(), rel=1e-5, abs=1e-6 * np.abs(phi).sum())
    np.testing.assert_allclose(analysis.results.point_mean, phi, rtol=0, atol=1e-5 * np.abs(phi).max())
    np.testing.assert_allclose(analysis.results.mean, total / len(points), rtol=1e-12)
    parallel = SurfacePotentialAnalysis(molecule.atoms, mode="exact", engine=engine).run(backend="dask", n_workers=2)
    np.testing.assert_allclose(parallel.results.total, total, rtol=1e-12)
    np.testing.assert_allclose(parallel.results.point_mean, analysis.results.point_mean, rtol=1e-9,
                               atol=1e-12 * np.abs(phi).max())


def test_surface_potential_bad_input():
    u = water_universe(n_frames=2)
    with pytest.raises(ValueError, match="mode"):
        SurfacePotentialAnalysis(u.atoms, mode="fast")
    with pytest.raises(ValueError, match="reference_frame = 5"):
        SurfacePotentialAnalysis(u.atoms, reference_frame=5)
    plain = mda.Universe.empty(3, trajectory=True)
    with pytest.raises(ValueError, match="no charges"):
        SurfacePotentialAnalysis(plain.atoms)


# --- bad input of InterRDF ----------------------------------------------------------------------------------------

def test_interrdf_bad_input():
    u = water_universe(n_frames=2)
    oxygens = u.select_atoms("name OW")
    with pytest.raises(ValueError, match="empty atom group"):
        InterRDF(oxygens, u.atoms[[]])
    with pytest.raises(ValueError, match="invalid norm"):
        InterRDF(oxygens, oxygens, norm="gofr")
    with pytest.raises(ValueError, match="nbins"):
        InterRDF(oxygens, oxygens, nbins=0)
    with pytest.raises(ValueError, match="range"):
        InterRDF(oxygens, oxygens, range=(5.0, 2.0))
    with pytest.raises(ValueError, match="exclude_same"):
        InterRDF(oxygens, oxygens, exclude_same="molecule")
    with pytest.raises(ValueError, match="engine"):
        InterRDF(oxygens, oxygens, engine="opencl")
    with pytest.raises(ValueError, match="block"):
        InterRDF(u.atoms[:6], u.atoms[3:9], exclusion_block=(3, 2))
    with pytest.raises(ValueError, match=r"range\[1\] = 15 A is more than half the box of frame 0 .* = 12.5 A"):
        InterRDF(oxygens, oxygens, range=(0.0, 15.0)).run()  # the 25 A box allows 12.5 A
    no_box = mda.Universe(u._topology, u.trajectory.coordinate_array.copy())
    with pytest.raises(ValueError, match="frame 0 has no periodic box"):
        InterRDF(no_box.atoms, no_box.atoms, range=(0.0, 5.0)).run()
    # Without a box and with norm="none", pairs are counted without images, as InterRDF does.
    reference = ReferenceInterRDF(no_box.select_atoms("name OW"), no_box.select_atoms("type H"), nbins=20,
                                  range=(0.0, 8.0), norm="none").run()
    ours = InterRDF(no_box.select_atoms("name OW"), no_box.select_atoms("type H"), nbins=20, range=(0.0, 8.0),
                    norm="none").run()
    assert_counts_match_mdanalysis(ours, reference)
    with pytest.raises(ValueError, match="same number of atoms|not match|atoms"):
        mda.Universe(u._topology, np.zeros((2, 10, 3), dtype=np.float32))
