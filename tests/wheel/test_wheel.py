"""The wheel as users get it: `pip wheel .` with build isolation on a copy of the source tree, installed into a new
virtual environment (OpenMM and the other dependencies from PyPI), then used there with no repository, no
LD_LIBRARY_PATH and no OPENMM_PLUGIN_DIR: import, a short CPU simulation with NarumiNonbondedForce checked against
OpenMM's NonbondedForce, --check, and the command-line tools.  Slow (a full build): run by .ci/run, not by
scripts/test.sh.  NARUMI_WHEEL_PYTHON=python3.12 builds and tests the wheel of another interpreter (the GPU machine
has Python 3.12), NARUMI_WHEEL_DIR=DIR keeps the wheel in DIR (scripts/prepare_device_carry.sh does both)."""
import glob
import os
import shutil
import subprocess
import sys
import tarfile

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BUILD_PYTHON = os.environ.get("NARUMI_WHEEL_PYTHON", sys.executable)
CLEAN_ENV = {key: value for key, value in os.environ.items()
             if key not in ("LD_LIBRARY_PATH", "OPENMM_PLUGIN_DIR", "PYTHONPATH", "VIRTUAL_ENV")}


def run(arguments, cwd, timeout=3600):
    result = subprocess.run(arguments, cwd=cwd, env=CLEAN_ENV, capture_output=True, text=True, timeout=timeout)
    assert result.returncode == 0, f"{' '.join(arguments)}:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
    return result.stdout


@pytest.fixture(scope="module")
def venv(tmp_path_factory):
    """(python, bin folder, wheel) of a new virtual environment with the freshly built wheel installed."""
    work = tmp_path_factory.mktemp("wheel")
    # A copy of what git would check out (tracked and untracked-not-ignored files): no build/ folder, no caches.
    files = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT, capture_output=True,
                           check=True).stdout.decode().split("\0")
    with tarfile.open(work / "src.tar", "w") as archive:
        for name in files:
            if name and os.path.exists(os.path.join(ROOT, name)):
                archive.add(os.path.join(ROOT, name), arcname=name)
    with tarfile.open(work / "src.tar") as archive:
        archive.extractall(work / "src")
    run([BUILD_PYTHON, "-m", "pip", "wheel", "--no-deps", "-w", str(work / "dist"), str(work / "src")], cwd=work)
    wheels = glob.glob(str(work / "dist" / "openmm_narumi-*.whl"))
    assert len(wheels) == 1, wheels
    keep = os.environ.get("NARUMI_WHEEL_DIR")
    if keep:
        os.makedirs(keep, exist_ok=True)
        shutil.copy(wheels[0], keep)
    run([BUILD_PYTHON, "-m", "venv", str(work / "venv")], cwd=work)
    python = str(work / "venv" / "bin" / "python")
    run([python, "-m", "pip", "install", "--quiet", wheels[0]], cwd=work)
    return python, str(work / "venv" / "bin"), wheels[0]


def test_the_wheel_holds_the_cuda_kernels_when_nvcc_was_there(venv):
    python, _, wheel = venv
    import zipfile
    names = zipfile.ZipFile(wheel).namelist()
    for library in ("libOpenMMNarumi.so", "libOpenMMNarumiReference.so", "_narumi", "_rdf", "_build_info.py"):
        assert any(library in name for name in names), library
    if shutil.which("nvcc") or os.path.exists("/usr/local/cuda/bin/nvcc"):
        assert "openmmnarumi/libOpenMMNarumiCUDA.so" in names
    info = run([python, "-c", "import openmmnarumi._build_info as b; print(b.OPENMM_VERSION, b.CUDA)"], cwd="/")
    assert info.split()[0] == "8.6.1"


#: The GPU generations OpenMM 8.6's CUDA 13 platform runs on (Turing to Blackwell), each of which the wheel must
#: carry machine code (SASS) for, and the PTX of the newest, which the driver compiles for GPUs newer than all of them.
EXPECTED_SASS = {"sm_75", "sm_80", "sm_86", "sm_89", "sm_90", "sm_100", "sm_120"}
EXPECTED_PTX = {"sm_120"}   # cuobjdump names compute_120's PTX "<object>.sm_120.ptx"


def cuobjdump():
    """cuobjdump from PATH or from the nvidia-cuda-cuobjdump wheel (requirements-build.txt), or None."""
    import importlib.util
    found = shutil.which("cuobjdump")
    if found:
        return found
    spec = importlib.util.find_spec("nvidia")
    for root in (spec.submodule_search_locations or []) if spec else []:
        candidate = os.path.join(root, "cu13", "bin", "cuobjdump")
        if os.path.exists(candidate):
            return candidate
    return None


def test_the_cuda_libraries_carry_sass_for_every_gpu_generation_and_ptx(venv, tmp_path):
    import re
    import zipfile
    _, _, wheel = venv
    if not (shutil.which("nvcc") or os.path.exists("/usr/local/cuda/bin/nvcc")):
        pytest.skip("built without nvcc: the wheel has no GPU code")
    tool = cuobjdump()
    assert tool, "cuobjdump not found: pip install -r requirements-build.txt (nvidia-cuda-cuobjdump)"
    archive = zipfile.ZipFile(wheel)
    libraries = [name for name in archive.namelist()
                 if re.search(r"openmmnarumi/(libOpenMMNarumiCUDA\.so|_rdf\..*\.so|_potentialmap\..*\.so|_hcp\..*\.so)$", name)]
    assert len(libraries) == 4, libraries
    for name in libraries:
        path = archive.extract(name, tmp_path)
        listing = {}
        for kind, suffix in (("elf", "cubin"), ("ptx", "ptx")):
            out = subprocess.run([tool, f"--list-{kind}", path], capture_output=True, text=True).stdout
            # "ELF file    3: computeTiles.sm_89.cubin": the architectures of each compiled source file.
            for source, architecture in re.findall(rf":\s*(\S+?)\.(sm_\d+)\.{suffix}$", out, re.MULTILINE):
                listing.setdefault((kind, source), set()).add(architecture)
        sources = {source for _, source in listing}
        assert sources, f"{name}: no GPU code"
        for source in sources:
            assert listing.get(("elf", source)) == EXPECTED_SASS, f"{name}, {source}: SASS {listing.get(('elf', source))}"
            assert listing.get(("ptx", source)) == EXPECTED_PTX, f"{name}, {source}: PTX {listing.get(('ptx', source))}"


def test_the_installed_wheel_simulates_on_the_cpu(venv, tmp_path):
    python, _, _ = venv
    script = '''
import numpy as np, openmm, openmm.app as app, openmm.unit as unit
import openmmnarumi
assert "site-packages" in openmmnarumi.__file__, openmmnarumi.__file__
forcefield = app.ForceField("amber14/tip3p.xml")
modeller = app.Modeller(app.Topology(), [])
modeller.addSolvent(forcefield, boxSize=openmm.Vec3(2.2, 2.2, 2.2) * unit.nanometer)
def energy(system, platform):
    context = openmm.Context(system, openmm.VerletIntegrator(0.001), openmm.Platform.getPlatformByName(platform))
    context.setPositions(modeller.positions)
    return context.getState(getEnergy=True).getPotentialEnergy().value_in_unit(unit.kilojoule_per_mole)
system = forcefield.createSystem(modeller.topology, nonbondedMethod=app.CutoffPeriodic, nonbondedCutoff=0.9 * unit.nanometer)
expected = energy(system, "Reference")
assert openmmnarumi.replaceNonbondedForces(system) == 1
actual = energy(system, "CPU")
assert abs(actual - expected) < 1e-5 * abs(expected), (actual, expected)
simulation = app.Simulation(modeller.topology, system, openmm.LangevinMiddleIntegrator(300, 1, 0.002),
                            openmm.Platform.getPlatformByName("CPU"))
simulation.context.setPositions(modeller.positions)
simulation.minimizeEnergy(maxIterations=50)
simulation.step(20)
app.PDBFile.writeFile(modeller.topology, modeller.positions, open("water.pdb", "w"))
print("energy", actual, expected)
'''
    out = run([python, "-c", script], cwd=tmp_path)
    assert out.startswith("energy")


def test_the_console_scripts_work_without_the_repository(venv, tmp_path):
    python, bin, _ = venv
    report = run([os.path.join(bin, "narumi-check")], cwd=tmp_path)
    assert "NarumiNonbondedForce kernels, Reference, CPU: loaded" in report and "match" in report
    version = run([python, "-c", "import openmmnarumi; print(openmmnarumi.__version__)"], cwd=tmp_path).strip()
    for script in ("narumi-rdf", "narumi-map", "narumi-hcp"):
        assert run([os.path.join(bin, script), "--version"], cwd=tmp_path).strip() == f"openmm-narumi {version}"
    run([python, "-c", '''
import openmm, openmm.app as app, openmm.unit as unit
forcefield = app.ForceField("amber14/tip3p.xml")
modeller = app.Modeller(app.Topology(), [])
modeller.addSolvent(forcefield, boxSize=openmm.Vec3(2.0, 2.0, 2.0) * unit.nanometer)
app.PDBFile.writeFile(modeller.topology, modeller.positions, open("water.pdb", "w"))
'''], cwd=tmp_path)
    out = run([os.path.join(bin, "narumi-map"), "water.pdb", "--spacing", "0.25", "--cutoff", "0.9", "--backend", "cpu", "--output",
               "water.dx", "--no-png"], cwd=tmp_path)
    assert "water.dx" in out and os.path.getsize(tmp_path / "water.dx") > 1000
    missing = subprocess.run([os.path.join(bin, "narumi-rdf"), "traj.dcd", "--top", "water.pdb", "--sel1", "name O"],
                             cwd=tmp_path, env=CLEAN_ENV, capture_output=True, text=True)
    assert missing.returncode == 2 and "openmm-narumi[trajectories]" in missing.stderr
