# Sourced by setup.sh, demo.sh and test.sh: sets PYTHON to the interpreter openmm-narumi is installed into.
#   - an active virtual environment or conda environment: its python;
#   - else python3, unless it is a system Python that pip may not install into (PEP 668, e.g. Debian 12's): then the
#     virtual environment .venv of this repository, created if needed.
if [ -n "${VIRTUAL_ENV:-}" ] || [ -n "${CONDA_PREFIX:-}" ]; then
    PYTHON=$(command -v python3 || command -v python)
elif python3 -c 'import os, sys, sysconfig; sys.exit(os.path.exists(os.path.join(sysconfig.get_path("stdlib"), "EXTERNALLY-MANAGED")))'; then
    PYTHON=$(command -v python3)
else
    if [ ! -x .venv/bin/python3 ]; then
        echo "setup: python3 is an externally managed system Python: creating the virtual environment .venv" >&2
        python3 -m venv .venv || { echo "setup: python3 -m venv failed (Debian: apt-get install python3-venv)" >&2; exit 1; }
    fi
    PYTHON=$PWD/.venv/bin/python3
fi
export PYTHON
