"""GromacsInputs: a GROMACS run's .top, .gro and .mdp as an OpenMM System with a NarumiNonbondedForce."""
import os

import openmm.app as app

from ._mdp import MdpSettings
from ._nonbonded import nonbondedSettings
from ._system import buildSystem
from ._topology import readTopology


class GromacsInputs:
    """The System that GROMACS runs from a topology (.top and the files it includes), a coordinate file (.gro) and
    run parameters (.mdp), for single points that agree with ``gmx mdrun -rerun`` term by term.

    Parameters
    ----------
    topFile, groFile, mdpFile : str or path
        The inputs of ``gmx grompp -p topFile -c groFile -f mdpFile``.
    includeDirs : list of folders, optional
        Searched for #include files after the including file's folder and the .mdp's ``include`` folders, before
        $GMXLIB and GROMACS's top folder.
    defines : dict, optional
        {name: value} defined for the topology's preprocessor, after the .mdp's ``define``; nothing else is
        defined (not FLEXIBLE).

    Attributes
    ----------
    system : openmm.System
        Masses (0 for virtual sites), virtual sites, constraints, one force per GROMACS energy term, each in the force
        group `forceGroups` gives it, and `nonbondedForce`.
    topology : openmm.app.Topology
        One chain per molecule, residues and atoms by the topology's names, no elements; bonds from bonds,
        connections and constraints.
    positions : list of openmm.Vec3 (Quantity, nm)
        The .gro positions, virtual sites included as the file has them.
    boxVectors : tuple of 3 openmm.Vec3 (Quantity, nm)
        The .gro box, also the System's default box.
    mdp : MdpSettings
        The .mdp settings.
    nonbondedForce : NarumiNonbondedForce
        LJ (SR) and Coulomb (SR) with GROMACS's conventions and the exclusions that grompp generates.
    forceGroups : dict
        {GROMACS energy term ("Bond", "G96Angle", ..., "LJ (SR) + Coulomb (SR)"): force group} of the terms present.

    Raises ValueError naming the file, line, section, function or .mdp key and value of anything it cannot honour.
    """

    def __init__(self, topFile, groFile, mdpFile, includeDirs=None, defines=None):
        from .. import NarumiNonbondedForce
        for path in (topFile, groFile, mdpFile):
            if not os.path.isfile(path):
                raise FileNotFoundError(f"{path}: no such file")
        self.mdp = MdpSettings(mdpFile)
        settings = nonbondedSettings(self.mdp)
        topology = readTopology(topFile, self.mdp.includeDirs() + list(includeDirs or []),
                                {**self.mdp.defines(), **(defines or {})})
        gro = app.GromacsGroFile(os.fspath(groFile))
        self.system, self.topology, self.nonbondedForce, self.forceGroups = buildSystem(
            topology, settings, NarumiNonbondedForce)
        if gro.getNumFrames() < 1 or len(gro.getPositions()) != self.system.getNumParticles():
            raise ValueError(f"{groFile} has {len(gro.getPositions())} atoms, the topology {topFile} "
                             f"{self.system.getNumParticles()}")
        self.positions = gro.getPositions()
        self.boxVectors = gro.getPeriodicBoxVectors()
        if self.boxVectors is None:
            raise ValueError(f"{groFile} has no box")
        self.system.setDefaultPeriodicBoxVectors(*self.boxVectors)
