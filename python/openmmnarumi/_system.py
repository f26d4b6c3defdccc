"""What the analysis packages read from an OpenMM System."""
import numpy as np


def _nonbondedForce(system):
    """The System's first NonbondedForce or NarumiNonbondedForce (cast to its class), or None."""
    import openmm
    from .narumi import NarumiNonbondedForce
    for force in system.getForces():
        if isinstance(force, openmm.NonbondedForce):
            return force
        if NarumiNonbondedForce.isinstance(force):
            return NarumiNonbondedForce.cast(force)
    return None


def nonbondedCutoff(system):
    """The cutoff (nm) of the System's NonbondedForce or NarumiNonbondedForce, None if it has none (NoCutoff)."""
    import openmm.unit as unit
    force = _nonbondedForce(system)
    if force is None or force.getNonbondedMethod() == 0:  # NoCutoff is 0 in both classes
        return None
    return float(force.getCutoffDistance().value_in_unit(unit.nanometer))


def chargesFromSystem(system):
    """Per-particle charges (e) of the System's first NonbondedForce or NarumiNonbondedForce, as a float64 array."""
    import openmm.unit as unit
    force = _nonbondedForce(system)
    if force is None:
        raise ValueError("no charges: the System has no NonbondedForce or NarumiNonbondedForce to take charges from; "
                         "pass the charges (e) yourself")
    return np.array([force.getParticleParameters(i)[0].value_in_unit(unit.elementary_charge)
                     for i in range(force.getNumParticles())], dtype=np.float64)
