"""Independent oracle: GROMACS's short-range nonbonded energy terms, LJ (SR) and Coulomb (SR), and their forces,
evaluated in double precision with NumPy from a `gromacs.NonbondedModel` (or explicit arrays), in a rectangular
periodic box with the minimum image convention.

GROMACS's conventions (reference manual, "Non-bonded interactions" and "Reaction field"; Verlet cut-off scheme):
- LJ: C12/r^12 - C6/r^6 from the type-pair table for non-excluded pairs with r < rvdw; with the vdw-modifier
  Potential-shift every pair's value at rvdw is subtracted, with None it is not.
- Coulomb: f q_i q_j (1/r + k_rf r^2 - c_rf) for non-excluded pairs with r < rcoulomb, f = ONE_4PI_EPS0/epsilon_r,
  with reaction field k_rf = (eps_rf - eps_r) / ((2 eps_rf + eps_r) rc^3) (eps_rf = inf: 1/(2 rc^3)) and
  c_rf = 1/rc + k_rf rc^2; a plain cut-off has k_rf = 0 and c_rf = 1/rc (Potential-shift) or 0 (None).
- Excluded pairs with r < rcoulomb still get f q_i q_j (k_rf r^2 - c_rf), and every atom its self term
  -f c_rf q_i^2 / 2: the reaction field of the excluded charges, which OpenMM's NonbondedForce leaves out.
- Virtual sites sit where the frame puts them; their forces are spread onto the constructing atoms
  (`spread_virtual_site_forces`) and zeroed, as mdrun reports them.
"""
import dataclasses

import numpy as np

# GROMACS 2022's ONE_4PI_EPS0 (units.h: CODATA 2018's epsilon_0, e and N_A), written out rather than imported so
# that the oracle depends on neither code under test nor OpenMM (whose 8.6 value agrees to 3e-16); the older
# 138.935456 of many codes and of GROMACS before 2019 is 1.2e-8 smaller, above the 1e-8 the tests ask for.
ONE_4PI_EPS0 = 138.935457644382


@dataclasses.dataclass
class NonbondedTerms:
    lj: float             # LJ (SR), kJ/mol
    coulomb: float        # Coulomb (SR), kJ/mol
    forces: np.ndarray    # (n, 3) kJ/mol/nm


def reaction_field_constants(rcoulomb, epsilon_r, epsilon_rf, coulombtype="Reaction-Field",
                             coulomb_modifier="Potential-shift"):
    """(f, k_rf, c_rf) as GROMACS's Verlet kernels use them; epsilon_rf = inf (the mdp's 0) is a conducting boundary."""
    f = ONE_4PI_EPS0 / epsilon_r
    if coulombtype == "Reaction-Field":
        k_rf = 1 / (2 * rcoulomb ** 3) if np.isinf(epsilon_rf) else \
            (epsilon_rf - epsilon_r) / ((2 * epsilon_rf + epsilon_r) * rcoulomb ** 3)
        return f, k_rf, 1 / rcoulomb + k_rf * rcoulomb ** 2
    if coulombtype == "Cut-off":
        return f, 0.0, 1 / rcoulomb if coulomb_modifier == "Potential-shift" else 0.0
    raise NotImplementedError(f"coulombtype {coulombtype}: only Reaction-Field and Cut-off are evaluated")


def minimum_image(delta, box):
    lengths = _box_lengths(box)
    return delta - lengths * np.round(delta / lengths)


def _box_lengths(box):
    box = np.asarray(box, dtype=float)
    if np.any(box - np.diag(np.diag(box))):
        raise NotImplementedError(f"box {box.tolist()} is not rectangular")
    return np.diag(box)


def pairs_within(positions, box, cutoff):
    """Every pair i < j closer than cutoff under the minimum image: (i, j, delta = x_j - x_i, r^2). A cell list:
    cells at least cutoff wide, at least 3 a side, so that the 27 neighbour cells of a cell are distinct."""
    lengths = _box_lengths(box)
    cells = np.floor(lengths / cutoff).astype(int)
    if np.any(cells < 3):
        raise ValueError(f"box {lengths.tolist()} nm is narrower than 3 cut-offs of {cutoff} nm")
    fractional = np.mod(positions / lengths, 1.0)
    cell_of = np.minimum((fractional * cells).astype(int), cells - 1)
    flat = np.ravel_multi_index(cell_of.T, cells)
    order = np.argsort(flat, kind="stable")
    counts = np.bincount(flat, minlength=np.prod(cells))
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    slot = np.arange(len(order)) - starts[flat[order]]
    members = np.full((np.prod(cells), counts.max()), -1)  # cell -> its atoms, padded with -1
    members[flat[order], slot] = order
    grid = np.indices(cells).reshape(3, -1).T
    found = []
    for offset in np.indices((3, 3, 3)).reshape(3, -1).T - 1:
        neighbour = np.ravel_multi_index(((grid + offset) % cells).T, cells)
        i = np.broadcast_to(members[:, :, None], (len(grid), members.shape[1], members.shape[1]))
        j = np.broadcast_to(members[neighbour][:, None, :], i.shape)
        keep = (i >= 0) & (j > i)
        found.append((i[keep], j[keep]))
    i = np.concatenate([p[0] for p in found])
    j = np.concatenate([p[1] for p in found])
    delta = minimum_image(positions[j] - positions[i], box)
    r2 = np.einsum("pd,pd->p", delta, delta)
    within = r2 < cutoff * cutoff
    return i[within], j[within], delta[within], r2[within]


def _excluded(i, j, exclusions, natoms):
    keys = np.sort(np.asarray(exclusions, dtype=np.int64), axis=1) @ np.array([natoms, 1])
    return np.isin(i.astype(np.int64) * natoms + j, keys)


def _add_pair_forces(forces, i, j, delta, dE_dr_over_r):
    pair = dE_dr_over_r[:, None] * delta  # the force on i; j gets the opposite
    for d in range(3):
        forces[:, d] += np.bincount(i, pair[:, d], len(forces)) - np.bincount(j, pair[:, d], len(forces))


def nonbonded_terms(positions, box, charges, lj_types, c6, c12, exclusions, rvdw, rcoulomb, epsilon_r, epsilon_rf,
                    coulombtype="Reaction-Field", coulomb_modifier="Potential-shift", vdw_modifier="Potential-shift",
                    excluded_pair_reaction_field=True, self_term=True):
    """LJ (SR), Coulomb (SR) and forces with GROMACS's conventions. `excluded_pair_reaction_field` and `self_term`
    switch off the two reaction-field terms that OpenMM's NonbondedForce leaves out, for comparisons."""
    positions = np.asarray(positions, dtype=float)
    charges = np.asarray(charges, dtype=float)
    lj_types = np.asarray(lj_types)
    n = len(positions)
    if vdw_modifier not in ("Potential-shift", "None"):
        raise NotImplementedError(f"vdw-modifier {vdw_modifier}: only Potential-shift and None are evaluated")
    f, k_rf, c_rf = reaction_field_constants(rcoulomb, epsilon_r, epsilon_rf, coulombtype, coulomb_modifier)
    forces = np.zeros((n, 3))
    i, j, delta, r2 = pairs_within(positions, box, max(rvdw, rcoulomb))
    excluded = _excluded(i, j, exclusions, n) if len(exclusions) else np.zeros(len(i), bool)
    i, j, delta, r2 = i[~excluded], j[~excluded], delta[~excluded], r2[~excluded]

    vdw = r2 < rvdw * rvdw
    a, b = lj_types[i[vdw]], lj_types[j[vdw]]
    pair_c6, pair_c12 = c6[a, b], c12[a, b]
    inv_r6 = 1 / r2[vdw] ** 3
    shift = pair_c12 / rvdw ** 12 - pair_c6 / rvdw ** 6 if vdw_modifier == "Potential-shift" else 0.0
    lj = float(np.sum(pair_c12 * inv_r6 ** 2 - pair_c6 * inv_r6 - shift))
    _add_pair_forces(forces, i[vdw], j[vdw], delta[vdw], (-12 * pair_c12 * inv_r6 ** 2 + 6 * pair_c6 * inv_r6) / r2[vdw])

    coulomb_pairs = (r2 < rcoulomb * rcoulomb) & (charges[i] != 0) & (charges[j] != 0)
    qq = f * charges[i[coulomb_pairs]] * charges[j[coulomb_pairs]]
    r2c = r2[coulomb_pairs]
    r = np.sqrt(r2c)
    coulomb = float(np.sum(qq * (1 / r + k_rf * r2c - c_rf)))
    _add_pair_forces(forces, i[coulomb_pairs], j[coulomb_pairs], delta[coulomb_pairs], qq * (-1 / (r2c * r) + 2 * k_rf))

    if excluded_pair_reaction_field and len(exclusions):
        ei, ej = np.asarray(exclusions).T
        edelta = minimum_image(positions[ej] - positions[ei], box)
        er2 = np.einsum("pd,pd->p", edelta, edelta)
        near = er2 < rcoulomb * rcoulomb
        eqq = f * charges[ei[near]] * charges[ej[near]]
        coulomb += float(np.sum(eqq * (k_rf * er2[near] - c_rf)))
        _add_pair_forces(forces, ei[near], ej[near], edelta[near], eqq * 2 * k_rf)
    if self_term:
        coulomb -= f * c_rf / 2 * float(np.sum(charges ** 2))
    return NonbondedTerms(lj, coulomb, forces)


def spread_virtual_site_forces(forces, positions, box, virtual_sites):
    """Move the forces on virtual sites onto their constructing atoms (the transpose of the construction's Jacobian)
    and zero them, as mdrun does. `virtual_sites`: GROMACS function type -> (atoms (k, 4): site, i, j, k; params).
    VSITE3: x_s = x_i + a r_ij + b r_ik. VSITE3OUT: x_s = x_i + a r_ij + b r_ik + c (r_ij x r_ik)."""
    forces = np.array(forces, dtype=float)
    for kind, (atoms, params) in virtual_sites.items():
        if kind not in ("VSITE3", "VSITE3OUT"):
            raise NotImplementedError(f"virtual site type {kind}: only VSITE3 and VSITE3OUT are spread")
        site, ai, aj, ak = atoms.T
        a, b = params[:, 0:1], params[:, 1:2]
        f_site = forces[site]
        f_j, f_k = a * f_site, b * f_site
        if kind == "VSITE3OUT":
            c = params[:, 2:3]
            r_ij = minimum_image(positions[aj] - positions[ai], box)
            r_ik = minimum_image(positions[ak] - positions[ai], box)
            f_j = f_j + c * np.cross(r_ik, f_site)  # d/dr_ij of f.(r_ij x r_ik) = r_ik x f
            f_k = f_k + c * np.cross(f_site, r_ij)  # d/dr_ik of f.(r_ij x r_ik) = f x r_ij
        for target, part in ((ai, f_site - f_j - f_k), (aj, f_j), (ak, f_k)):
            np.add.at(forces, target, part)
        forces[site] = 0.0
    return forces


def gromacs_nonbonded(model, positions, box, **conventions):
    """`nonbonded_terms` for a `gromacs.NonbondedModel` with its own settings (each can be overridden by keyword),
    virtual-site forces spread as mdrun spreads them."""
    settings = dict(rvdw=model.rvdw, rcoulomb=model.rcoulomb, epsilon_r=model.epsilon_r,
                    epsilon_rf=model.epsilon_rf, coulombtype=model.settings["coulombtype"],
                    coulomb_modifier=model.settings["coulomb-modifier"], vdw_modifier=model.settings["vdw-modifier"])
    if model.settings["vdw-type"] != "Cut-off" or model.settings["DispCorr"] != "No":
        raise NotImplementedError(f"vdw-type {model.settings['vdw-type']}, DispCorr {model.settings['DispCorr']}: "
                                  "only Cut-off without dispersion correction is evaluated")
    settings.update(conventions)
    terms = nonbonded_terms(positions, box, model.charges, model.lj_types, model.c6, model.c12, model.exclusions,
                            **settings)
    terms.forces = spread_virtual_site_forces(terms.forces, positions, box, model.virtual_sites)
    return terms
