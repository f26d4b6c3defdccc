"""What an .mdp file says about the nonbonded interactions, as NarumiNonbondedForce settings, and the .mdp settings
that the loader cannot honour, refused with the key and value named.  Every accepted combination was checked against
gmx_d (tests/python/test_gromacs_inputs.py)."""
import dataclasses
import math

from ._mdp import normalizeValue


@dataclasses.dataclass(frozen=True)
class NonbondedSettings:
    """The nonbonded model of an .mdp file in NarumiNonbondedForce's terms."""
    cutoff: float                   #: rcoulomb = rvdw (nm)
    coulombDielectric: float        #: epsilon-r
    reactionFieldDielectric: float  #: epsilon-rf (math.inf for 0); epsilon-r for coulombtype = Cut-off
    lennardJonesShift: bool         #: vdw-modifier = Potential-shift (-Verlet)


def _refuse(mdp, key, why):
    return ValueError(f"{mdp.file}: {key} = {mdp[key]} is not supported: {why}")


def _choice(mdp, key, accepted, why):
    if normalizeValue(mdp[key]) not in {normalizeValue(v) for v in accepted}:
        raise _refuse(mdp, key, why)
    return normalizeValue(mdp[key])


def nonbondedSettings(mdp):
    """The NonbondedSettings of an MdpSettings; ValueError naming the first key whose value cannot be honoured."""
    _choice(mdp, "cutoff-scheme", ["Verlet"], "only the Verlet scheme is")
    _choice(mdp, "pbc", ["xyz"], "only pbc = xyz is")
    _choice(mdp, "periodic-molecules", ["no"], "molecules bonded across the box are not")
    _choice(mdp, "free-energy", ["no"], "only the A state of the topology is read")
    _choice(mdp, "constraints", ["none"], "bonds are not turned into constraints; list constraints in the topology")
    _choice(mdp, "pull", ["no"], "no pulling")
    _choice(mdp, "awh", ["no"], "no AWH")
    _choice(mdp, "rotation", ["no"], "no enforced rotation")
    if mdp.number("nwall") != 0:
        raise _refuse(mdp, "nwall", "no walls")
    for axis in "xyz":
        if mdp[f"electric-field-{axis}"].split() not in ([], ["0"]):
            raise _refuse(mdp, f"electric-field-{axis}", "no applied electric field")

    coulombtype = _choice(mdp, "coulombtype", ["Reaction-Field", "Cut-off"],
                          "only Reaction-Field and Cut-off (a reaction field with epsilon-rf = epsilon-r) are")
    rcoulomb, rvdw = mdp.number("rcoulomb"), mdp.number("rvdw")
    if rcoulomb <= 0:
        raise _refuse(mdp, "rcoulomb", "the cut-off must be positive")
    if rvdw != rcoulomb:
        raise _refuse(mdp, "rvdw", f"rvdw must equal rcoulomb = {mdp['rcoulomb']} (one cut-off)")
    epsilonR = mdp.number("epsilon-r")
    if not epsilonR > 0:
        raise _refuse(mdp, "epsilon-r", "it must be positive (0, no electrostatics, is not supported)")
    if coulombtype == normalizeValue("Reaction-Field"):
        # GROMACS ignores coulomb-modifier for the reaction field: its c_rf already shifts the potential to zero.
        epsilonRF = mdp.number("epsilon-rf")
        if epsilonRF < 0:
            raise _refuse(mdp, "epsilon-rf", "it must be 0 (infinity) or positive")
        reactionFieldDielectric = math.inf if epsilonRF == 0 else epsilonRF
    else:
        _choice(mdp, "coulomb-modifier", ["Potential-shift-Verlet", "Potential-shift"],
                "a plain cut-off is computed with its potential shift only")
        reactionFieldDielectric = epsilonR  # k_rf = 0, c_rf = 1/rc: GROMACS's shifted plain cut-off

    _choice(mdp, "vdw-type", ["Cut-off"], "only vdw-type = Cut-off is")
    modifier = _choice(mdp, "vdw-modifier", ["Potential-shift-Verlet", "Potential-shift", "None"],
                       "only Potential-shift and None are")
    _choice(mdp, "dispcorr", ["no"], "no dispersion correction is computed")
    return NonbondedSettings(cutoff=rcoulomb, coulombDielectric=epsilonR,
                             reactionFieldDielectric=reactionFieldDielectric,
                             lennardJonesShift=modifier != normalizeValue("None"))
