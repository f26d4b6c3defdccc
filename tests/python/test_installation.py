"""The installed package: one version everywhere, the --check report, console scripts, a clear error for a mismatched
OpenMM and for a missing optional dependency, and the one-line reasons for plugin libraries that do not load."""
import importlib.metadata
import os
import subprocess
import sys

import openmm
import pytest

import openmmnarumi
from openmmnarumi import _plugins

SCRIPTS = ["narumi-check", "narumi-rdf", "narumi-map", "narumi-hcp"]


def run(arguments, **kwargs):
    return subprocess.run(arguments, capture_output=True, text=True, timeout=300, **kwargs)


def test_one_version_everywhere():
    with open(os.path.join(os.path.dirname(openmmnarumi.__file__), "_version.py")) as handle:
        assert f'__version__ = "{openmmnarumi.__version__}"' in handle.read()
    assert importlib.metadata.version("openmm-narumi") == openmmnarumi.__version__
    for script in SCRIPTS:
        result = run([script, "--version"])
        assert result.returncode == 0 and result.stdout.strip() == f"openmm-narumi {openmmnarumi.__version__}", script
        assert run([script, "--help"]).returncode == 0, script


def test_check_reports_versions_platforms_and_kernels():
    result = run([sys.executable, "-m", "openmmnarumi", "--check"])
    assert result.returncode == 0, result.stdout + result.stderr
    out = result.stdout
    assert f"openmm-narumi {openmmnarumi.__version__}" in out
    assert f"OpenMM {openmm.__version__}" in out and "built against OpenMM 8.6.1: match" in out
    assert "NarumiNonbondedForce kernels, Reference, CPU: loaded" in out
    names = [openmm.Platform.getPlatform(i).getName() for i in range(openmm.Platform.getNumPlatforms())]
    assert f"OpenMM platforms: {', '.join(names)}" in out
    cuda = run([sys.executable, "-m", "openmmnarumi", "--require-cuda"])
    if "CUDA: NarumiNonbondedForce runs on" in out:
        assert cuda.returncode == 0
    else:
        assert cuda.returncode == 1 and "does not run on CUDA here" in cuda.stderr


def test_check_describes_every_gpu_with_the_code_it_runs_and_its_settings():
    """Each GPU nvidia-smi lists (the oracle for names and compute capabilities) has one line in --check's report, with
    the code of this build it runs and the settings NarumiNonbondedForce chooses for it."""
    import shutil
    smi = shutil.which("nvidia-smi")
    listed = run([smi, "--query-gpu=name,compute_cap", "--format=csv,noheader"]) if smi else None
    if listed is None or listed.returncode != 0 or not listed.stdout.strip():
        pytest.skip("no NVIDIA GPU on this machine")
    if not os.path.exists(os.path.join(os.path.dirname(openmmnarumi.__file__), _plugins.LIBRARIES["CUDA"])):
        pytest.skip("this build has no CUDA kernels")
    expected = sorted(tuple(part.strip() for part in line.rsplit(",", 1)) for line in listed.stdout.strip().splitlines())
    out = run([sys.executable, "-m", "openmmnarumi", "--check"]).stdout
    described = [line for line in out.splitlines() if line.startswith("GPU ")]
    assert len(described) == len(expected), out
    found = []
    for line in described:
        name, rest = line.split(": ", 1)[1].split(", compute capability ", 1)
        found.append((name, rest.split(",", 1)[0]))
        assert "kernels: SASS sm_" in line or "kernels: PTX compute_" in line, line
        assert "settings: double-rate class" in line or "settings: float-rate class" in line, line
    assert sorted(found) == expected, out


def test_a_mismatched_openmm_is_a_clear_import_error():
    code = ("import openmm; openmm.__version__ = '8.5.0'\n"
            "try:\n    import openmmnarumi\nexcept ImportError as error:\n    print(error)\n")
    result = run([sys.executable, "-c", code])
    assert result.returncode == 0, result.stderr
    assert "built against OpenMM 8.6.1, but OpenMM 8.5.0 is installed" in result.stdout
    assert "pip install openmm==8.6.1" in result.stdout


def test_a_missing_mdtraj_names_the_extra(tmp_path):
    code = ("import sys; sys.modules['mdtraj'] = None\n"
            "from openmmnarumi.rdf.cli import main\n"
            "sys.exit(main(['traj.dcd', '--top', 'top.pdb', '--sel1', 'name O']))\n")
    result = run([sys.executable, "-c", code], cwd=tmp_path)
    assert result.returncode == 2
    assert "pip install 'openmm-narumi[trajectories]'" in result.stderr


@pytest.mark.parametrize("message, expected", [
    ("Error loading library /x/libOpenMMNarumiCUDA.so: libOpenMMCUDA.so: cannot open shared object file: No such file",
     "OpenMM's CUDA platform is not installed"),
    ("Error loading library /x/plugins/libOpenMMCUDA.so: libcuda.so.1: cannot open shared object file: No such file",
     "no NVIDIA driver"),
    ("Error loading library /x/y.so: undefined symbol: _ZN6OpenMM3FooEv", "undefined symbol")])
def test_load_failures_are_explained_in_one_line(message, expected):
    assert expected in _plugins.explain(message)


SOURCE = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def configure(build, *definitions, path=None):
    """cmake's configure step of this source tree (no tests, no Python module): (exit status, output)."""
    if not os.path.exists(os.path.join(SOURCE, "CMakeLists.txt")):
        pytest.skip("no source tree beside the tests")
    cmake = subprocess.run(["which", "cmake"], capture_output=True, text=True).stdout.strip()
    if not cmake:
        pytest.skip("no cmake")
    env = dict(os.environ, PATH=path or os.environ["PATH"])
    env.pop("CUDACXX", None)
    result = subprocess.run([cmake, "-S", SOURCE, "-B", str(build), "-DNARUMI_BUILD_TESTS=OFF", "-DNARUMI_BUILD_PYTHON=OFF",
                             f"-DPython3_EXECUTABLE={sys.executable}", *definitions], capture_output=True, text=True,
                            env=env, timeout=600)
    return result.returncode, " ".join((result.stdout + result.stderr).split())


def test_build_fails_when_cuda_is_asked_for_without_nvcc(tmp_path):
    status, output = configure(tmp_path / "build", "-DNARUMI_BUILD_CUDA=ON", path="/usr/bin:/bin")
    assert status != 0 and "NARUMI_BUILD_CUDA=ON but no CUDA compiler (nvcc) was found" in output


def test_build_fails_when_nvcc_is_there_but_openmm_cuda_is_not(tmp_path):
    if not (subprocess.run(["which", "nvcc"], capture_output=True).returncode == 0
            or os.path.exists("/usr/local/cuda/bin/nvcc")):
        pytest.skip("no nvcc: the CUDA plugin is not built here")
    # An OpenMM installation without plugins/libOpenMMCUDA.so: OpenMM's headers and library alone.
    openmmDir = os.path.dirname(openmm.version.openmm_library_path)
    fake = tmp_path / "openmm"
    (fake / "lib").mkdir(parents=True)
    os.symlink(os.path.join(openmmDir, "include"), fake / "include")
    os.symlink(openmm.version.openmm_library_path + "/libOpenMM.so", fake / "lib" / "libOpenMM.so")
    path = os.environ["PATH"] + ":/usr/local/cuda/bin"
    status, output = configure(tmp_path / "build", f"-DNARUMI_OPENMM_DIR={fake}", path=path)
    assert status != 0 and "pip install openmm-cuda-13==8.6.1" in output
    assert "NARUMI_BUILD_CUDA=OFF" in output
    status, output = configure(tmp_path / "cpu", f"-DNARUMI_OPENMM_DIR={fake}", "-DNARUMI_BUILD_CUDA=OFF", path=path)
    assert status == 0 and "a CPU-only build" in output
