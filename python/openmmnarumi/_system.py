"""What the analysis packages read from an OpenMM System."""
import numpy as np


def chargesFromSystem(system):
    """Per-particle charges (e) of the System's first NonbondedForce or NarumiNonbondedForce, as a float64 array."""
    import openmm
    import openmm.unit as unit
    from .narumi import NarumiNonbondedForce
    for force in system.getForces():
        if isinstance(force, openmm.NonbondedForce):
            pass
        elif NarumiNonbondedForce.isinstance(force):
            force = NarumiNonbondedForce.cast(force)
        else:
            continue
        return np.array([force.getParticleParameters(i)[0].value_in_unit(unit.elementary_charge)
                         for i in range(force.getNumParticles())], dtype=np.float64)
    raise ValueError("no charges: the System has no NonbondedForce or NarumiNonbondedForce to take charges from; "
                     "pass the charges (e) yourself")
