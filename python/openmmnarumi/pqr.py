"""Structure input of maps and HCP.  PQR files (APBS, PDB2PQR): a PDB-like structure whose atoms carry their charge
(e) and radius (A) in place of the occupancy and B-factor columns; read wherever a PDB is accepted, the charges and
radii of the file are then used instead of a force field's.  PDB files are read with OpenMM (readPDBFile), with an
error naming the file when it holds no atoms."""
import dataclasses
import os

import numpy as np

__all__ = ["PQRStructure", "isPQR", "readPDBFile", "readPQR"]


@dataclasses.dataclass
class PQRStructure:
    """topology (an OpenMM Topology: chains, residues, atoms with elements guessed from the names), positions (N, 3)
    in nm, charges (N,) in e, radii (N,) in nm, and the periodic box vectors (nm) of a CRYST1 record or None."""
    topology: object        #: an OpenMM Topology
    positions: np.ndarray   #: (N, 3), nm
    charges: np.ndarray     #: (N,), e
    radii: np.ndarray       #: (N,), nm
    boxVectors: object = None  #: the periodic box vectors of a CRYST1 record (3 x 3, nm), or None


def isPQR(path):
    """Whether a file is read as PQR: its extension is .pqr (any case)."""
    return os.path.splitext(os.fspath(path))[1].lower() == ".pqr"


def readPDBFile(path):
    """An openmm.app.PDBFile; ValueError naming the file if it cannot be read as a PDB with atoms (a file of another
    format otherwise ends in an IndexError deep inside the reader)."""
    import openmm.app as app
    try:
        pdb = app.PDBFile(os.fspath(path))
    except (IndexError, KeyError, ValueError) as error:
        raise ValueError(f"{path}: not a PDB file with atoms ({type(error).__name__}: {error})") from None
    if pdb.topology.getNumAtoms() == 0:
        raise ValueError(f"{path}: not a PDB file with atoms (no ATOM or HETATM record)")
    return pdb


def _element(atomName, residueName):
    import openmm.app as app
    letters = "".join(c for c in atomName if c.isalpha())
    candidates = [letters[:2].capitalize()] if atomName.upper() == residueName.upper() else []  # ions: NA, CL, ZN
    candidates.append(letters[:1].upper())
    for symbol in candidates:
        try:
            return app.element.Element.getBySymbol(symbol)
        except KeyError:
            continue
    return None


def readPQR(path):
    """A PQRStructure.  Whitespace-separated ATOM/HETATM records (PDB2PQR's format: serial, atom name, residue name,
    optional chain, residue number, x y z (A), charge (e), radius (A)); a new chain starts at each chain identifier
    change and at each TER.  A record that cannot be read raises ValueError naming the file and line."""
    import openmm
    import openmm.app as app
    import openmm.unit as unit
    topology = app.Topology()
    positions, charges, radii = [], [], []
    chain, chainKey, residue, residueKey = None, None, None, None
    box = None
    with open(path) as handle:
        for number, line in enumerate(handle, 1):
            record = line[:6].strip().upper()
            if record == "CRYST1":
                try:
                    a, b, c, alpha, beta, gamma = (float(v) for v in line[6:54].split())
                except ValueError as error:
                    raise ValueError(f"{path}, line {number}: not a CRYST1 record ({error})") from None
                if not (min(a, b, c) > 0 and all(0 < angle < 180 for angle in (alpha, beta, gamma))):
                    raise ValueError(f"{path}, line {number}: CRYST1 gives no box (lengths {a:g} {b:g} {c:g} A must "
                                     f"be positive, angles {alpha:g} {beta:g} {gamma:g} between 0 and 180 degrees)")
                from openmm.app.internal.unitcell import computePeriodicBoxVectors
                box = computePeriodicBoxVectors(a / 10, b / 10, c / 10, np.radians(alpha), np.radians(beta),
                                                np.radians(gamma))
                continue
            if record == "TER":
                chainKey = None
                continue
            if record not in ("ATOM", "HETATM"):
                continue
            fields = line.split()
            try:
                if len(fields) == 11:
                    _, _, name, residueName, chainId, residueNumber, x, y, z, charge, radius = fields
                elif len(fields) == 10:
                    _, _, name, residueName, residueNumber, x, y, z, charge, radius = fields
                    chainId = ""
                else:
                    raise ValueError(f"{len(fields)} fields, not 10 or 11")
                values = [float(v) for v in (x, y, z, charge, radius)]
            except ValueError as error:
                raise ValueError(f"{path}, line {number}: not a PQR atom record ({error}): {line.strip()!r}") from None
            if not np.all(np.isfinite(values)) or values[4] < 0:
                raise ValueError(f"{path}, line {number}: non-finite coordinate or charge, or a negative radius")
            if chain is None or chainId != chainKey:
                chain, chainKey, residueKey = topology.addChain(chainId or None), chainId, None
            if (residueName, residueNumber) != residueKey:
                residue, residueKey = topology.addResidue(residueName, chain, residueNumber), (residueName, residueNumber)
            topology.addAtom(name, _element(name, residueName), residue)
            positions.append(values[:3])
            charges.append(values[3])
            radii.append(values[4])
    if not positions:
        raise ValueError(f"{path}: no ATOM or HETATM records")
    if box is not None:
        topology.setPeriodicBoxVectors(box)
        box = [openmm.Vec3(*v.value_in_unit(unit.nanometer)) for v in box]
    return PQRStructure(topology, np.asarray(positions, dtype=np.float64) / 10.0, np.asarray(charges, dtype=np.float64),
                        np.asarray(radii, dtype=np.float64) / 10.0, box)
