"""Atom selections and exclusion groups for the RDF engine, the reporter and the sampler."""
import numpy as np

from .._optional import importMdtraj

from .._deprecation import deprecatedAlias

__all__ = ["selectAtoms", "exclusionGroups"]

_QUERY_KEYS = {"resname", "name", "element", "resid", "chain", "index"}


def _asSet(value):
    return {value} if isinstance(value, (str, int)) else set(value)


def checkSelection(name, selection):
    """ValueError naming selection unless it has the form of one (checked before any topology is known): atom indices
    (whole numbers, at least one), a selection string, or a query dict with at least one known key.  Returns the
    indices as a list of ints, or the string or dict as it is."""
    if selection is None:
        raise ValueError(f"{name} is None: give atom indices, a selection string or a query dict")
    if isinstance(selection, str):
        if not selection.strip():
            raise ValueError(f"{name} is an empty selection string")
        return selection
    if isinstance(selection, dict):
        if not selection:
            raise ValueError(f"{name} = {{}} has no query key (it would select every atom); use some of "
                             f"{sorted(_QUERY_KEYS)}")
        unknown = set(selection) - _QUERY_KEYS
        if unknown:
            raise ValueError(f"unknown selection keys {sorted(unknown)}; use {sorted(_QUERY_KEYS)}")
        return selection
    try:
        indices = np.asarray(selection).ravel()
    except ValueError:
        raise ValueError(f"{name} = {selection!r} is not a flat list of atom indices") from None
    if len(indices) == 0:
        raise ValueError(f"{name} is empty: it must select at least one atom")
    if indices.dtype.kind not in "iu":
        for value in indices.tolist():
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not float(value).is_integer():
                raise ValueError(f"{name} holds {value!r}: atom indices must be whole numbers")
    return [int(i) for i in indices]


def selectAtoms(topology, selection):
    """Atom indices of a selection: indices, an mdtraj selection string, or a query dict on an OpenMM Topology.

    Query keys: resname, name, element (symbol), resid (residue index), chain (chain index), index; each value is
    one value or a collection, and an atom must match every key.
    """
    if isinstance(selection, str):
        mdtraj = importMdtraj("a selection string (pass atom indices or a query dict instead)")
        mdTopology = topology if isinstance(topology, mdtraj.Topology) else mdtraj.Topology.from_openmm(topology)
        return [int(i) for i in mdTopology.select(selection)]
    selection = checkSelection("selection", selection)
    if isinstance(selection, dict):
        if topology is None:
            raise ValueError("a query selection needs a topology")
        wanted = {key: _asSet(value) for key, value in selection.items()}
        if hasattr(topology, "to_openmm"):  # an mdtraj Topology
            topology = topology.to_openmm()
        indices = []
        for atom in topology.atoms():
            properties = {"resname": atom.residue.name, "name": atom.name, "resid": atom.residue.index,
                          "chain": atom.residue.chain.index, "index": atom.index,
                          "element": atom.element.symbol if atom.element is not None else None}
            if all(properties[key] in values for key, values in wanted.items()):
                indices.append(atom.index)
        return indices
    return selection


def exclusionGroups(topology, exclusion, molecules=None):
    """One group per atom for RDFEngine: exclusion None, "residue", "molecule" (needs molecules, a list of atom-index
    lists, or an mdtraj topology) or an explicit sequence of integers."""
    if exclusion is None:
        return None
    if isinstance(exclusion, str):
        if hasattr(topology, "to_openmm") and exclusion == "molecule" and molecules is None:
            molecules = [[atom.index for atom in molecule] for molecule in topology.find_molecules()]
        if hasattr(topology, "to_openmm"):
            topology = topology.to_openmm()
        if exclusion == "residue":
            return [atom.residue.index for atom in topology.atoms()]
        if exclusion == "molecule":
            if molecules is None:
                raise ValueError("exclusion='molecule' needs the molecules (a Context's getMolecules())")
            groups = [-1] * topology.getNumAtoms()
            for number, molecule in enumerate(molecules):
                for atom in molecule:
                    groups[atom] = number
            return groups
        raise ValueError(f"exclusion = {exclusion!r} is not None, 'residue', 'molecule' or a list of groups")
    return [int(g) for g in exclusion]


def bondedMolecules(topology):
    """Atom-index lists of the molecules of an OpenMM Topology (connected by its bonds)."""
    parent = list(range(topology.getNumAtoms()))

    def root(i):
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for bond in topology.bonds():
        a, b = root(bond[0].index), root(bond[1].index)
        if a != b:
            parent[max(a, b)] = min(a, b)
    molecules = {}
    for i in range(len(parent)):
        molecules.setdefault(root(i), []).append(i)
    return list(molecules.values())


select_atoms = deprecatedAlias(selectAtoms, "select_atoms")
exclusion_groups = deprecatedAlias(exclusionGroups, "exclusion_groups")
