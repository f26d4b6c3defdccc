"""openmmnarumi.hcp: the ALPB surface potential against a double-precision NumPy sum and analytic limits, HCP
against exact summation on DHFR and on an assembly of DHFR copies, the approximate charges' monopole and dipole,
surface points against mdtraj's Shrake-Rupley SASA, the command line, and clear errors for bad input."""
import os

import numpy as np
import openmm.app as app
import pytest

from conftest import relative_rms, write_pqr
from openmmnarumi import COULOMB_CONSTANT, hcp

ALPHA = 0.580127


def alpb_numpy(positions, charges, points, eps_in, eps_out, r):
    """The ALPB potential of Fenley et al. (salt-free, outside) by a float64 NumPy direct sum."""
    beta = eps_in / eps_out
    d = np.linalg.norm(points[:, None, :] - positions[None, :, :], axis=2)
    terms = charges[None, :] * ((1 + ALPHA) / d - ALPHA * (1 - beta) / np.asarray(r).reshape(-1, 1))
    return COULOMB_CONSTANT / (eps_out * (1 + ALPHA * beta)) * terms.sum(axis=1)


def random_molecule(num_residues=40, atoms_per_residue=6, seed=1):
    rng = np.random.default_rng(seed)
    centers = rng.uniform(-1.5, 1.5, size=(num_residues, 3))
    positions = (centers[:, None, :] + rng.uniform(-0.2, 0.2, size=(num_residues, atoms_per_residue, 3))).reshape(-1, 3)
    charges = rng.uniform(-0.8, 0.8, size=len(positions))
    residue_of_atom = np.repeat(np.arange(num_residues), atoms_per_residue)
    chain_of_residue = np.arange(num_residues) // 10
    complex_of_chain = np.arange(chain_of_residue.max() + 1) // 2
    return positions, charges, (residue_of_atom, chain_of_residue, complex_of_chain)


def sphere_points(count, center, radius, seed=0):
    v = np.random.default_rng(seed).normal(size=(count, 3))
    return center + radius * v / np.linalg.norm(v, axis=1, keepdims=True)


def random_rotation(rng):
    q, r = np.linalg.qr(rng.normal(size=(3, 3)))
    q *= np.sign(np.diag(r))
    return q if np.linalg.det(q) > 0 else -q


@pytest.fixture(scope="module")
def dhfr(data_dir):
    path = os.path.join(data_dir, "5dfr_minimized.pdb")
    if not os.path.exists(path):
        pytest.skip(f"{path} not found (--data-dir)")
    return hcp.prepareMolecule(path)


@pytest.fixture(scope="module")
def dhfr_assembly(dhfr):
    """Eight DHFR copies as eight chains on a ring, 4.6 nm apart, randomly turned."""
    topology, positions, charges = dhfr
    rng = np.random.default_rng(7)
    centered = positions - positions.mean(axis=0)
    angles = 2 * np.pi * np.arange(8) / 8
    radius = 4.6 / (2 * np.sin(np.pi / 8))
    transforms = [(random_rotation(rng), radius * np.array([np.cos(a), np.sin(a), 0.0])) for a in angles]
    assembly, assembly_positions = hcp.assembleCopies(topology, centered, transforms)
    return assembly, assembly_positions, np.tile(charges, 8)


def test_exact_mode_matches_numpy_double_sum():
    positions, charges, hierarchy = random_molecule()
    points = sphere_points(500, np.zeros(3), 2.8)
    offsets = np.random.default_rng(3).uniform(0, 0.3, size=len(points))
    engine = hcp.SurfacePotential(positions, charges, hierarchy=hierarchy, electrostaticSize=1.7, soluteDielectric=4.0,
                                  solventDielectric=78.5, backend="cpu")
    result = engine.compute(points, offsets, mode="exact")
    expected = alpb_numpy(positions, charges, points, 4.0, 78.5, 1.7 + offsets)
    assert relative_rms(result.potentials, expected) < 1e-12
    assert result.total == pytest.approx(expected.sum(), rel=1e-10)
    assert result.backend == "cpu"


def test_born_ion_is_exact_outside():
    # A charge at the centre of a sphere: the ALPB potential outside is the exact Born result k q / (eps_out r).
    engine = hcp.SurfacePotential(np.array([[0.5, 0.5, 0.5]]), [1.0], hierarchy=([0], [0], [0]), radii=[0.2],
                                  soluteDielectric=2.0, solventDielectric=80.0, backend="cpu")
    assert engine.electrostaticSize == pytest.approx(0.2)
    surface = hcp.surfacePoints([[0.5, 0.5, 0.5]], [0.2], probeRadius=0.14, density=200.0)
    result = engine.compute(surface, mode="hcp")
    assert np.allclose(result.potentials, COULOMB_CONSTANT / (80.0 * 0.34), rtol=1e-12)


def kirkwood_potential(charge_offset, points, radius, eps_in, eps_out, terms=200):
    """A charge at distance s from the centre of a dielectric sphere: the exact (Kirkwood) potential outside,
    sum_n (2n+1) / (n eps_in + (n+1) eps_out) q s^n P_n(cos theta) / r^(n+1), times k_e."""
    from numpy.polynomial import legendre
    r = np.linalg.norm(points, axis=1)
    cos_theta = points @ charge_offset / (r * np.linalg.norm(charge_offset))
    s = np.linalg.norm(charge_offset)
    n = np.arange(terms)
    coefficients = (2 * n + 1) / (n * eps_in + (n + 1) * eps_out)
    total = np.zeros_like(r)
    for k in n:
        unit = np.zeros(k + 1)
        unit[k] = 1.0
        total += coefficients[k] * s ** k / r ** (k + 1) * legendre.legval(cos_theta, unit)
    return COULOMB_CONSTANT * total


def test_off_centre_charge_in_sphere_close_to_kirkwood():
    # ALPB approximates the exact sphere solution; Sigalov et al. report errors of a few per cent at the surface.
    radius, eps_in, eps_out = 2.0, 1.0, 80.0
    points = sphere_points(400, np.zeros(3), radius, seed=5)
    for s in (0.5, 1.0, 1.4):
        offset = np.array([s, 0.0, 0.0])
        engine = hcp.SurfacePotential(offset[None, :], [1.0], hierarchy=([0], [0], [0]), electrostaticSize=radius,
                                      soluteDielectric=eps_in, solventDielectric=eps_out, backend="cpu")
        alpb = engine.compute(points, 0.0, mode="exact").potentials
        exact = kirkwood_potential(offset, points, radius, eps_in, eps_out)
        assert relative_rms(alpb, exact) < 0.05, s


def test_approximate_charges_keep_monopole_and_dipole(dhfr_assembly):
    topology, positions, charges = dhfr_assembly
    engine = hcp.SurfacePotential(positions, charges, topology, complexes=[0, 0, 0, 0, 1, 1, 1, 1], backend="cpu")
    assert engine.componentCounts() == (8 * 2489, 8 * 159, 8, 2)
    for level, count in (("residue", 8 * 159), ("chain", 8), ("complex", 2)):
        centers, negative, positive, members = engine.approximateCharges(level)
        assert len(members) == count
        for k, atoms in enumerate(members):
            atoms = np.asarray(atoms)
            q, x = charges[atoms], positions[atoms]
            assert negative[k, 3] + positive[k, 3] == pytest.approx(q.sum(), abs=1e-10)
            assert negative[k, 3] == pytest.approx(q[q < 0].sum(), abs=1e-10)
            dipole = negative[k, 3] * negative[k, :3] + positive[k, 3] * positive[k, :3]
            assert np.allclose(dipole, (q[:, None] * x).sum(axis=0), atol=1e-9)
            assert np.allclose(centers[k], x.mean(axis=0), atol=1e-12)
    # The residues are the topology's: residue k of the hierarchy holds the atoms of topology residue k.
    _, _, _, members = engine.approximateCharges("residue")
    residues = list(topology.residues())
    for k in (0, 500, 1271):
        assert sorted(members[k]) == [atom.index for atom in residues[k].atoms()]


def test_hcp_against_exact_on_dhfr(dhfr):
    topology, positions, charges = dhfr
    radii = hcp.atomicRadii(topology)
    engine = hcp.SurfacePotential(positions, charges, topology, backend="cpu")
    for kind in ("sas", "contact"):
        surface = hcp.surfacePoints(positions, radii, density=200.0, kind=kind)
        exact = engine.compute(surface, mode="exact")
        approx = engine.compute(surface, mode="hcp")
        # The HCP paper's Table IV: 2.3 % for the nucleosome (25k atoms); DHFR has 2.5k.
        error = relative_rms(approx.potentials, exact.potentials)
        assert 1e-4 < error < 0.023, (kind, error)
        # The exact CPU sum against NumPy on a sample of the points.
        sample = surface.points[::97]
        expected = alpb_numpy(positions, charges, sample, 1.0, 80.0, engine.electrostaticSize + surface.offset)
        assert relative_rms(exact.potentials[::97], expected) < 1e-12


def test_hcp_against_exact_on_assembly(dhfr_assembly):
    topology, positions, charges = dhfr_assembly
    radii = hcp.atomicRadii(topology)
    surface = hcp.surfacePoints(positions, radii, density=60.0)
    engine = hcp.SurfacePotential(positions, charges, topology, complexes="chains", backend="cpu")
    exact = engine.compute(surface, mode="exact")
    approx = engine.compute(surface, mode="hcp")
    error = relative_rms(approx.potentials, exact.potentials)
    assert 1e-4 < error < 0.02, error  # Table IV: 0.9-2.3 % for the large structures
    assert approx.total == pytest.approx(exact.total, rel=0.02)


def test_single_atom_molecule():
    # One sodium ion: the surface potential is the Born potential k q / (eps_out (A + probe)).
    topology = app.Topology()
    residue = topology.addResidue("NA", topology.addChain())
    topology.addAtom("NA", app.element.sodium, residue)
    engine = hcp.SurfacePotential([[1.0, 2.0, 3.0]], [1.0], topology, backend="cpu")
    radius = hcp.BONDI_RADII["Na"]
    assert engine.electrostaticSize == pytest.approx(radius)
    surface = hcp.surfacePoints([[1.0, 2.0, 3.0]], hcp.atomicRadii(topology), density=100.0)
    for mode in ("exact", "hcp"):
        result = engine.compute(surface, mode=mode)
        assert np.allclose(result.potentials, COULOMB_CONSTANT / (80.0 * (radius + 0.14)), rtol=1e-12)
        assert result.total == pytest.approx(len(surface) * COULOMB_CONSTANT / (80.0 * (radius + 0.14)), rel=1e-12)


def test_single_residue_molecule(dhfr):
    topology, positions, charges = dhfr
    first = list(topology.residues())[0]  # the N-terminal MET, net charge +1
    atoms = [atom.index for atom in first.atoms()]
    single = app.Topology()
    residue = single.addResidue(first.name, single.addChain())
    for atom in first.atoms():
        single.addAtom(atom.name, atom.element, residue)
    x, q = positions[atoms], charges[atoms]
    engine = hcp.SurfacePotential(x, q, single, backend="cpu")
    surface = hcp.surfacePoints(x, hcp.atomicRadii(single), density=300.0)
    # Near points: every atom lies within 1 nm, so HCP is the exact sum.
    near = engine.compute(surface, mode="hcp").potentials
    assert relative_rms(near, engine.compute(surface, mode="exact").potentials) < 1e-14
    # Far points: the residue's two charges keep monopole and dipole; the error falls off quickly with distance.
    errors = []
    for distance in (1.5, 3.0, 6.0):
        points = sphere_points(300, x.mean(axis=0), distance, seed=2)
        approx = engine.compute(points, 1.0, mode="hcp").potentials
        expected = alpb_numpy(x, q, points, 1.0, 80.0, engine.electrostaticSize + 1.0)
        errors.append(relative_rms(approx, expected))
    assert errors[0] > errors[1] > errors[2] and errors[2] < 2e-3, errors  # quadrupole error ~ (size / distance)^2


def test_threshold_infinity_turns_hcp_off():
    positions, charges, hierarchy = random_molecule(seed=4)
    points = sphere_points(300, np.zeros(3), 3.0)
    exact = hcp.SurfacePotential(positions, charges, hierarchy=hierarchy, electrostaticSize=1.7, backend="cpu")
    off = hcp.SurfacePotential(positions, charges, hierarchy=hierarchy, electrostaticSize=1.7, backend="cpu",
                               thresholds=(float("inf"),) * 3)
    assert relative_rms(off.compute(points).potentials, exact.compute(points, mode="exact").potentials) < 1e-13


def test_electrostatic_size_against_numpy():
    rng = np.random.default_rng(11)
    positions = rng.normal(size=(300, 3)) * np.array([2.0, 1.0, 0.6])
    radii = rng.uniform(0.12, 0.19, size=300)
    mass = radii ** 3
    x = positions - (mass[:, None] * positions).sum(axis=0) / mass.sum()
    inertia = sum(m * ((xi @ xi + 0.4 * r * r) * np.eye(3) - np.outer(xi, xi)) for m, xi, r in zip(mass, x, radii))
    moments = np.linalg.eigvalsh(inertia)
    axes2 = 2.5 * (moments.sum() - 2 * moments) / mass.sum()
    size_det = np.sqrt(2.5 / mass.sum()) * np.linalg.det(inertia) ** (1 / 6)
    # A_ell = 2 / integral_0^inf dt / sqrt(prod(a^2 + t)); t = u^2 / (1 - u)^2 maps [0, 1) onto [0, inf).
    u = np.linspace(0, 1, 2000001)[:-1]
    t = u ** 2 / (1 - u) ** 2
    integrand = 2 * u / (1 - u) ** 3 / np.sqrt(np.prod(axes2[:, None] + t[None, :], axis=0))
    integrand = np.append(integrand, 2.0)  # its limit at u = 1
    size_ell = 2 / np.trapezoid(integrand, np.append(u, 1.0))
    assert hcp.electrostaticSize(positions, radii, "determinant") == pytest.approx(size_det, rel=1e-10)
    assert hcp.electrostaticSize(positions, radii, "ellipsoid") == pytest.approx(size_ell, rel=1e-6)


def test_surface_points_match_mdtraj_sasa(dhfr):
    md = pytest.importorskip("mdtraj")
    topology, positions, charges = dhfr
    radii = hcp.atomicRadii(topology)
    density = 400.0
    surface = hcp.surfacePoints(positions, radii, probeRadius=0.14, density=density)
    expanded = radii + 0.14
    per_atom = np.round(4 * np.pi * expanded ** 2 * density)
    kept = np.bincount(surface.atomIndex, minlength=len(radii))
    area = np.sum(kept / per_atom * 4 * np.pi * expanded ** 2)
    trajectory = md.Trajectory(positions[None], md.Topology.from_openmm(topology))
    reference = md.shrake_rupley(trajectory, probe_radius=0.14, n_sphere_points=2000,
                                 change_radii={e: r for e, r in hcp.BONDI_RADII.items()}).sum()
    assert area == pytest.approx(reference, rel=0.01)


def test_units_conversion():
    values = np.array([4.184, -8.368])
    assert np.allclose(hcp.convertPotential(values, "kcal/mol/e"), [1.0, -2.0])
    assert np.allclose(hcp.convertPotential(values, "kT/e", 300.0), values / (8.314462618e-3 * 300.0))
    # The same units as the potential maps: 1 kJ/mol/e = 1000 J/mol / (96485.33212 C/mol) = 10.364 mV.
    assert np.allclose(hcp.convertPotential(values, "mV"), values * 1e6 / 96485.33212)
    with pytest.raises(ValueError, match="units must be one of"):
        hcp.convertPotential(values, "kT")
    with pytest.raises(ValueError, match="temperature must be positive"):
        hcp.convertPotential(values, "kT/e", -1.0)


def test_bad_input_gives_clear_errors():
    positions, charges, hierarchy = random_molecule(num_residues=3)
    engine = hcp.SurfacePotential(positions, charges, hierarchy=hierarchy, electrostaticSize=1.0, backend="cpu")
    with pytest.raises(ValueError, match="empty point set"):
        engine.compute(np.zeros((0, 3)))
    with pytest.raises(ValueError, match="point 1 is not finite"):
        engine.compute(np.array([[3.0, 0, 0], [np.nan, 0, 0]]))
    with pytest.raises(ValueError, match="lies on an atom"):
        engine.compute(positions[:1], mode="exact")
    bad = positions.copy()
    bad[5, 1] = np.nan
    with pytest.raises(ValueError, match="position of atom 5 is not finite"):
        hcp.SurfacePotential(bad, charges, hierarchy=hierarchy, electrostaticSize=1.0, backend="cpu")
    with pytest.raises(ValueError, match="no charges"):
        hcp.SurfacePotential(positions, np.zeros_like(charges), hierarchy=hierarchy, electrostaticSize=1.0)
    with pytest.raises(ValueError, match="no charges"):
        hcp.SurfacePotential(np.zeros((0, 3)), [], hierarchy=([], [0], [0]), electrostaticSize=1.0)
    with pytest.raises(ValueError, match="backend"):
        hcp.SurfacePotential(positions, charges, hierarchy=hierarchy, electrostaticSize=1.0, backend="opencl")
    with pytest.raises(ValueError, match="mode"):
        engine.compute(np.array([[3.0, 0, 0]]), mode="fast")
    with pytest.raises(ValueError, match="offset of point 0"):
        engine.compute(np.array([[3.0, 0, 0]]), -0.2)
    with pytest.raises(ValueError, match="no charges: the System has no NonbondedForce"):
        import openmm
        hcp.chargesFromSystem(openmm.System())


def test_cuda_backend_matches_cpu(dhfr_assembly):
    if not hcp.cudaAvailable():
        pytest.skip("no CUDA device")
    topology, positions, charges = dhfr_assembly
    surface = hcp.surfacePoints(positions, hcp.atomicRadii(topology), density=100.0)
    cpu = hcp.SurfacePotential(positions, charges, topology, complexes="chains", backend="cpu")
    gpu = hcp.SurfacePotential(positions, charges, topology, complexes="chains")
    assert gpu.backend == "cuda"
    for mode in ("exact", "hcp"):
        expected, actual = cpu.compute(surface, mode=mode), gpu.compute(surface, mode=mode)
        assert relative_rms(actual.potentials, expected.potentials) < 1e-5, mode
        assert actual.deviceMilliseconds > 0


def test_command_line_on_dhfr(data_dir, tmp_path, capsys):
    path = os.path.join(data_dir, "5dfr_minimized.pdb")
    if not os.path.exists(path):
        pytest.skip(f"{path} not found (--data-dir)")
    prefix = str(tmp_path / "dhfr")
    assert hcp.main([path, "--output", prefix, "--mode", "both", "--density", "100", "--backend", "cpu",
                     "--units", "kcal/mol/e"]) == 0
    out = capsys.readouterr().out
    assert "total surface potential" in out and "HCP relative RMS error" in out
    rows = np.loadtxt(prefix + ".csv", delimiter=",", skiprows=1)
    with open(prefix + ".ply") as handle:
        header = [next(handle) for _ in range(16)]
    count = int([line for line in header if line.startswith("element vertex")][0].split()[2])
    assert count == len(rows) > 1000
    # The CSV's potentials are the API's, converted to kcal/mol/e.
    topology, positions, charges = hcp.prepareMolecule(path)
    engine = hcp.SurfacePotential(positions, charges, topology, backend="cpu")
    surface = hcp.surfacePoints(positions, hcp.atomicRadii(topology), density=100.0)
    assert np.allclose(rows[:, 7], engine.compute(surface).potentials / 4.184, rtol=1e-5)
    assert np.allclose(rows[:, :3], surface.points * 10, atol=1e-3)
    assert os.path.getsize(prefix + ".png") > 10000


def test_command_line_writes_into_the_current_folder(data_dir, tmp_path, monkeypatch):
    """Without --output the files go to the current folder, never next to the (possibly shared, read-only) PDB."""
    path = os.path.join(data_dir, "5dfr_minimized.pdb")
    if not os.path.exists(path):
        pytest.skip(f"{path} not found (--data-dir)")
    before = set(os.listdir(data_dir))
    monkeypatch.chdir(tmp_path)
    assert hcp.main([path, "--density", "50", "--backend", "cpu", "--no-png"]) == 0
    assert (tmp_path / "5dfr_minimized.csv").exists() and (tmp_path / "5dfr_minimized.ply").exists()
    assert set(os.listdir(data_dir)) == before


def test_charges_from_a_converted_system_are_the_nonbonded_forces():
    import openmm
    import openmmnarumi
    from conftest import water_box
    _, _, system = water_box(1.5)
    expected = [force.getParticleParameters(i)[0]._value for force in system.getForces()
                if isinstance(force, openmm.NonbondedForce) for i in range(force.getNumParticles())]
    assert openmmnarumi.replaceNonbondedForces(system) == 1
    charges = hcp.chargesFromSystem(system)
    assert charges.dtype == np.float64 and np.array_equal(charges, expected) and charges.sum() == pytest.approx(0)
    with pytest.warns(DeprecationWarning):
        assert np.array_equal(hcp.charges_from_system(system), expected)
    with pytest.raises(ValueError, match="no NonbondedForce or NarumiNonbondedForce"):
        hcp.chargesFromSystem(openmm.System())


def test_pqr_input_gives_the_pdbs_potential(data_dir, tmp_path, capsys, monkeypatch):
    """A PQR file with the force field's charges and Bondi radii: the same surface potential as the PDB, within the
    file's rounding (coordinates to 1e-3 A, charges to 1e-4 e); several inputs in one call; Angstrom values refused."""
    path = os.path.join(data_dir, "5dfr_minimized.pdb")
    if not os.path.exists(path):
        pytest.skip(f"{path} not found (--data-dir)")
    topology, positions, charges = hcp.prepareMolecule(path)
    radii = hcp.atomicRadii(topology)
    pqr = str(tmp_path / "dhfr.pqr")
    write_pqr(pqr, topology, positions, charges, radii)
    readTopology, readPositions, readCharges, readRadii = hcp.readMolecule(pqr)
    assert readTopology.getNumAtoms() == len(charges) and readTopology.getNumResidues() == topology.getNumResidues()
    assert np.allclose(readPositions, positions, atol=1e-4) and np.allclose(readCharges, charges, atol=1e-4)
    assert np.allclose(readRadii, radii, atol=1e-5)
    assert [a.element.symbol for a in readTopology.atoms()] == [a.element.symbol for a in topology.atoms()]
    monkeydir = tmp_path / "out"
    monkeydir.mkdir()
    monkeypatch.chdir(monkeydir)
    assert hcp.main([path, pqr, "--density", "50", "--backend", "cpu", "--no-png", "--quiet"]) == 0
    fromPdb = np.loadtxt(monkeydir / "5dfr_minimized.csv", delimiter=",", skiprows=1)
    fromPqr = np.loadtxt(monkeydir / "dhfr.csv", delimiter=",", skiprows=1)
    assert fromPdb.shape == fromPqr.shape
    assert relative_rms(fromPqr[:, 7], fromPdb[:, 7]) < 1e-3
    for option, value in (("--probe", "1.4"), ("--density", "3"), ("--thresholds", "10 70 150")):
        with pytest.raises(SystemExit):
            hcp.main([pqr, option, *value.split()])
        assert "nm" in capsys.readouterr().err
