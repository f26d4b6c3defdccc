#!/usr/bin/env bash
# Builds the documentation site (user guide, Python and C++ API reference, command lines) into docs/_build/html, with
# every Sphinx and Doxygen warning an error.  Installs the Debian package doxygen and the pinned docs/requirements.txt
# into the environment that scripts/python_env.sh picks, where openmm-narumi must already be installed
# (scripts/setup.sh): the Python reference is read from the installed package's docstrings.
set -euo pipefail
export PIP_ROOT_USER_ACTION=ignore
cd "$(dirname "$0")/.."

if ! command -v doxygen >/dev/null 2>&1; then
    sudo_cmd=""
    [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
    echo "build_docs: installing the Debian package doxygen"
    $sudo_cmd apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq doxygen
fi

source scripts/python_env.sh
if ! "$PYTHON" -c "import openmmnarumi" 2>/dev/null; then
    echo "build_docs: openmmnarumi does not import with $PYTHON; install it first: bash scripts/setup.sh" >&2
    exit 1
fi
"$PYTHON" -m pip install --quiet --disable-pip-version-check -r docs/requirements.txt
# -W: warnings are errors; --keep-going: all of them are reported before the build fails.
"$PYTHON" -m sphinx -W --keep-going -b html docs docs/_build/html
echo "build_docs: open docs/_build/html/index.html"
