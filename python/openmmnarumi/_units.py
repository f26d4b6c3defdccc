"""Units shared by the analysis packages: OpenMM Quantities to plain numbers in OpenMM's units (nm, e, K), whole
numbers (counts, intervals, strides) checked rather than truncated, and potentials in kJ/mol/e to the units that
files and plots show (kT/e at DEFAULT_TEMPERATURE unless told otherwise)."""
import operator

import numpy as np

from . import _potentialmap

#: OpenMM's 1/(4 pi eps0) in kJ nm/(mol e^2), bit for bit (its ONE_4PI_EPS0), from the C++ layers' one definition
#: (common/ CoulombConstant.h): the one value of the forces, the platforms and the analysis engines.
COULOMB_CONSTANT = _potentialmap.COULOMB_CONSTANT

#: The temperature (K) of kT/e when none is given, everywhere in openmmnarumi.
DEFAULT_TEMPERATURE = 300.0
FARADAY = 96485.33212              # C/mol (exact in the 2019 SI)
MOLAR_GAS_CONSTANT = 8.314462618e-3  # kJ/(mol K) (exact in the 2019 SI)
KJ_PER_KCAL = 4.184
#: The units unitFactor converts kJ/mol/e into.
POTENTIAL_UNITS = ("kJ/mol/e", "kcal/mol/e", "kT/e", "V", "mV", "e/A")


def stripUnit(quantity, unitName):
    """A plain float/array from an OpenMM Quantity (converted to openmm.unit.<unitName>) or a plain value (assumed in
    that unit already), which is returned as it is."""
    try:
        import openmm.unit as unit
        if unit.is_quantity(quantity):
            return quantity.value_in_unit(getattr(unit, unitName))
    except ImportError:  # pragma: no cover - openmm is a dependency
        pass
    return quantity


def wholeNumber(name, value, minimum=None, what=""):
    """value as an int: ValueError naming it unless it is a whole number (2.7 is refused, not truncated; 3.0 is 3) of
    at least minimum; what (" of steps") goes into the message."""
    message = f"{name} = {value!r} must be a whole number{what}" + ("" if minimum is None else f" >= {minimum}")
    try:
        number = operator.index(value)
    except TypeError:
        try:
            real = float(value)
        except (TypeError, ValueError):
            raise ValueError(message) from None
        if not real.is_integer():
            raise ValueError(message) from None
        number = int(real)
    if minimum is not None and number < minimum:
        raise ValueError(message)
    return number


def nanometers(value):
    """A float in nm from a float (taken as nm) or an openmm.unit Quantity of length."""
    return float(stripUnit(value, "nanometer"))


def nanometers3(value):
    """A float in nm^3 from a float (taken as nm^3) or an openmm.unit Quantity of volume."""
    import openmm.unit as unit
    if unit.is_quantity(value):
        return float(value.value_in_unit(unit.nanometer ** 3))
    return float(value)


def positionsInNanometers(values, what="positions"):
    """A contiguous (N, 3) float64 array in nm from an array (taken as nm), a list of Vec3 or 3-sequences, or a
    Quantity of either."""
    values = stripUnit(values, "nanometer")
    array = np.asarray([[v[0], v[1], v[2]] for v in values] if isinstance(values, (list, tuple)) else values,
                       dtype=np.float64)
    if array.ndim != 2 or array.shape[1] != 3:
        raise ValueError(f"{what} must have shape (N, 3), got {array.shape}")
    return np.ascontiguousarray(array)


def unitFactor(units, temperature=DEFAULT_TEMPERATURE):
    """The factor that converts a potential in kJ/mol/e into units: 'kJ/mol/e', 'kcal/mol/e', 'kT/e' (at temperature,
    K or an OpenMM Quantity), 'V', 'mV' or 'e/A' (q/r with r in Angstrom and no Coulomb constant, VMD's cionize)."""
    factors = {
        "kJ/mol/e": 1.0,
        "kcal/mol/e": 1.0 / KJ_PER_KCAL,
        "V": 1000.0 / FARADAY,
        "mV": 1e6 / FARADAY,
        "e/A": 1.0 / (10.0 * COULOMB_CONSTANT),
    }
    if units == "kT/e":
        temperature = stripUnit(temperature, "kelvin")
        if not temperature > 0:
            raise ValueError(f"temperature must be positive for kT/e, got {temperature} K")
        return 1.0 / (MOLAR_GAS_CONSTANT * temperature)
    if units not in factors:
        raise ValueError(f"units must be one of {list(POTENTIAL_UNITS)}, got {units!r}")
    return factors[units]


def convertPotential(values, units="kJ/mol/e", temperature=DEFAULT_TEMPERATURE):
    """Potentials in kJ/mol/e (a number or an array) converted into units (see unitFactor)."""
    factor = unitFactor(units, temperature)  # checks units and temperature also for kJ/mol/e's factor 1
    return values if units == "kJ/mol/e" else np.asarray(values) * factor
