"""NARUMI_DIAGNOSTICS, the CUDA platform's switches for measurements, tests and the accuracy study (docs/development.md,
"Diagnostics"), for the Contexts created inside a block: the benchmarks' and studies' one setter of it.

    with narumi_diagnostics("profile-stages", "accumulation=Nitadori"):
        context = openmm.Context(system, integrator, openmm.Platform.getPlatformByName("CUDA"))

The plugin reads the variable when a Context creates NarumiNonbondedForce's kernel, checks every name and value, and
prints one line naming the settings; the other platforms ignore it.
"""
import contextlib
import os

VARIABLE = "NARUMI_DIAGNOSTICS"


def _by_name(settings):
    """{name: "name[=value]"} of a NARUMI_DIAGNOSTICS value (None or "": none), in order."""
    items = [item.strip() for item in (settings or "").split(",")]
    return {item.split("=", 1)[0].strip(): item for item in items if item}


@contextlib.contextmanager
def narumi_diagnostics(*settings):
    """NARUMI_DIAGNOSTICS inside the block: the settings already in force plus each of `settings` (strings of
    comma-separated settings; None and "" add none), a setting named again replacing the earlier one; the
    environment as it was afterwards."""
    previous = os.environ.get(VARIABLE)
    merged = _by_name(previous)
    for text in settings:
        merged.update(_by_name(text))
    if merged:
        os.environ[VARIABLE] = ",".join(merged.values())
    else:
        os.environ.pop(VARIABLE, None)
    try:
        yield
    finally:
        if previous is None:
            os.environ.pop(VARIABLE, None)
        else:
            os.environ[VARIABLE] = previous


def refusal(settings):
    """The CUDA platform's message if it refuses the NARUMI_DIAGNOSTICS `settings` (None if it takes them), from a
    Context of one particle: a script names a bad setting before its long work, with the plugin's own check."""
    import openmm
    from openmmnarumi import NarumiNonbondedForce
    system = openmm.System()
    system.addParticle(1.0)
    force = NarumiNonbondedForce()
    force.setNonbondedMethod(NarumiNonbondedForce.NoCutoff)
    force.addParticle(0.0, 0.3, 0.0)
    system.addForce(force)
    with narumi_diagnostics(settings):
        try:
            openmm.Context(system, openmm.VerletIntegrator(0.001), openmm.Platform.getPlatformByName("CUDA"))
        except openmm.OpenMMException as error:
            return str(error)
    return None
