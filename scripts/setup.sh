#!/usr/bin/env bash
# Installs every dependency (Debian packages, pinned PyPI packages), then builds and installs the
# openmm-narumi Python package into the default python3.  Idempotent: a second run rebuilds incrementally.
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

python3 -m pip install --quiet --disable-pip-version-check -r requirements-build.txt
# No build isolation: the build uses the pinned OpenMM and SWIG just installed, and keeps build/ between runs.
python3 -m pip install --quiet --disable-pip-version-check --no-build-isolation --no-deps .
python3 -c "import openmmnarumi, openmm; print('setup: openmmnarumi', openmmnarumi.__version__, 'with OpenMM', openmm.__version__)"
