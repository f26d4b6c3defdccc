#!/usr/bin/env bash
# Installs every dependency (Debian packages, pinned PyPI packages), then builds and installs the openmm-narumi
# Python package, with its GoogleTest suites, into the active virtual or conda environment, else python3, else a new
# .venv where python3 is an externally managed system Python (scripts/python_env.sh).  Idempotent: a second run
# rebuilds incrementally.  NARUMI_CUDA_ARCHITECTURES (a CMAKE_CUDA_ARCHITECTURES list, e.g. native or 90-real) builds
# the GPU code for those architectures only, instead of every generation the wheel carries (CMakeLists.txt).
set -euo pipefail
export PIP_ROOT_USER_ACTION=ignore
cd "$(dirname "$0")/.."

debian_packages=(cmake g++ libeigen3-dev libgtest-dev)
# GROMACS (gmx, and gmx_d in double precision) is the tests' oracle for GROMACS-convention force fields; where apt
# cannot install it the set-up goes on and those tests report themselves skipped.
optional_debian_packages=(gromacs)
missing=()
for package in "${debian_packages[@]}"; do
    dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
done
missing_optional=()
for package in "${optional_debian_packages[@]}"; do
    dpkg -s "$package" >/dev/null 2>&1 || missing_optional+=("$package")
done
if [ ${#missing[@]} -gt 0 ] || [ ${#missing_optional[@]} -gt 0 ]; then
    sudo_cmd=""
    [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
    # A failed index update is fatal only where a required package is missing.
    $sudo_cmd apt-get update -qq || [ ${#missing[@]} -eq 0 ]
    if [ ${#missing[@]} -gt 0 ]; then
        echo "setup: installing Debian packages: ${missing[*]}"
        DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${missing[@]}"
    fi
    if [ ${#missing_optional[@]} -gt 0 ]; then
        echo "setup: installing optional Debian packages: ${missing_optional[*]}"
        DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${missing_optional[@]}" ||
            echo "setup: WARNING: could not install ${missing_optional[*]}; the GROMACS comparison tests will be skipped"
    fi
fi

source scripts/python_env.sh
echo "setup: installing into $("$PYTHON" -c 'import sys; print(sys.prefix)') ($PYTHON)"
"$PYTHON" -m pip install --quiet --disable-pip-version-check -r requirements-build.txt
cuda_architectures=()
[ -n "${NARUMI_CUDA_ARCHITECTURES:-}" ] &&
    cuda_architectures=("-Ccmake.define.CMAKE_CUDA_ARCHITECTURES=$NARUMI_CUDA_ARCHITECTURES")
# No build isolation: the build uses the pinned OpenMM and SWIG just installed, and keeps build/ between runs.
"$PYTHON" -m pip install --quiet --disable-pip-version-check --no-build-isolation --no-deps \
    -Ccmake.define.NARUMI_BUILD_TESTS=ON "${cuda_architectures[@]}" .
"$PYTHON" -c "import openmmnarumi, openmm; print('setup: openmmnarumi', openmmnarumi.__version__, 'with OpenMM', openmm.__version__)"
