"""The molecule an HCP surface potential is computed for: PDB input with force-field charges, atomic radii, the
residue/chain/complex hierarchy, the electrostatic size, and assemblies of copies."""
import numpy as np

from .. import _hcp
from .._deprecation import deprecatedAlias, renamedKeywords
from .._system import chargesFromSystem
from .._units import positionsInNanometers
from ..pqr import isPQR, readPDBFile, readPQR

__all__ = ["BONDI_RADII", "DEFAULT_RADIUS", "atomicRadii", "componentIndices", "electrostaticSize", "prepareMolecule",
           "readMolecule", "assembleCopies"]

#: Bondi's van der Waals radii (J Phys Chem 68, 441 (1964)) in nm, for the surface and the electrostatic size;
#: other elements get 0.15 nm, the default atom size of Sigalov's elsize.
BONDI_RADII = {"H": 0.120, "C": 0.170, "N": 0.155, "O": 0.152, "F": 0.147, "P": 0.180, "S": 0.180, "Cl": 0.175,
               "Br": 0.185, "I": 0.198, "Se": 0.190, "Na": 0.227, "K": 0.275, "Mg": 0.173}
#: The radius (nm) of elements that BONDI_RADII does not list.
DEFAULT_RADIUS = 0.150
_WATER_RESIDUES = {"HOH", "WAT", "H2O", "TIP3", "TIP4", "SOL", "T3P", "SPC"}
_ION_RESIDUES = {"NA", "CL", "K", "NA+", "CL-", "K+", "SOD", "CLA", "POT"}


def atomicRadii(topology):
    """Bondi radii (nm) of the topology's atoms, by element."""
    return np.array([BONDI_RADII.get(atom.element.symbol if atom.element is not None else "", DEFAULT_RADIUS)
                     for atom in topology.atoms()], dtype=np.float64)


def componentIndices(topology, complexes=None):
    """The hierarchy as index arrays: (residueOfAtom, chainOfResidue, complexOfChain).

    complexes: None or "whole" puts every chain in one complex (the whole molecule); "chains" makes each chain its
    own complex; otherwise a sequence giving the complex number of each chain.
    """
    residueOfAtom = np.array([atom.residue.index for atom in topology.atoms()], dtype=np.int32)
    chainOfResidue = np.array([residue.chain.index for residue in topology.residues()], dtype=np.int32)
    numChains = topology.getNumChains()
    if complexes is None or (isinstance(complexes, str) and complexes == "whole"):
        complexOfChain = np.zeros(numChains, dtype=np.int32)
    elif isinstance(complexes, str) and complexes == "chains":
        complexOfChain = np.arange(numChains, dtype=np.int32)
    elif isinstance(complexes, str):
        raise ValueError(f"complexes must be 'whole', 'chains' or one complex number per chain, got {complexes!r}")
    else:
        complexOfChain = np.asarray(complexes, dtype=np.int32)
        if complexOfChain.shape != (numChains,):
            raise ValueError(f"complexes needs one complex number per chain ({numChains}), got {complexOfChain.shape}")
    return residueOfAtom, chainOfResidue, complexOfChain


def electrostaticSize(positions, radii, method="determinant"):
    """The electrostatic size A (nm) of Sigalov et al.: "determinant" (A_det, elsize's and GEM's default) or
    "ellipsoid" (A_ell, the exact value for the effective ellipsoid)."""
    axes, sizeDet, sizeEll = _hcp.effective_ellipsoid(positionsInNanometers(positions, "positions/points"),
                                                      np.asarray(radii, dtype=np.float64))
    if method == "determinant":
        return sizeDet
    if method == "ellipsoid":
        return sizeEll
    raise ValueError(f"method must be 'determinant' or 'ellipsoid', got {method!r}")


@renamedKeywords(pdb_path="pdbFile", forcefield_files="forcefield", keep_solvent="keepSolvent", ph="pH")
def prepareMolecule(pdbFile, forcefield=("amber14-all.xml",), keepSolvent=False, pH=7.0):
    """Reads a PDB file and returns (topology, positions in nm as an array, charges in e) with charges from the
    OpenMM force field files; water and monatomic ions are removed unless keepSolvent, and missing hydrogens are
    added (Modeller.addHydrogens at pH) when the force field cannot match the residues as they are."""
    import openmm.app as app
    import openmm.unit as unit
    pdb = readPDBFile(pdbFile)
    modeller = app.Modeller(pdb.topology, pdb.positions)
    if not keepSolvent:
        modeller.delete([residue for residue in modeller.topology.residues() if _isSolvent(residue)])
    if modeller.topology.getNumAtoms() == 0:
        raise ValueError(f"{pdbFile}: no atoms left (only solvent?)")
    forcefieldObject = app.ForceField(*forcefield)
    try:
        system = forcefieldObject.createSystem(modeller.topology)
    except ValueError:  # usually missing hydrogens: let Modeller add them, then try again
        modeller.addHydrogens(forcefieldObject, pH=pH)
        system = forcefieldObject.createSystem(modeller.topology)
    positions = np.asarray(modeller.positions.value_in_unit(unit.nanometer), dtype=np.float64)
    return modeller.topology, positions, chargesFromSystem(system)


def _isSolvent(residue):
    """Water (PDBFile names it HOH; PQR files keep WAT, SOL, TIP3, ...) or a monatomic ion."""
    return residue.name.upper() in _WATER_RESIDUES or (
        residue.name.upper() in _ION_RESIDUES and len(list(residue.atoms())) == 1)


def readMolecule(path, forcefield=("amber14-all.xml",), keepSolvent=False, pH=7.0):
    """(topology, positions in nm, charges in e, radii in nm) of a structure file: a PDB with force-field charges and
    Bondi radii (prepareMolecule, atomicRadii), or a PQR file with its own charges and radii.  Water and monatomic
    ions are removed unless keepSolvent."""
    if not isPQR(path):
        topology, positions, charges = prepareMolecule(path, forcefield, keepSolvent, pH)
        return topology, positions, charges, atomicRadii(topology)
    import openmm.app as app
    structure = readPQR(path)
    keep = np.array([keepSolvent or not _isSolvent(atom.residue) for atom in structure.topology.atoms()])
    if not keep.any():
        raise ValueError(f"{path}: no atoms left (only solvent?)")
    modeller = app.Modeller(structure.topology, structure.positions)
    modeller.delete([residue for residue in structure.topology.residues()
                     if not keepSolvent and _isSolvent(residue)])
    return (modeller.topology, structure.positions[keep], structure.charges[keep], structure.radii[keep])


def assembleCopies(topology, positions, transforms):
    """An assembly of rigid copies of a molecule, one chain per copy (for tests and benchmarks, and to build
    large test structures): transforms is a sequence of (3x3 rotation, translation in nm).  Returns
    (topology, positions in nm); the copies' charges are the molecule's, repeated (``np.tile``)."""
    import openmm.app as app
    positions = positionsInNanometers(positions, "positions/points")
    assembly = app.Topology()
    blocks = []
    for rotation, translation in transforms:
        for chain in topology.chains():
            newChain = assembly.addChain()
            for residue in chain.residues():
                newResidue = assembly.addResidue(residue.name, newChain, residue.id)
                for atom in residue.atoms():
                    assembly.addAtom(atom.name, atom.element, newResidue)
        blocks.append(positions @ np.asarray(rotation, dtype=np.float64).T + np.asarray(translation, dtype=np.float64))
    return assembly, np.concatenate(blocks)


atomic_radii = deprecatedAlias(atomicRadii, "atomic_radii")
component_indices = deprecatedAlias(componentIndices, "component_indices")
electrostatic_size = deprecatedAlias(electrostaticSize, "electrostatic_size")
prepare_molecule = deprecatedAlias(prepareMolecule, "prepare_molecule")
assemble_copies = deprecatedAlias(assembleCopies, "assemble_copies")
