"""GROMACS as an oracle: single-point reruns with `gmx_d` (double precision) and the nonbonded model that GROMACS
itself sees, read back from its run input file.

`rerun(folder)` copies a GROMACS input folder (one .mdp, .top and .gro, plus the .itp files they include) into a
temporary folder, applies mdp overrides there, runs

    gmx_d grompp -f run.mdp -c <gro> -p <top> -o run.tpr -maxwarn 1
    gmx_d mdrun -s run.tpr -rerun <gro> -nt 1 -deffnm run

and returns a `Rerun`: every energy term of the .edr (`gmx_d energy -dp`, full precision), the forces and positions of
the double-precision .trr, the forces of the nonbonded terms alone, and the `NonbondedModel` parsed from
`gmx_d dump -s run.tpr`. The model comes from GROMACS's own processed topology, so it is independent of any
topology parser of ours: per-atom charges and LJ type indices, the type-pair C6/C12 table, the exclusions that
grompp generated, the virtual sites, and the cut-offs, dielectric constants and modifiers of the inputrec.

A machine without GROMACS (a GPU machine, say) can use reruns made elsewhere: with NARUMI_GROMACS_CACHE set to a
folder, each rerun's result is stored there as a pickle named by the SHA-256 of everything that went into it (every
file of the input folder, the mdp overrides, the files chosen, maxwarn) on a machine with `gmx_d`, and read back on one
without it; `gmx_available()` is then true, and a rerun that is not in the folder fails.

Precision of the model: `gmx dump` prints C6/C12 and virtual-site parameters with 9 significant digits and charges
with 6, which holds every value of the Martini topologies exactly. Positions and box come from the .trr, in double.
"""
import dataclasses
import hashlib
import os
import pickle
import re
import shutil
import subprocess
import tempfile

import numpy as np

GMX = "gmx_d"

# Written on every rerun: the .trr must hold the frame's positions and forces, the .edr every term of the frame.
RERUN_OUTPUT_SETTINGS = {"nstxout": "1", "nstvout": "0", "nstfout": "1", "nstcalcenergy": "1", "nstenergy": "1"}

# The inputrec keys that define the nonbonded model, as `gmx dump` names them.
NONBONDED_SETTING_KEYS = ("cutoff-scheme", "rlist", "coulombtype", "coulomb-modifier", "rcoulomb-switch", "rcoulomb",
                          "epsilon-r", "epsilon-rf", "vdw-type", "vdw-modifier", "rvdw-switch", "rvdw", "DispCorr")


CACHE_VARIABLE = "NARUMI_GROMACS_CACHE"


def _cache_folder():
    return os.environ.get(CACHE_VARIABLE) or None


def gmx_available():
    """Whether reruns can be had: `gmx_d` is installed, or a NARUMI_GROMACS_CACHE folder holds stored ones."""
    folder = _cache_folder()
    return shutil.which(GMX) is not None or bool(folder and os.path.isdir(folder) and os.listdir(folder))


def skip_unless_available():
    """pytest.skip with the reason where `gmx_d` is not installed (scripts/setup.sh installs Debian's gromacs)."""
    if not gmx_available():
        import pytest
        pytest.skip(f"{GMX} (GROMACS in double precision) is not installed; scripts/setup.sh installs the Debian "
                    "package gromacs")


@dataclasses.dataclass
class NonbondedModel:
    """The nonbonded interactions of a run input file as GROMACS sees them (units nm, e, kJ/mol)."""
    charges: np.ndarray            # (n,)
    lj_types: np.ndarray           # (n,) index into c6 and c12
    c6: np.ndarray                 # (ntypes, ntypes), kJ/mol nm^6
    c12: np.ndarray                # (ntypes, ntypes), kJ/mol nm^12
    exclusions: np.ndarray         # (m, 2), i < j, grompp's generated and listed exclusions (self pairs left out)
    is_virtual_site: np.ndarray    # (n,) bool: ptype VSite
    interactions: dict             # GROMACS function type ("BONDS", "CONSTR", "VSITE3", ...) -> (atoms (k, a), params (k, p))
    settings: dict                 # NONBONDED_SETTING_KEYS -> the value as `gmx dump` prints it
    fudge_qq: float

    @property
    def rcoulomb(self):
        return float(self.settings["rcoulomb"])

    @property
    def rvdw(self):
        return float(self.settings["rvdw"])

    @property
    def epsilon_r(self):
        return float(self.settings["epsilon-r"])

    @property
    def epsilon_rf(self):
        """GROMACS stores the mdp's epsilon_rf = 0 (conducting boundary) as inf."""
        return float(self.settings["epsilon-rf"])

    @property
    def virtual_sites(self):
        """The interactions that construct virtual sites: function type -> (atoms (k, 1 + constructing), params)."""
        return {name: value for name, value in self.interactions.items() if name.startswith("VSITE")}


@dataclasses.dataclass
class Rerun:
    """One `gmx_d mdrun -rerun` of one frame."""
    energies: dict                 # every .edr term, e.g. "LJ (SR)", "Coulomb (SR)", "Potential" (kJ/mol)
    forces: np.ndarray             # (n, 3) kJ/mol/nm, all terms; zero on virtual sites (spread onto their constructors)
    nonbonded_forces: np.ndarray   # (n, 3) the forces minus those of a rerun without nonbonded terms
    positions: np.ndarray          # (n, 3) nm, the frame as mdrun wrote it: put into the box, molecules not whole
    box: np.ndarray                # (3, 3) nm, rows are box vectors
    model: NonbondedModel

    @property
    def settings(self):
        return self.model.settings


def _run(arguments, folder, stdin="", environment=None):
    env = dict(os.environ, GMX_MAXBACKUP="-1", OMP_NUM_THREADS="1", **(environment or {}))
    done = subprocess.run([GMX, *arguments], cwd=folder, input=stdin, capture_output=True, text=True, env=env)
    if done.returncode != 0:
        raise RuntimeError(f"{GMX} {' '.join(arguments)} failed in {folder} (exit {done.returncode}):\n"
                           f"{done.stderr[-3000:]}")
    return done.stdout


def _the_file(folder, extension, name):
    if name is not None:
        return name
    found = sorted(f for f in os.listdir(folder) if f.endswith(extension))
    if len(found) != 1:
        raise ValueError(f"{folder} holds {len(found)} {extension} files ({', '.join(found) or 'none'}); "
                         f"name the one to use")
    return found[0]


def _mdp_key(key):
    return key.strip().lower().replace("_", "-")


def write_mdp(source, target, overrides):
    """Copy an mdp file, replacing the keys of `overrides` (GROMACS treats - and _ in keys alike) and adding the new
    ones at the end."""
    wanted = {_mdp_key(k): (k, str(v)) for k, v in overrides.items()}
    kept = []
    with open(source) as lines:
        for line in lines:
            key = line.split(";", 1)[0].split("=", 1)[0]
            if "=" in line.split(";", 1)[0] and _mdp_key(key) in wanted:
                continue
            kept.append(line.rstrip("\n"))
    kept += [f"{key:<24} = {value}" for key, value in wanted.values()]
    with open(target, "w") as out:
        out.write("\n".join(kept) + "\n")


def rerun(folder, mdp_overrides=None, mdp=None, top=None, gro=None, maxwarn=1, workdir=None):
    """Rerun the frame of a GROMACS input folder with `gmx_d` on one thread and return a `Rerun`.

    The folder is not written to: everything runs in a copy (in `workdir`, kept, else a temporary folder, removed).
    `mdp_overrides` ({key: value}) replace or add mdp settings; the output settings of RERUN_OUTPUT_SETTINGS are
    always set. Raises RuntimeError with GROMACS's message where a step fails.  With NARUMI_GROMACS_CACHE the result
    is read from, or stored in, that folder (module docstring)."""
    folder = os.path.abspath(folder)
    mdp, top, gro = _the_file(folder, ".mdp", mdp), _the_file(folder, ".top", top), _the_file(folder, ".gro", gro)
    cache = _cache_folder()
    stored = cache and os.path.join(cache, _rerun_key(folder, mdp_overrides, mdp, top, gro, maxwarn) + ".pickle")
    if stored and os.path.exists(stored):
        with open(stored, "rb") as cached:
            return pickle.load(cached)
    if shutil.which(GMX) is None:
        raise FileNotFoundError(f"{GMX} is not installed (Debian package gromacs)" +
                                (f", and {CACHE_VARIABLE}={cache} holds no rerun of {folder} with these settings" if cache else ""))
    result = _run_rerun(folder, mdp_overrides, mdp, top, gro, maxwarn, workdir)
    if stored:
        os.makedirs(cache, exist_ok=True)
        with open(stored + ".part", "wb") as out:
            pickle.dump(result, out)
        os.replace(stored + ".part", stored)
    return result


def _rerun_key(folder, mdp_overrides, mdp, top, gro, maxwarn):
    """The SHA-256 of everything a rerun depends on: the input folder's files and the arguments."""
    digest = hashlib.sha256(repr((sorted((mdp_overrides or {}).items()), mdp, top, gro, maxwarn)).encode())
    for name in sorted(os.listdir(folder)):
        path = os.path.join(folder, name)
        if os.path.isfile(path):
            digest.update(name.encode() + b"\0")
            with open(path, "rb") as data:
                digest.update(hashlib.sha256(data.read()).digest())
    return digest.hexdigest()


def _run_rerun(folder, mdp_overrides, mdp, top, gro, maxwarn, workdir):
    scratch = tempfile.TemporaryDirectory(prefix="gmx-rerun-") if workdir is None else None
    work = scratch.name if scratch else workdir
    try:
        for name in os.listdir(folder):
            if os.path.isfile(os.path.join(folder, name)):
                shutil.copyfile(os.path.join(folder, name), os.path.join(work, name))
        write_mdp(os.path.join(folder, mdp), os.path.join(work, "run.mdp"),
                  {**(mdp_overrides or {}), **RERUN_OUTPUT_SETTINGS})
        _run(["grompp", "-f", "run.mdp", "-c", gro, "-p", top, "-o", "run.tpr", "-po", "mdout.mdp",
              "-maxwarn", str(maxwarn)], work)
        _run(["mdrun", "-s", "run.tpr", "-rerun", gro, "-nt", "1", "-deffnm", "run"], work)
        # GMX_NO_NONBONDED (a GROMACS environment variable) skips the nonbonded kernels: what is left is bonded.
        _run(["mdrun", "-s", "run.tpr", "-rerun", gro, "-nt", "1", "-deffnm", "bonded"], work,
             environment={"GMX_NO_NONBONDED": "1"})
        energies = read_energies(work, "run.edr")
        bonded = read_energies(work, "bonded.edr")
        if bonded.get("LJ (SR)", 0.0) != 0.0 or bonded.get("Coulomb (SR)", 0.0) != 0.0:
            raise RuntimeError(f"{GMX} ignored GMX_NO_NONBONDED: the bonded-only rerun has nonbonded energies")
        positions, box, forces = read_trr(os.path.join(work, "run.trr"))
        _, _, bonded_forces = read_trr(os.path.join(work, "bonded.trr"))
        model = read_model(_run(["dump", "-s", "run.tpr"], work))
    finally:
        if scratch:
            scratch.cleanup()
    if len(model.charges) != len(positions):
        raise RuntimeError(f"the run input file has {len(model.charges)} atoms, the trajectory {len(positions)}")
    return Rerun(energies, forces, forces - bonded_forces, positions, box, model)


def read_energies(folder, edr):
    """Every term of the first frame of an .edr, at full precision: the names from `gmx dump -e`, the values from
    `gmx energy -dp` with every term selected."""
    names = re.findall(r"^\s+\d+\s+(.+?)\s+\([^()]*\)\s*$", _run(["dump", "-e", edr], folder).split("\n\n")[0], re.M)
    if not names:
        raise RuntimeError(f"no energy terms listed in {edr}")
    selection = "".join(f"{i}\n" for i in range(1, len(names) + 1)) + "0\n"
    _run(["energy", "-f", edr, "-o", "energy.xvg", "-dp"], folder, stdin=selection)
    with open(os.path.join(folder, "energy.xvg")) as xvg:
        text = xvg.read()
    legends = re.findall(r'^@ s\d+ legend "(.*)"$', text, re.M)
    values = next(line.split() for line in text.splitlines() if line.strip() and line[0] not in "#@")
    if legends != names or len(values) != len(names) + 1:
        raise RuntimeError(f"gmx energy wrote {legends} and {len(values) - 1} values for the terms {names}")
    return {name: float(value) for name, value in zip(names, values[1:])}


def read_trr(path):
    """Positions, box and forces of the first frame of a .trr (XDR, big-endian), in the precision it was written in:
    MDAnalysis reads .trr files as float32, which would hide the double-precision digits."""
    data = open(path, "rb").read()
    header = np.frombuffer(data, ">i4", count=3)
    if header[0] != 1993:
        raise ValueError(f"{path} is not a GROMACS .trr file (magic {header[0]})")
    offset = 8 + 4 + (header[2] + 3) // 4 * 4  # magic, string length, then the XDR string "GMX_trn_file"
    (ir, e, box_size, vir, pres, top, sym, x_size, v_size, f_size, natoms, step, nre) = \
        np.frombuffer(data, ">i4", count=13, offset=offset)
    offset += 13 * 4
    real_size = x_size // (3 * natoms) if x_size else box_size // 9
    if real_size not in (4, 8) or not (x_size and f_size and box_size):
        raise ValueError(f"{path}: the first frame lacks positions, forces or box (x {x_size}, f {f_size}, box "
                         f"{box_size} bytes)")
    real = ">f8" if real_size == 8 else ">f4"
    offset += 2 * real_size  # time, lambda
    blocks = {}
    for name, size in (("box", box_size), ("vir", vir), ("pres", pres), ("x", x_size), ("v", v_size), ("f", f_size)):
        blocks[name] = np.frombuffer(data, real, count=size // real_size, offset=offset).astype(float)
        offset += size
    return blocks["x"].reshape(natoms, 3), blocks["box"].reshape(3, 3), blocks["f"].reshape(natoms, 3)


def _indented_block(lines, start):
    """The lines after lines[start] that are indented deeper than it."""
    depth = len(lines[start]) - len(lines[start].lstrip())
    end = start + 1
    while end < len(lines) and (not lines[end].strip() or len(lines[end]) - len(lines[end].lstrip()) > depth):
        end += 1
    return lines[start + 1:end]


def _numbers(text):
    return [float(v) for v in re.findall(r"=\s*([-+0-9.eE]+|inf|nan)", text)]


def read_model(dump):
    """The `NonbondedModel` of the text of `gmx dump -s run.tpr`."""
    lines = dump.splitlines()
    settings = {}
    for line in _indented_block(lines, lines.index("inputrec:")):
        match = re.match(r"^   (\S+)\s+= (.*)$", line)
        if match and match.group(1) in NONBONDED_SETTING_KEYS:
            settings[match.group(1)] = match.group(2).strip()
    missing = set(NONBONDED_SETTING_KEYS) - set(settings)
    if missing:
        raise ValueError(f"the tpr dump has no inputrec settings {sorted(missing)}")
    start = next(i for i, line in enumerate(lines) if line.strip() == "ffparams:")
    # Up to reppow, which follows the last functype: wrapped parameter lines start at column 0, which would end an
    # indented block.
    ffparams = lines[start + 1:next(i for i in range(start, len(lines)) if lines[i].strip().startswith("reppow"))]
    ntypes = int(re.search(r"atnr=(\d+)", "\n".join(ffparams)).group(1))
    # gmx dump wraps some entries over lines and writes a parameterless one (CONNBONDS) with the next on its line.
    functypes = {int(index): (name, _numbers(text)) for index, name, text in
                 re.findall(r"functype\[(\d+)\]=(\w+),(.*?)(?=functype\[|\Z)", "\n".join(ffparams), re.S)}
    pair_types = [functypes[k] for k in range(ntypes * ntypes)]
    if any(name != "LJ_SR" for name, _ in pair_types):
        raise NotImplementedError(f"nonbonded pair types {sorted({n for n, _ in pair_types})}: only LJ_SR is read")
    c6 = np.array([p[0] for _, p in pair_types]).reshape(ntypes, ntypes)
    c12 = np.array([p[1] for _, p in pair_types]).reshape(ntypes, ntypes)
    fudge_qq = float(re.search(r"^\s+fudgeQQ\s+= (\S+)", dump, re.M).group(1))
    reppow = float(re.search(r"^\s+reppow\s+= (\S+)", dump, re.M).group(1))
    if reppow != 12:
        raise NotImplementedError(f"reppow = {reppow}: only the r^-12 repulsion is read")

    moltypes = {}
    for index, line in enumerate(lines):
        match = re.match(r"^   moltype \((\d+)\):$", line)
        if match:
            moltypes[int(match.group(1))] = _read_moltype(_indented_block(lines, index), functypes)
    blocks = re.findall(r"moltype\s+= (\d+) \".*\"\n\s+#molecules\s+= (\d+)", dump)
    charges, types, virtual, exclusions, interactions, offset = [], [], [], [], {}, 0
    for moltype, count in ((int(m), int(c)) for m, c in blocks):
        molecule = moltypes[moltype]
        size = len(molecule["charges"])
        shifts = offset + size * np.arange(count)
        charges += [np.tile(molecule["charges"], count)]
        types += [np.tile(molecule["types"], count)]
        virtual += [np.tile(molecule["virtual"], count)]
        exclusions += [(molecule["exclusions"][None] + shifts[:, None, None]).reshape(-1, 2)]
        for name, (atoms, params) in molecule["interactions"].items():
            interactions.setdefault(name, []).append(
                ((atoms[None] + shifts[:, None, None]).reshape(-1, atoms.shape[1]),
                 np.tile(params, (count, 1)) if params.ndim == 2 else np.tile(params, count)))
        offset += size * count
    natoms = int(re.search(r"^   #atoms\s+= (\d+)", dump, re.M).group(1))
    if offset != natoms:
        raise ValueError(f"the molecule blocks hold {offset} atoms, the topology {natoms}")
    return NonbondedModel(
        charges=np.concatenate(charges), lj_types=np.concatenate(types), c6=c6, c12=c12,
        exclusions=np.concatenate(exclusions), is_virtual_site=np.concatenate(virtual),
        interactions={name: (np.concatenate([a for a, _ in parts]), np.concatenate([p for _, p in parts]))
                      for name, parts in interactions.items()},
        settings=settings, fudge_qq=fudge_qq)


def _read_moltype(block, functypes):
    text = "\n".join(block)
    atoms = re.findall(r"atom\[\s*\d+\]=\{type=\s*(\d+),.*?ptype=\s*(\w+),.*? q=\s*([-+0-9.eE]+),", text)
    exclusions = []
    for i, members in re.findall(r"excls\[(\d+)\]\[num=\d+\]=\{([^}]*)\}", text):
        exclusions += [(int(i), int(j)) for j in re.findall(r"\d+", members) if int(i) < int(j)]
    counted = sum(int(n) for n in re.findall(r"excls\[\d+\]\[num=(\d+)\]", text))
    listed = len(re.findall(r"\d+", " ".join(re.findall(r"excls\[\d+\]\[num=\d+\]=\{([^}]*)\}", text))))
    if counted != listed:
        raise ValueError(f"read {listed} of the {counted} exclusion entries of a molecule type")
    interactions = {}
    for line in block:
        match = re.match(r"^\s+\d+ type=(\d+) \((\w+)\)\s+([\d\s]+)$", line)
        if match:
            name, params = functypes[int(match.group(1))]
            interactions.setdefault(name, []).append(([int(a) for a in match.group(3).split()], params))
    return {"charges": np.array([float(q) for _, _, q in atoms]), "types": np.array([int(t) for t, _, _ in atoms]),
            "virtual": np.array([p == "VSite" for _, p, _ in atoms]),
            "exclusions": np.array(exclusions, dtype=int).reshape(-1, 2),
            "interactions": {name: (np.array([a for a, _ in entries]), _rows([p for _, p in entries]))
                             for name, entries in interactions.items()}}


def _rows(parameters):
    """Parameter rows as a 2-D array, or a 1-D array of lists where their lengths differ (VSITEN: n and a weight)."""
    if len({len(p) for p in parameters}) == 1:
        return np.array(parameters)
    rows = np.empty(len(parameters), dtype=object)
    rows[:] = parameters
    return rows
