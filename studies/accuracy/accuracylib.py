"""Library of the accuracy study (issue 4): Narumi et al. 2008, section 4, on today's GPU.

* ``force_error`` (eq. 10) and ``force_offset`` (eq. 11), exactly as the paper defines them;
* the three test systems (``system1``, ``system2``, ``production``), each a System holding one nonbonded force;
* forces of a System on a platform, with OpenMM's NonbondedForce or NarumiNonbondedForce and any accumulation method
  (the paper's float pairs C-E through the CUDA platform's diagnostics: ``accumulation_diagnostics``);
* ``emulate``: a float32 emulation (NumPy) of the per-atom sums of methods A-F (and OpenMM-style 64-bit fixed point)
  with 'exclude on the fly' and 'exclude afterwards'.  The CUDA kernel only excludes afterwards; this
  emulation is what shows the paper's on-the-fly/afterwards contrast.  It is an emulation, not the kernel: its float
  pair function and its summation order (atom index order) are not bit-identical to the GPU's.
"""
import copy
import os

import numpy as np
import openmm
import openmm.app as app
import openmm.unit as unit

import openmmnarumi
from benchmarks.diagnostics import narumi_diagnostics
from openmmnarumi import COULOMB_CONSTANT, NarumiNonbondedForce

KJ = unit.kilojoule_per_mole
FORCE_UNIT = unit.kilojoule_per_mole / unit.nanometer
BOLTZ = 0.00831446261815324  # kJ/mol/K
METHODS = {"A": "SingleFloat", "B": "DoubleFloat", "C": "TakahashiIitaka", "D": "Nitadori", "E": "ModifiedNitadori",
           "F": "Narumi", "FixedPoint64": "FixedPoint64", "TileSums": "TileSums"}
LABELS = {"A": "A: single accumulation (SingleFloat)", "B": "B: double accumulation (DoubleFloat)",
          "C": "C: Takahashi-Iitaka float pair (TakahashiIitaka)", "D": "D: Nitadori float pair (Nitadori)",
          "E": "E: modified Nitadori float pair (ModifiedNitadori)",
          "F": "F: Narumi float+int32 (Narumi)", "FixedPoint64": "64-bit fixed point (FixedPoint64)",
          "TileSums": "float tile sums into 64-bit fixed point, OpenMM's scheme (TileSums)"}
# The paper's float pairs are no accumulation method of the force: the CUDA platform runs them for this study through
# NARUMI_DIAGNOSTICS=accumulation=NAME (docs/development.md, "Diagnostics"); other platforms sum in double anyway.
DIAGNOSTIC_METHODS = ("TakahashiIitaka", "Nitadori", "ModifiedNitadori")
# Where the float pair's high part starts (the paper's LARGE, Figure 6): 3 * 2^20 for E, 0 for C and D.
PAIR_EXPRESSION_START = {"C": 0.0, "D": 0.0, "E": float(3 << 20)}


# ----------------------------------------------------------------------------------------------- eq. 10 and 11
def force_error(forces, reference):
    """Eq. 10: sum_i |F_method,i - F_double,i| / sum_i |F_double,i| (forces as (N, 3) arrays)."""
    forces = np.asarray(forces, dtype=np.float64)
    reference = np.asarray(reference, dtype=np.float64)
    return float(np.linalg.norm(forces - reference, axis=1).sum() / np.linalg.norm(reference, axis=1).sum())


def force_offset(forces):
    """Eq. 11: |sum_i F_method,i| / sum_i |F_method,i|."""
    forces = np.asarray(forces, dtype=np.float64)
    return float(np.linalg.norm(forces.sum(axis=0)) / np.linalg.norm(forces, axis=1).sum())


# ----------------------------------------------------------------------------------------------- systems
def _only_nonbonded(system):
    """A copy of system with its NonbondedForce as the only force (particles, masses and box kept)."""
    out = openmm.System()
    for i in range(system.getNumParticles()):
        out.addParticle(system.getParticleMass(i))
    out.setDefaultPeriodicBoxVectors(*system.getDefaultPeriodicBoxVectors())
    force = next(f for f in system.getForces() if isinstance(f, openmm.NonbondedForce))
    force = copy.deepcopy(force)
    force.setForceGroup(0)
    out.addForce(force)
    return out


def system1(data_dir, waters=208, lj_only=True):
    """The paper's System 1 analogue: DHFR (5dfr_minimized.pdb, amber14-all) plus the `waters` TIP3P waters nearest to
    the protein (taken from Modeller.addSolvent with 0.6 nm padding), NoCutoff.  lj_only: all charges zero, as the
    paper evaluates only the van der Waals part.  Returns (name, positions (N,3) nm, System with one NonbondedForce)."""
    pdb = app.PDBFile(os.path.join(data_dir, "5dfr_minimized.pdb"))
    forcefield = app.ForceField("amber14-all.xml", "amber14/tip3p.xml")
    modeller = app.Modeller(pdb.topology, pdb.positions)
    # No ions: addSolvent places them at random waters, which made the nearest-water shell differ between runs.
    modeller.addSolvent(forcefield, padding=0.6 * unit.nanometer, neutralize=False)
    xyz = np.array(modeller.positions.value_in_unit(unit.nanometer))
    residues = list(modeller.topology.residues())
    protein = np.array([a.index for r in residues if r.name != "HOH" for a in r.atoms()])
    water_residues = [r for r in residues if r.name == "HOH"]
    oxygens = np.array([next(a.index for a in r.atoms() if a.element.symbol == "O") for r in water_residues])
    # distance of every water oxygen to the nearest protein atom, in chunks
    nearest = np.empty(len(oxygens))
    for start in range(0, len(oxygens), 512):
        d = xyz[oxygens[start:start + 512], None, :] - xyz[None, protein, :]
        nearest[start:start + 512] = np.sqrt((d * d).sum(-1)).min(1)
    keep = set(np.argsort(nearest, kind="stable")[:waters].tolist())
    delete = [r for k, r in enumerate(water_residues) if k not in keep]
    modeller.delete(delete)
    system = forcefield.createSystem(modeller.topology, nonbondedMethod=app.NoCutoff, constraints=None, rigidWater=False)
    system = _only_nonbonded(system)
    nb = system.getForce(0)
    if lj_only:
        for i in range(nb.getNumParticles()):
            q, s, e = nb.getParticleParameters(i)
            nb.setParticleParameters(i, 0.0, s, e)
        for k in range(nb.getNumExceptions()):
            i, j, qq, s, e = nb.getExceptionParameters(k)
            nb.setExceptionParameters(k, i, j, 0.0, s, e)
    positions = np.array(modeller.positions.value_in_unit(unit.nanometer))
    name = f"System 1: DHFR + {waters} waters, NoCutoff, {'LJ only' if lj_only else 'Coulomb + LJ'}"
    return name, positions, system


def system2(n=65536, types=16, seed=2008):
    """The paper's System 2: n Lennard-Jones particles with `types` random atom types (sigma 0.25-0.35 nm, epsilon
    0.2-1.0 kJ/mol), no cutoff, no charges.  Positions: a jittered simple lattice with 0.4 nm spacing (no two
    particles closer than 0.3 nm, so every pair force stays far inside the Narumi range)."""
    rng = np.random.default_rng(seed)
    nx = int(round(n ** (1 / 3)))
    while n % nx:
        nx -= 1
    ny = int(round((n // nx) ** 0.5))
    while (n // nx) % ny:
        ny -= 1
    nz = n // nx // ny
    grid = np.stack(np.meshgrid(np.arange(nx), np.arange(ny), np.arange(nz), indexing="ij"), -1).reshape(-1, 3)
    positions = 0.4 * grid + rng.uniform(-0.05, 0.05, size=grid.shape)
    sigma = rng.uniform(0.25, 0.35, types)
    epsilon = rng.uniform(0.2, 1.0, types)
    kind = rng.integers(0, types, n)
    system = openmm.System()
    nb = openmm.NonbondedForce()
    nb.setNonbondedMethod(openmm.NonbondedForce.NoCutoff)
    for i in range(n):
        system.addParticle(40.0)
        nb.addParticle(0.0, sigma[kind[i]], epsilon[kind[i]])
    system.addForce(nb)
    return f"System 2: {n} LJ particles, {types} types, NoCutoff", positions, system


def production(data_dir):
    """The production case: DHFR in water (5dfr_solv-cube_equil.pdb, 23,558 atoms), amber99sb + tip3p, CutoffPeriodic
    1.0 nm with reaction field (OpenMM's default eps_rf 78.3), no switching, dispersion correction off."""
    pdb = app.PDBFile(os.path.join(data_dir, "5dfr_solv-cube_equil.pdb"))
    forcefield = app.ForceField("amber99sb.xml", "tip3p.xml")
    system = forcefield.createSystem(pdb.topology, nonbondedMethod=app.CutoffPeriodic,
                                     nonbondedCutoff=1.0 * unit.nanometer, constraints=None, rigidWater=False)
    system = _only_nonbonded(system)
    system.getForce(0).setUseDispersionCorrection(False)
    positions = np.array(pdb.positions.value_in_unit(unit.nanometer))
    return "DHFR water box, 1.0 nm cutoff, reaction field", positions, system


def accumulation_diagnostics(method):
    """The NARUMI_DIAGNOSTICS setting that runs `method`, a name of METHODS' values (or None), on CUDA: "accumulation=NAME"
    for the paper's float pairs C-E, "" for the force's own methods (set_accumulation sets those)."""
    return f"accumulation={method}" if method in DIAGNOSTIC_METHODS else ""


def set_accumulation(system, method):
    """Every NarumiNonbondedForce of `system` sums with `method`, a name of METHODS' values (None: the force's default);
    for C-E the forces keep their method, which the Contexts' diagnostics override (accumulation_diagnostics)."""
    if method is None or method in DIAGNOSTIC_METHODS:
        return
    for force in system.getForces():
        if NarumiNonbondedForce.isinstance(force):
            NarumiNonbondedForce.cast(force).setAccumulationMethod(getattr(NarumiNonbondedForce, method))


def narumi_version(system, accumulation="Narumi"):
    """The same System with its NonbondedForce replaced by a NarumiNonbondedForce using `accumulation` (a name of
    METHODS' values: for C-E, give its Contexts accumulation_diagnostics(accumulation)); NoCoulomb when every charge
    is zero."""
    out = copy.deepcopy(system)
    openmmnarumi.replaceNonbondedForces(out)
    set_accumulation(out, accumulation)
    for force in out.getForces():
        if NarumiNonbondedForce.isinstance(force):
            force = NarumiNonbondedForce.cast(force)
            if all(force.getParticleParameters(i)[0].value_in_unit(unit.elementary_charge) == 0
                   for i in range(force.getNumParticles())):
                force.setElectrostaticsMethod(NarumiNonbondedForce.NoCoulomb)
    return out


def forces_on(system, positions, platform, precision=None, diagnostics=None):
    """Forces (N,3) in kJ/mol/nm and potential energy of `system` at `positions` on a platform, its Context made with
    the NARUMI_DIAGNOSTICS `diagnostics` (e.g. accumulation_diagnostics(method); the CUDA platform's only)."""
    properties = {"Precision": precision} if precision and platform in ("CUDA", "OpenCL") else {}
    if platform == "CPU" and "OPENMM_CPU_THREADS" in os.environ:
        properties["Threads"] = os.environ["OPENMM_CPU_THREADS"]
    with narumi_diagnostics(diagnostics):
        context = openmm.Context(system, openmm.VerletIntegrator(0.001), openmm.Platform.getPlatformByName(platform),
                                 properties)
    context.setPositions(positions * unit.nanometer)
    state = context.getState(getForces=True, getEnergy=True)
    forces = state.getForces(asNumpy=True).value_in_unit(FORCE_UNIT)
    energy = state.getPotentialEnergy().value_in_unit(KJ)
    del context
    return np.array(forces, dtype=np.float64), energy


def platform_names():
    return [openmm.Platform.getPlatform(i).getName() for i in range(openmm.Platform.getNumPlatforms())]


# ----------------------------------------------------------------------------------------------- float32 emulation
def _nonbonded_arrays(system):
    nb = next(f for f in system.getForces() if isinstance(f, openmm.NonbondedForce))
    n = nb.getNumParticles()
    q = np.empty(n)
    sig = np.empty(n)
    eps = np.empty(n)
    for i in range(n):
        c, s, e = nb.getParticleParameters(i)
        q[i], sig[i], eps[i] = c.value_in_unit(unit.elementary_charge), s.value_in_unit(unit.nanometer), \
            e.value_in_unit(KJ)
    exceptions = []
    for k in range(nb.getNumExceptions()):
        i, j, qq, s, e = nb.getExceptionParameters(k)
        exceptions.append((i, j, qq.value_in_unit(unit.elementary_charge ** 2), s.value_in_unit(unit.nanometer),
                           e.value_in_unit(KJ)))
    return q, sig, eps, exceptions


def pair_terms(xi, x, qi, q, hsi, hs, sei, se, dtype):
    """Force on atom i from each atom j (plain Coulomb 1/r + LJ, Lorentz-Berthelot), computed in `dtype` with the
    kernel's factored parameters: q' = q sqrt(k), sigma/2, 2 sqrt(eps).  Returns (M, 3)."""
    d = (xi - x).astype(dtype)  # r_i - r_j
    r2 = (d * d).sum(1, dtype=dtype)
    with np.errstate(divide="ignore", invalid="ignore"):
        inv_r2 = dtype(1) / r2
        inv_r = np.sqrt(inv_r2)
        sig = hsi + hs
        s2 = sig * sig * inv_r2
        s6 = s2 * s2 * s2
        eps4 = sei * se  # 4 sqrt(eps_i eps_j)
        f = eps4 * (dtype(12) * s6 * s6 - dtype(6) * s6) * inv_r2 + qi * q * inv_r * inv_r2
    return (f[:, None] * d).astype(dtype)


def exception_term(xi, xj, qq, sigma, epsilon, dtype):
    d = (xi - xj).astype(dtype)
    r2 = (d * d).sum(dtype=dtype)
    inv_r2 = dtype(1) / r2
    inv_r = np.sqrt(inv_r2)
    s2 = dtype(sigma) * dtype(sigma) * inv_r2
    s6 = s2 * s2 * s2
    f = dtype(4 * epsilon) * (dtype(12) * s6 * s6 - dtype(6) * s6) * inv_r2 + dtype(qq * COULOMB_CONSTANT) * inv_r * inv_r2
    return (f * d).astype(dtype)


def narumi_units(y):
    """What Narumi's float+int32 pair adds for float32 terms y, in units of 2^-25 (int64): y rounded to nearest,
    ties to even, on that grid.  With the high part in the binade of 3*2^20 (spacing 0.25), fast two-sum adds y
    rounded to the 0.25 grid to it and the exact residual, rounded by a magic-number float add, to the low word;
    terms of magnitude >= 2^15 go to a 64-bit integer on the same grid instead (NarumiTermAccumulators.cuh)."""
    return np.rint(np.asarray(y, dtype=np.float32).astype(np.float64) * 2.0 ** 25).astype(np.int64)


def fixed_units(y):
    return np.rint(np.asarray(y, dtype=np.float32).astype(np.float64) * 2.0 ** 32).astype(np.int64)


def _sum(terms, method):
    """Sequential sum of the rows of terms (M,3) as `method` accumulates; returns float64 (3,), or an exact integer
    state for the fixed-point methods (to which later terms can be added exactly)."""
    if method == "A":
        return np.add.accumulate(terms.astype(np.float32), axis=0, dtype=np.float32)[-1] if len(terms) else \
            np.zeros(3, np.float32)
    if method in ("B", "G"):
        return np.add.accumulate(terms.astype(np.float64), axis=0)[-1] if len(terms) else np.zeros(3)
    if method == "F":
        return narumi_units(terms).sum(0)
    if method == "FixedPoint64":
        return fixed_units(terms).sum(0)
    raise ValueError(method)


def _add(acc, y, method, sign=1):
    if method in PAIR_EXPRESSION_START:
        return pair_expression_add(*acc, np.float32(sign) * y.astype(np.float32), method)
    if method == "A":
        return (acc + np.float32(sign) * y.astype(np.float32)).astype(np.float32)
    if method in ("B", "G"):
        return acc + sign * y.astype(np.float64)
    if method == "F":
        return acc + sign * narumi_units(y)
    return acc + sign * fixed_units(y)


def _value(acc, method):
    if method in PAIR_EXPRESSION_START:
        return _pair_expression_value(*acc, method)
    if method == "F":
        return acc * 2.0 ** -25
    if method == "FixedPoint64":
        return acc * 2.0 ** -32
    return np.asarray(acc, dtype=np.float64)


def pair_expression_add(hi, lo, y, method):
    """Add float32 terms y to float32 pair expressions (hi, lo), elementwise, as the paper's C code does: method C
    Takahashi & Iitaka (Figure 3), D and E Nitadori (Figure 5; E differs only in where hi starts)."""
    if method == "C":
        z = hi + y
        w = z - hi
        zz = (y - w) - ((z - w) - hi)
        r = lo + zz
        b = z + r
        return b, r - (b - z)
    b = hi + y
    return b, lo + (y - (b - hi))


def _pair_expression_sums(terms, keep, method):
    """Per-atom sums over j in index order: terms (N, N, 3) float32, keep (N, N) bool; returns (hi, lo) (N, 3)."""
    n = terms.shape[0]
    hi = np.full((n, 3), PAIR_EXPRESSION_START[method], np.float32)
    lo = np.zeros((n, 3), np.float32)
    with np.errstate(invalid="ignore", over="ignore"):
        for j in range(n):
            new_hi, new_lo = pair_expression_add(hi, lo, terms[:, j], method)
            take = keep[:, j, None]
            hi = np.where(take, new_hi, hi)
            lo = np.where(take, new_lo, lo)
    return hi, lo


def _pair_expression_value(hi, lo, method):
    return (hi.astype(np.float64) - PAIR_EXPRESSION_START[method]) + lo.astype(np.float64)


def emulate(system, positions, methods=("A", "B", "C", "D", "E", "F", "FixedPoint64", "G"),
            modes=("on the fly", "afterwards")):
    """Forces of a NoCutoff System holding one NonbondedForce, accumulated per atom in atom-index order.
    Pair forces in float32 (method G: in float64, the all-double oracle's twin).
    'on the fly': the excluded/exception pairs are skipped in the pair loop, then the exception terms are added;
    'afterwards': every pair j != i is summed, then for each exception the plain pair term is subtracted and the
    exception term added, in the same accumulator (as the CUDA kernel's correctExceptions does).
    The float-pair methods C-E keep the whole N x N x 3 float32 term matrix (116 MB for System 1's 3,113 atoms).
    Returns {(method, mode): (N,3) float64 forces}."""
    q, sig, eps, exceptions = _nonbonded_arrays(system)
    n = len(q)
    partners = [[] for _ in range(n)]
    for k, (i, j, qq, s, e) in enumerate(exceptions):
        partners[i].append(k)
        partners[j].append(k)
    out = {(m, mode): np.zeros((n, 3)) for m in methods for mode in modes}

    def factored(dtype):
        """Positions and the kernel's factored parameters in dtype."""
        return (positions.astype(dtype), (q * np.sqrt(COULOMB_CONSTANT)).astype(dtype), (sig / 2).astype(dtype),
                (2 * np.sqrt(eps)).astype(dtype))

    # The float-pair methods' pair loops, vectorized over the atoms i (a Python loop over j per atom is too slow):
    # their (hi, lo) per atom and mode, continued by the exception loop below like every other method's sum.
    pair_loop_sums = {}
    pair_methods = [m for m in methods if m in PAIR_EXPRESSION_START]
    if pair_methods:
        x, qf, hs, se = factored(np.float32)
        term_matrix = np.empty((n, n, 3), np.float32)
        for i in range(n):
            term_matrix[i] = pair_terms(x[i], x, qf[i], qf, hs[i], hs, se[i], se, np.float32)
        for mode in modes:
            keep = ~np.eye(n, dtype=bool)
            if mode == "on the fly":
                for i, j, *_ in exceptions:
                    keep[i, j] = keep[j, i] = False
            for method in pair_methods:
                pair_loop_sums[(method, mode)] = _pair_expression_sums(term_matrix, keep, method)
    for method in methods:
        dtype = np.float64 if method == "G" else np.float32
        x, qf, hs, se = factored(dtype)
        for i in range(n):
            if method in PAIR_EXPRESSION_START:
                terms = term_matrix[i]
            else:
                terms = pair_terms(x[i], x, qf[i], qf, hs[i], hs, se[i], se, dtype)
            ex_j = [exceptions[k][1] if exceptions[k][0] == i else exceptions[k][0] for k in partners[i]]
            for mode in modes:
                if method in PAIR_EXPRESSION_START:
                    hi, lo = pair_loop_sums[(method, mode)]
                    acc = (hi[i], lo[i])
                else:
                    keep = np.ones(n, bool)
                    keep[i] = False
                    if mode == "on the fly":
                        keep[ex_j] = False
                    acc = _sum(terms[keep], method)
                for k, j in zip(partners[i], ex_j):
                    if mode == "afterwards":
                        acc = _add(acc, terms[j], method, -1)
                    _, _, qq, s, e = exceptions[k]
                    if qq != 0 or e != 0:
                        acc = _add(acc, exception_term(x[i], x[j], qq, s, e, dtype), method)
                out[(method, mode)][i] = _value(acc, method)
    return out
