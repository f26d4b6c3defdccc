"""The directives of a preprocessed GROMACS topology (.top with its .itp files) as plain data: [ defaults ], the atom
types and the nonbonded and 1-4 type-pair tables, each molecule type with its atoms and interaction lines, and the
[ molecules ] list.  Sections the loader cannot use are refused here with the section, file and line named; the
parameters of interaction lines are checked where the System is built."""
import dataclasses

from ._preprocessor import preprocess

# Sections inside a [ moleculetype ]: number of atoms in a line (None: the line says).
MOLECULE_SECTIONS = {"atoms": None, "bonds": 2, "pairs": 2, "angles": 3, "dihedrals": 4, "constraints": 2,
                     "settles": 1, "exclusions": None, "virtual_sites2": 3, "virtual_sites3": 4,
                     "virtual_sitesn": None}
# Sections outside molecule types (the lines of the bonded type tables are not read: interaction lines without
# parameters are refused where the System is built).
GLOBAL_SECTIONS = {"defaults", "atomtypes", "nonbond_params", "pairtypes", "bondtypes", "angletypes",
                   "dihedraltypes", "constrainttypes", "moleculetype", "system", "molecules"}


@dataclasses.dataclass
class Defaults:
    """[ defaults ]: nbfunc, comb-rule, gen-pairs, fudgeLJ, fudgeQQ (the last three GROMACS's defaults when absent)."""
    nonbondedFunction: int
    combinationRule: int
    generatePairs: bool = False
    fudgeLJ: float = 1.0
    fudgeQQ: float = 1.0


@dataclasses.dataclass
class AtomType:
    name: str
    mass: float
    charge: float
    particleType: str   # A (atom), S (shell), V or D (virtual site)
    v: float            # C6 (combination rule 1) or sigma (2, 3)
    w: float            # C12 (combination rule 1) or epsilon (2, 3)


@dataclasses.dataclass
class Atom:
    type: str
    residueNumber: int
    residueName: str
    name: str
    charge: float
    mass: float


@dataclasses.dataclass
class Interaction:
    """One line of a molecule type's interaction section: 0-based atoms, the function type, the parameters."""
    atoms: tuple
    function: int
    parameters: list
    where: str


@dataclasses.dataclass
class MoleculeType:
    name: str
    nrexcl: int
    where: str
    atoms: list = dataclasses.field(default_factory=list)
    sections: dict = dataclasses.field(default_factory=dict)  # section name -> [Interaction]


@dataclasses.dataclass
class Topology:
    defaults: Defaults = None
    atomTypes: dict = dataclasses.field(default_factory=dict)       # name -> AtomType
    nonbondParams: dict = dataclasses.field(default_factory=dict)   # (type, type) sorted -> (v, w)
    pairTypes: dict = dataclasses.field(default_factory=dict)       # (type, type) sorted -> (v, w)
    moleculeTypes: dict = dataclasses.field(default_factory=dict)   # name -> MoleculeType
    systemName: str = ""
    molecules: list = dataclasses.field(default_factory=list)       # [(molecule type name, count)]


def _numbers(fields, line, what):
    try:
        return [float(f) for f in fields]
    except ValueError:
        raise ValueError(f"{line.where()}: {what} must be numbers, got {' '.join(fields)!r}") from None


def _integer(text, line, what):
    try:
        return int(text)
    except ValueError:
        raise ValueError(f"{line.where()}: {what} must be a whole number, got {text!r}") from None


def _isParticleType(field):
    return len(field) == 1 and field.isalpha()


def _atomType(fields, line):
    """GROMACS's reading of an [ atomtypes ] line: name [bonded type] [atomic number] mass charge ptype V W, the
    optional columns recognised by where the one-letter particle type stands."""
    if len(fields) >= 6 and _isParticleType(fields[3]):
        first = 1
    elif len(fields) >= 8 and _isParticleType(fields[5]):
        first = 3
    elif len(fields) >= 7 and _isParticleType(fields[4]):
        first = 2
    else:
        raise ValueError(f"{line.where()}: cannot read the [ atomtypes ] line {line.text!r} (no one-letter particle "
                         "type where GROMACS looks for it)")
    mass, charge = _numbers(fields[first:first + 2], line, "mass and charge")
    v, w = _numbers(fields[first + 3:first + 5], line, "the Lennard-Jones parameters")
    return AtomType(fields[0], mass, charge, fields[first + 2].upper(), v, w)


def _typePair(fields, line, section):
    if len(fields) < 5:
        raise ValueError(f"{line.where()}: [ {section} ] needs two types, a function and two parameters")
    if fields[2] != "1":
        raise ValueError(f"{line.where()}: [ {section} ] function {fields[2]} is not supported (only 1, "
                         "Lennard-Jones)")
    return tuple(sorted(fields[:2])), tuple(_numbers(fields[3:5], line, "the Lennard-Jones parameters"))


def _moleculeAtom(fields, line, molecule, atomTypes):
    if len(fields) < 6:
        raise ValueError(f"{line.where()}: an [ atoms ] line needs at least nr, type, resnr, residue, atom, cgnr")
    number = _integer(fields[0], line, "the atom number")
    if number != len(molecule.atoms) + 1:
        raise ValueError(f"{line.where()}: atom number {number} in [ atoms ] of {molecule.name}, expected "
                         f"{len(molecule.atoms) + 1} (atoms are numbered 1, 2, ... in order)")
    if fields[1] not in atomTypes:
        raise ValueError(f"{line.where()}: atom type {fields[1]!r} is not in [ atomtypes ]")
    atomType = atomTypes[fields[1]]
    charge = _numbers(fields[6:7], line, "the charge")[0] if len(fields) > 6 else atomType.charge
    mass = _numbers(fields[7:8], line, "the mass")[0] if len(fields) > 7 else atomType.mass
    return Atom(fields[1], _integer(fields[2], line, "the residue number"), fields[3], fields[4], charge, mass)


def _interaction(section, fields, line, molecule):
    count = MOLECULE_SECTIONS[section]
    natoms = len(molecule.atoms)

    def atomIndex(text):
        index = _integer(text, line, "atom numbers")
        if not 1 <= index <= natoms:
            raise ValueError(f"{line.where()}: atom {index} in [ {section} ] of {molecule.name}, which has "
                             f"{natoms} atoms")
        return index - 1

    if section == "exclusions":
        return Interaction(tuple(atomIndex(f) for f in fields), 0, [], line.where())
    if section == "virtual_sitesn":
        if len(fields) < 3:
            raise ValueError(f"{line.where()}: a [ virtual_sitesn ] line needs the site, a function and atoms")
        function = _integer(fields[1], line, "the function")
        rest = fields[2:]
        if function == 3:  # atom weight pairs
            if len(rest) % 2:
                raise ValueError(f"{line.where()}: [ virtual_sitesn ] function 3 takes atom, weight pairs")
            atoms = tuple(atomIndex(f) for f in rest[0::2])
            return Interaction((atomIndex(fields[0]),) + atoms, function, _numbers(rest[1::2], line, "weights"),
                               line.where())
        return Interaction((atomIndex(fields[0]),) + tuple(atomIndex(f) for f in rest), function, [], line.where())
    if len(fields) < count + 1:
        raise ValueError(f"{line.where()}: a [ {section} ] line needs {count} atoms and a function")
    return Interaction(tuple(atomIndex(f) for f in fields[:count]), _integer(fields[count], line, "the function"),
                       _numbers(fields[count + 1:], line, "parameters"), line.where())


def readTopology(path, includeDirs=None, defines=None):
    """The Topology of a .top file (preprocessed with `defines`); ValueError naming the file and line of what cannot
    be read or is not supported."""
    topology = Topology()
    section, molecule = None, None
    for line in preprocess(path, includeDirs, defines):
        text = line.text
        if text.startswith("["):
            if not text.endswith("]"):
                raise ValueError(f"{line.where()}: a section header must be '[ name ]', got {text!r}")
            section = text[1:-1].strip().lower()
            if section == "moleculetype":
                molecule = None
            elif section in MOLECULE_SECTIONS:
                if molecule is None:
                    raise ValueError(f"{line.where()}: [ {section} ] outside a [ moleculetype ]")
                molecule.sections.setdefault(section, [])
            elif section in ("system", "molecules"):
                molecule = None
            elif section not in GLOBAL_SECTIONS:
                raise ValueError(f"{line.where()}: the section [ {section} ] is not supported")
            elif molecule is not None:
                raise ValueError(f"{line.where()}: [ {section} ] inside the molecule type {molecule.name}")
            continue
        if section is None:
            raise ValueError(f"{line.where()}: {text!r} before any section")
        fields = text.split()
        if section == "defaults":
            if topology.defaults is not None:
                raise ValueError(f"{line.where()}: a second [ defaults ] line")
            if len(fields) < 2:
                raise ValueError(f"{line.where()}: [ defaults ] needs at least nbfunc and comb-rule")
            defaults = Defaults(_integer(fields[0], line, "nbfunc"), _integer(fields[1], line, "comb-rule"))
            if len(fields) > 2:
                if fields[2].lower() not in ("yes", "no"):
                    raise ValueError(f"{line.where()}: gen-pairs must be yes or no, got {fields[2]!r}")
                defaults.generatePairs = fields[2].lower() == "yes"
            if len(fields) > 3:
                defaults.fudgeLJ = _numbers(fields[3:4], line, "fudgeLJ")[0]
            if len(fields) > 4:
                defaults.fudgeQQ = _numbers(fields[4:5], line, "fudgeQQ")[0]
            if defaults.nonbondedFunction != 1:
                raise ValueError(f"{line.where()}: nbfunc {defaults.nonbondedFunction} is not supported (only 1, "
                                 "Lennard-Jones)")
            if defaults.combinationRule not in (1, 2, 3):
                raise ValueError(f"{line.where()}: comb-rule {defaults.combinationRule} is not 1, 2 or 3")
            topology.defaults = defaults
        elif section == "atomtypes":
            atomType = _atomType(fields, line)
            topology.atomTypes[atomType.name] = atomType
        elif section == "nonbond_params":
            pair, parameters = _typePair(fields, line, section)
            topology.nonbondParams[pair] = parameters
        elif section == "pairtypes":
            pair, parameters = _typePair(fields, line, section)
            topology.pairTypes[pair] = parameters
        elif section in ("bondtypes", "angletypes", "dihedraltypes", "constrainttypes"):
            pass  # parameters are taken from the interaction lines; a line without them is refused where it is used
        elif section == "moleculetype":
            if molecule is not None:
                raise ValueError(f"{line.where()}: a second line in [ moleculetype ]")
            if len(fields) != 2:
                raise ValueError(f"{line.where()}: [ moleculetype ] needs a name and nrexcl")
            if fields[0] in topology.moleculeTypes:
                raise ValueError(f"{line.where()}: molecule type {fields[0]} is defined twice")
            molecule = MoleculeType(fields[0], _integer(fields[1], line, "nrexcl"), line.where())
            topology.moleculeTypes[molecule.name] = molecule
        elif section == "atoms":
            molecule.atoms.append(_moleculeAtom(fields, line, molecule, topology.atomTypes))
        elif section in MOLECULE_SECTIONS:
            molecule.sections[section].append(_interaction(section, fields, line, molecule))
        elif section == "system":
            topology.systemName = (topology.systemName + " " + text).strip()
        elif section == "molecules":
            if len(fields) != 2:
                raise ValueError(f"{line.where()}: a [ molecules ] line needs a name and a count")
            if fields[0] not in topology.moleculeTypes:
                raise ValueError(f"{line.where()}: molecule type {fields[0]!r} of [ molecules ] is not defined")
            topology.molecules.append((fields[0], _integer(fields[1], line, "the molecule count")))
    if topology.defaults is None:
        raise ValueError(f"{path}: no [ defaults ] section")
    if not topology.molecules:
        raise ValueError(f"{path}: no [ molecules ] section")
    return topology
