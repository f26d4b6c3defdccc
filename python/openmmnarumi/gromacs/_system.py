"""An OpenMM System from a read GROMACS topology and the nonbonded settings of its .mdp: the particles, virtual sites
and constraints, one force per GROMACS energy term (each in a force group of its own) and a NarumiNonbondedForce with
GROMACS's conventions and exclusions as grompp generates them."""
import collections
import math

import openmm
import openmm.app as app

from .._units import COULOMB_CONSTANT

#: The force group of each GROMACS energy term (the names `gmx energy` gives them); LJ (SR) and Coulomb (SR) share
#: the NarumiNonbondedForce, in group 0.
FORCE_GROUPS = {"LJ (SR) + Coulomb (SR)": 0, "Bond": 1, "G96Bond": 2, "Harmonic Pot.": 3, "Angle": 4,
                "G96Angle": 5, "Restr. Angles": 6, "Proper Dih.": 7, "Per. Imp. Dih.": 8, "Improper Dih.": 9,
                "Ryckaert-Bell.": 10, "CBT Dih.": 11, "LJ-14": 12, "Coulomb-14": 13}
NONBONDED_TERM = "LJ (SR) + Coulomb (SR)"

# (section, function) -> (energy term, number of parameters).  Bonds of function 5 (connections) have no energy.
BONDED_FUNCTIONS = {
    ("bonds", 1): ("Bond", 2), ("bonds", 2): ("G96Bond", 2), ("bonds", 5): (None, 0),
    ("bonds", 6): ("Harmonic Pot.", 2),
    ("angles", 1): ("Angle", 2), ("angles", 2): ("G96Angle", 2), ("angles", 10): ("Restr. Angles", 2),
    ("dihedrals", 1): ("Proper Dih.", 3), ("dihedrals", 9): ("Proper Dih.", 3), ("dihedrals", 4): ("Per. Imp. Dih.", 3),
    ("dihedrals", 2): ("Improper Dih.", 2), ("dihedrals", 3): ("Ryckaert-Bell.", 6), ("dihedrals", 11): ("CBT Dih.", 6),
    ("pairs", 1): ("LJ-14", 2),
}
# Interactions from which grompp generates exclusions (GROMACS's chemical bonds; checked with gmx_d dump): bonds of
# functions 1, 2 and 5 (not 6, the harmonic potential), constraints of function 1 (not 2).  Settles and virtual sites
# generate none.
EXCLUDING = {("bonds", 1), ("bonds", 2), ("bonds", 5), ("constraints", 1)}
CONSTRAINT_PARAMETERS = {("constraints", 1): 1, ("constraints", 2): 1, ("settles", 1): 2}
VIRTUAL_SITE_FUNCTIONS = {("virtual_sites2", 1): 1, ("virtual_sites3", 1): 2, ("virtual_sites3", 4): 3,
                          ("virtual_sitesn", 1): None, ("virtual_sitesn", 2): None, ("virtual_sitesn", 3): None}
# Bonded forces as OpenMM energy expressions where OpenMM has no class of its own.
G96_BOND = "0.25*k*(r^2-b0^2)^2"
G96_ANGLE = "0.5*k*(cos(theta)-cos0)^2"
RESTRICTED_ANGLE = "0.5*k*(cos(theta)-cos0)^2/sin(theta)^2"
HARMONIC_IMPROPER = "0.5*k*d^2; d=dp-2*pi*floor((dp+pi)/(2*pi)); dp=theta-xi0; pi=3.141592653589793"
COMBINED_BENDING_TORSION = ("k*sin(t1)^3*sin(t2)^3*(a0+c*(a1+c*(a2+c*(a3+c*a4)))); c=cos(phi); "
                            "t1=angle(p1,p2,p3); t2=angle(p2,p3,p4); phi=dihedral(p1,p2,p3,p4)")
LJ_14 = "c12/r^12-c6/r^6"
COULOMB_14 = "f*qq/r"


def _parameters(interaction, section, count):
    """The A-state parameters of an interaction line; ValueError naming the line where they are missing."""
    given = interaction.parameters
    if len(given) in (count, 2 * count) and count:
        return given[:count]
    if len(given) == 0 and count:
        raise ValueError(f"{interaction.where}: [ {section} ] function {interaction.function} without parameters: "
                         f"parameters from the type tables ([ bondtypes ], ...) are not looked up; write them on "
                         "the line")
    if len(given) == count:
        return given
    raise ValueError(f"{interaction.where}: [ {section} ] function {interaction.function} takes {count} parameters "
                     f"(or {2 * count} with the B state), got {len(given)}")


def _c6c12(v, w, combinationRule):
    """C6, C12 of a pair's parameters: C6, C12 themselves (rule 1) or sigma, epsilon (rules 2 and 3)."""
    if combinationRule == 1:
        return v, w
    return 4 * w * v ** 6, 4 * w * v ** 12


class _LennardJonesTable:
    """The nonbonded parameters of type pairs as grompp makes them: the combination rule, overridden by
    [ nonbond_params ], kept in the rule's own parameters (C6, C12 or sigma, epsilon)."""

    def __init__(self, topology):
        self.topology = topology
        self.rule = topology.defaults.combinationRule

    def native(self, a, b):
        listed = self.topology.nonbondParams.get(tuple(sorted((a, b))))
        if listed is not None:
            return listed
        ta, tb = self.topology.atomTypes[a], self.topology.atomTypes[b]
        if self.rule == 1:
            return math.sqrt(ta.v * tb.v), math.sqrt(ta.w * tb.w)
        sigma = 0.5 * (ta.v + tb.v) if self.rule == 2 else math.sqrt(ta.v * tb.v)
        return sigma, math.sqrt(ta.w * tb.w)

    def c6c12(self, a, b):
        return _c6c12(*self.native(a, b), self.rule)

    def pair14(self, a, b, interaction):
        """C6, C12 of a [ pairs ] function 1 line: its own parameters, else [ pairtypes ], else (gen-pairs) the
        nonbonded parameters with epsilon (or C6 and C12) scaled by fudgeLJ."""
        if interaction.parameters:
            return _c6c12(*_parameters(interaction, "pairs", 2), self.rule)
        listed = self.topology.pairTypes.get(tuple(sorted((a, b))))
        if listed is not None:
            return _c6c12(*listed, self.rule)
        if not self.topology.defaults.generatePairs:
            raise ValueError(f"{interaction.where}: no parameters for the 1-4 pair of types {a} and {b}: none on "
                             "the line, none in [ pairtypes ], and gen-pairs is no")
        fudge = self.topology.defaults.fudgeLJ
        c6, c12 = self.c6c12(a, b)
        return fudge * c6, fudge * c12


def _exclusions(molecule):
    """The excluded pairs (i < j, 0-based) of a molecule type: atoms within nrexcl chemical bonds, and
    [ exclusions ]."""
    neighbours = collections.defaultdict(set)
    for section, interactions in molecule.sections.items():
        for interaction in interactions:
            if (section, interaction.function) in EXCLUDING:
                i, j = interaction.atoms
                neighbours[i].add(j)
                neighbours[j].add(i)
    excluded = set()
    for start in range(len(molecule.atoms)):
        reached, frontier = {start}, {start}
        for _ in range(molecule.nrexcl):
            frontier = {n for atom in frontier for n in neighbours[atom]} - reached
            reached |= frontier
        excluded |= {(start, other) for other in reached if other > start}
    for interaction in molecule.sections.get("exclusions", []):
        first, *others = interaction.atoms
        excluded |= {tuple(sorted((first, other))) for other in others if other != first}
    return sorted(excluded)


def _virtualSite(section, interaction, masses, offset):
    """The OpenMM VirtualSite of a virtual_sites line (GROMACS's construction exactly) of the molecule whose first
    particle is offset; masses are the molecule's atoms'."""
    _, *local = interaction.atoms
    atoms = [offset + atom for atom in local]
    function = interaction.function
    if section == "virtual_sites2":
        (a,) = _parameters(interaction, section, 1)
        return openmm.TwoParticleAverageSite(*atoms, 1 - a, a)
    if section == "virtual_sites3" and function == 1:
        a, b = _parameters(interaction, section, 2)
        return openmm.ThreeParticleAverageSite(*atoms, 1 - a - b, a, b)
    if section == "virtual_sites3":  # function 4: x_i + a r_ij + b r_ik + c (r_ij x r_ik)
        a, b, c = _parameters(interaction, section, 3)
        return openmm.OutOfPlaneSite(*atoms, a, b, c)
    # virtual_sitesn: centre of geometry (1), of mass (2) or with the line's weights (3)
    if function == 1:
        weights = [1.0] * len(atoms)
    elif function == 2:
        weights = [masses[atom] for atom in local]
    else:
        weights = interaction.parameters
    total = sum(weights)
    if len(atoms) < 2 or total == 0:
        raise ValueError(f"{interaction.where}: [ virtual_sitesn ] needs two or more atoms with weights that do not "
                         "sum to zero")
    weights = [w / total for w in weights]
    if len(atoms) == 2:
        return openmm.TwoParticleAverageSite(*atoms, *weights)
    if len(atoms) == 3:
        return openmm.ThreeParticleAverageSite(*atoms, *weights)
    # A weighted average of more atoms: a local-coordinates site at the origin (its axes, from the first three atoms,
    # do not move it).
    xWeights = [-1.0, 1.0] + [0.0] * (len(atoms) - 2)
    yWeights = [-1.0, 0.0, 1.0] + [0.0] * (len(atoms) - 3)
    return openmm.LocalCoordinatesSite(atoms, weights, xWeights, yWeights, openmm.Vec3(0, 0, 0))


class _BondedForces:
    """One OpenMM force per GROMACS energy term, created when the first term of it is added."""

    def __init__(self, system, coulombDielectric):
        self.system = system
        self.forces = {}
        self.coulombFactor = COULOMB_CONSTANT / coulombDielectric

    def force(self, term):
        if term not in self.forces:
            force = self._create(term)
            force.setForceGroup(FORCE_GROUPS[term])
            force.setName(term)
            force.setUsesPeriodicBoundaryConditions(True)
            self.system.addForce(force)
            self.forces[term] = force
        return self.forces[term]

    @staticmethod
    def _create(term):
        if term in ("Bond", "Harmonic Pot."):
            return openmm.HarmonicBondForce()
        if term == "Angle":
            return openmm.HarmonicAngleForce()
        if term in ("Proper Dih.", "Per. Imp. Dih."):
            return openmm.PeriodicTorsionForce()
        if term == "Ryckaert-Bell.":
            return openmm.RBTorsionForce()
        if term == "CBT Dih.":
            force = openmm.CustomCompoundBondForce(4, COMBINED_BENDING_TORSION)
            for name in ("k", "a0", "a1", "a2", "a3", "a4"):
                force.addPerBondParameter(name)
            return force
        expression, parameters, kind = {
            "G96Bond": (G96_BOND, ("b0", "k"), openmm.CustomBondForce),
            "G96Angle": (G96_ANGLE, ("cos0", "k"), openmm.CustomAngleForce),
            "Restr. Angles": (RESTRICTED_ANGLE, ("cos0", "k"), openmm.CustomAngleForce),
            "Improper Dih.": (HARMONIC_IMPROPER, ("xi0", "k"), openmm.CustomTorsionForce),
            "LJ-14": (LJ_14, ("c6", "c12"), openmm.CustomBondForce),
            "Coulomb-14": (COULOMB_14, ("qq",), openmm.CustomBondForce),
        }[term]
        force = kind(expression)
        addParameter = {openmm.CustomBondForce: "addPerBondParameter", openmm.CustomAngleForce: "addPerAngleParameter",
                        openmm.CustomTorsionForce: "addPerTorsionParameter"}[kind]
        for name in parameters:
            getattr(force, addParameter)(name)
        if term == "Coulomb-14":
            force.addGlobalParameter("f", 0.0)  # set by the caller: 1/(4 pi eps0 eps_r)
        return force

    def add(self, section, interaction, atoms, charges, types, ljTable, fudgeQQ):
        """Add one interaction line (atoms: its atoms' indices in the System)."""
        term, count = BONDED_FUNCTIONS[section, interaction.function]
        if term is None:
            return
        if section == "pairs":
            i, j = atoms
            c6, c12 = ljTable.pair14(types[i], types[j], interaction)
            self.force("LJ-14").addBond(i, j, [c6, c12])
            coulomb = self.force("Coulomb-14")
            coulomb.setGlobalParameterDefaultValue(0, self.coulombFactor)
            coulomb.addBond(i, j, [fudgeQQ * charges[i] * charges[j]])
            return
        p = _parameters(interaction, section, count)
        force = self.force(term)
        if term in ("Bond", "Harmonic Pot."):
            force.addBond(*atoms, p[0], p[1])
        elif term == "G96Bond":
            force.addBond(*atoms, [p[0], p[1]])
        elif term == "Angle":
            force.addAngle(*atoms, math.radians(p[0]), p[1])
        elif term in ("G96Angle", "Restr. Angles"):
            force.addAngle(*atoms, [math.cos(math.radians(p[0])), p[1]])
        elif term in ("Proper Dih.", "Per. Imp. Dih."):
            multiplicity = p[2]
            if multiplicity != int(multiplicity) or multiplicity < 0:
                raise ValueError(f"{interaction.where}: the multiplicity {multiplicity} is not a whole number >= 0")
            force.addTorsion(*atoms, int(multiplicity), math.radians(p[0]), p[1])
        elif term == "Improper Dih.":
            force.addTorsion(*atoms, [math.radians(p[0]), p[1]])
        elif term == "Ryckaert-Bell.":
            force.addTorsion(*atoms, *p)
        elif term == "CBT Dih.":
            force.addBond(list(atoms), list(p))


def _checkFunctions(molecule):
    for section, interactions in molecule.sections.items():
        for interaction in interactions:
            key = (section, interaction.function)
            known = (key in BONDED_FUNCTIONS or key in CONSTRAINT_PARAMETERS or key in VIRTUAL_SITE_FUNCTIONS
                     or section == "exclusions")
            if not known:
                raise ValueError(f"{interaction.where}: [ {section} ] function {interaction.function} is not "
                                 "supported")


def _nonbondedForce(settings, narumiForceClass):
    """A NarumiNonbondedForce with the NonbondedSettings and GROMACS's conventions, without particles."""
    force = narumiForceClass()
    force.setName(NONBONDED_TERM)
    force.setForceGroup(FORCE_GROUPS[NONBONDED_TERM])
    force.setNonbondedMethod(narumiForceClass.CutoffPeriodic)
    force.setCutoffDistance(settings.cutoff)
    force.setUseDispersionCorrection(False)
    force.setExceptionsUsePeriodicBoundaryConditions(True)  # molecules may be broken across the box
    force.setCoulombDielectric(settings.coulombDielectric)
    force.setReactionFieldDielectric(settings.reactionFieldDielectric)
    force.setReactionFieldConvention(narumiForceClass.GromacsReactionField)
    if settings.lennardJonesShift:
        force.setLennardJonesModifier(narumiForceClass.LennardJonesPotentialShift)
    return force


def _virtualSiteLines(molecule):
    """{site atom: (section, interaction)} of a molecule type's virtual sites."""
    sites = {}
    for section in ("virtual_sites2", "virtual_sites3", "virtual_sitesn"):
        for interaction in molecule.sections.get(section, []):
            site = interaction.atoms[0]
            if site in sites:
                raise ValueError(f"{interaction.where}: atom {site + 1} of {molecule.name} is constructed twice")
            sites[site] = (section, interaction)
    return sites


def _refuseBondedAmongConstructions(molecule, sites):
    """grompp removes bonded interactions that virtual-site constructions make constant (-rmvsbds), which depends on
    the constraints of the constructing atoms; a bonded interaction among virtual sites and their own constructing
    atoms only is refused rather than guessed."""
    for section in ("bonds", "angles", "dihedrals"):
        for interaction in molecule.sections.get(section, []):
            members = set(interaction.atoms)
            virtual = members & set(sites)
            if not virtual or BONDED_FUNCTIONS.get((section, interaction.function), (None,))[0] is None:
                continue
            constructing = {atom for site in virtual for atom in sites[site][1].atoms[1:]}
            if members <= virtual | constructing:
                raise ValueError(f"{interaction.where}: [ {section} ] between virtual sites and their constructing "
                                 f"atoms only ({' '.join(str(a + 1) for a in interaction.atoms)}) is not supported: "
                                 "grompp removes such terms where the construction makes them constant")


def buildSystem(topology, settings, narumiForceClass):
    """(System, app.Topology, NarumiNonbondedForce, {term: force group}) of a read Topology and NonbondedSettings."""
    system = openmm.System()
    ommTopology = app.Topology()
    nonbonded = _nonbondedForce(settings, narumiForceClass)
    ljTable = _LennardJonesTable(topology)
    bonded = _BondedForces(system, settings.coulombDielectric)
    typeIndex = {}
    charges, types = [], []
    for moleculeName, count in topology.molecules:
        molecule = topology.moleculeTypes[moleculeName]
        _checkFunctions(molecule)
        exclusions = _exclusions(molecule)
        masses = [atom.mass for atom in molecule.atoms]
        sites = _virtualSiteLines(molecule)
        _refuseBondedAmongConstructions(molecule, sites)
        for index, atom in enumerate(molecule.atoms):
            particleType = topology.atomTypes[atom.type].particleType
            if particleType == "S" or (particleType in ("V", "D") and index not in sites):
                raise ValueError(f"{molecule.where}: atom {index + 1} ({atom.name}) of {moleculeName} has particle "
                                 f"type {particleType} of atom type {atom.type}: shells are not supported, and "
                                 "virtual sites need a [ virtual_sites ] line")
            if atom.type not in typeIndex:
                typeIndex[atom.type] = len(typeIndex)
        for _ in range(count):
            offset = system.getNumParticles()
            chain = ommTopology.addChain(moleculeName)
            residue, residueKey, topologyAtoms = None, None, []
            for index, atom in enumerate(molecule.atoms):
                system.addParticle(0.0 if index in sites else atom.mass)
                if (atom.residueNumber, atom.residueName) != residueKey:
                    residueKey = (atom.residueNumber, atom.residueName)
                    residue = ommTopology.addResidue(atom.residueName, chain, str(atom.residueNumber))
                topologyAtoms.append(ommTopology.addAtom(atom.name, None, residue))
                particle = nonbonded.addParticle(atom.charge, 1.0, 0.0)
                nonbonded.setParticleLennardJonesType(particle, typeIndex[atom.type])
                charges.append(atom.charge)
                types.append(atom.type)
            for site, (section, interaction) in sites.items():
                system.setVirtualSite(offset + site, _virtualSite(section, interaction, masses, offset))
            for i, j in exclusions:
                nonbonded.addException(offset + i, offset + j, 0.0, 1.0, 0.0)
            for section, interactions in molecule.sections.items():
                for interaction in interactions:
                    atoms = tuple(offset + a for a in interaction.atoms)
                    key = (section, interaction.function)
                    if key in CONSTRAINT_PARAMETERS:
                        p = _parameters(interaction, section, CONSTRAINT_PARAMETERS[key])
                        if section == "settles":  # O, H, H: two O-H distances and the H-H distance
                            oxygen = atoms[0]
                            for i, j, length in ((oxygen, oxygen + 1, p[0]), (oxygen, oxygen + 2, p[0]),
                                                 (oxygen + 1, oxygen + 2, p[1])):
                                system.addConstraint(i, j, length)
                            first = interaction.atoms[0]
                            for hydrogen in (first + 1, first + 2):
                                ommTopology.addBond(topologyAtoms[first], topologyAtoms[hydrogen])
                        else:
                            system.addConstraint(*atoms, p[0])
                    elif key in BONDED_FUNCTIONS:
                        bonded.add(section, interaction, atoms, charges, types, ljTable, topology.defaults.fudgeQQ)
                    if key in EXCLUDING or key[0] == "bonds":
                        ommTopology.addBond(topologyAtoms[interaction.atoms[0]], topologyAtoms[interaction.atoms[1]])
    names = sorted(typeIndex, key=typeIndex.get)
    for a, nameA in enumerate(names):
        for b in range(a, len(names)):
            nonbonded.addLennardJonesTypePair_usingC6C12(a, b, *ljTable.c6c12(nameA, names[b]))
    system.addForce(nonbonded)
    groups = {NONBONDED_TERM: FORCE_GROUPS[NONBONDED_TERM]}
    groups.update({term: FORCE_GROUPS[term] for term in bonded.forces})
    return system, ommTopology, nonbonded, groups

