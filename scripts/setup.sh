#!/usr/bin/env bash
# Installs every dependency (Debian packages, pinned PyPI packages), then builds and installs the openmm-narumi
# Python package, with its GoogleTest suites, into the active virtual or conda environment, else python3, else a new
# .venv where python3 is an externally managed system Python (scripts/python_env.sh).  Idempotent: a second run
# rebuilds incrementally.
set -euo pipefail
export PIP_ROOT_USER_ACTION=ignore
cd "$(dirname "$0")/.."

debian_packages=(cmake g++ libeigen3-dev libgtest-dev)
missing=()
for package in "${debian_packages[@]}"; do
    dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
    sudo_cmd=""
    [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
    echo "setup: installing Debian packages: ${missing[*]}"
    $sudo_cmd apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${missing[@]}"
fi

source scripts/python_env.sh
echo "setup: installing into $("$PYTHON" -c 'import sys; print(sys.prefix)') ($PYTHON)"
"$PYTHON" -m pip install --quiet --disable-pip-version-check -r requirements-build.txt
# No build isolation: the build uses the pinned OpenMM and SWIG just installed, and keeps build/ between runs.
"$PYTHON" -m pip install --quiet --disable-pip-version-check --no-build-isolation --no-deps \
    -Ccmake.define.NARUMI_BUILD_TESTS=ON .
"$PYTHON" -c "import openmmnarumi, openmm; print('setup: openmmnarumi', openmmnarumi.__version__, 'with OpenMM', openmm.__version__)"
