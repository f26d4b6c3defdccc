#!/usr/bin/env bash
# Run on a machine with network access, before using a GPU machine without it: gathers what that machine lacks into
# git-ignored folders, to be copied there with the repository:
#   .whl/   cp312 wheels of the pinned openmm, openmm-cuda-13 and swig (it has Python 3.12, no network), in
#           .whl/extra/ mdtraj, MDAnalysis, dask, distributed and gridDataFormats for the analysis tests and benchmarks (with the
#           dependencies that machine's image lacks), and in .whl/extra/if-missing/ small dependencies that the
#           image has (docs: its package list), installed there only where an import fails
#   .deps/  deps.tar.xz: GoogleTest sources and Eigen headers from this machine's Debian packages, packed (unpacked
#           there by scripts/device_deps.sh)
#   .carry/gromacs-cache/   where gmx_d is installed, the GROMACS reruns of the GROMACS tests (tests/support/gromacs.py,
#           NARUMI_GROMACS_CACHE), so that the GPU machine, which has no GROMACS, runs them against GROMACS too
# Then, on the GPU machine: bash scripts/device_test.sh (copy ../shared/data to .carry/data for the benchmarks).
#   .whl/project/  with --wheel: the openmm-narumi wheel for the GPU machine's Python 3.12, built and tested here by
#           tests/wheel (pip wheel with build isolation, a new venv, a CPU simulation, the command lines; about 15
#           minutes) with the interpreter $NARUMI_WHEEL_PYTHON (default: python3.12 of pyenv)
# Usage: bash scripts/prepare_device_carry.sh [--without-mdanalysis] [--wheel]; --without-mdanalysis leaves MDAnalysis
# and the wheels only it needs out (14 MB).
# MDAnalysis 2.9.0 needs at import numpy, scipy, tqdm, msgpack (through mmtf-python), packaging, filelock,
# mmtf-python and mda-xdrlib, and lists joblib (+ cloudpickle), threadpoolctl, matplotlib and GridDataFormats too.
# scipy (35 MB) and matplotlib (10 MB and its own dependencies) would not fit beside the rest; the image has both.
set -euo pipefail
mdanalysis=1
wheel=0
for argument in "$@"; do
    case "$argument" in
        --without-mdanalysis) mdanalysis=0 ;;
        --wheel) wheel=1 ;;
        *) echo "unknown argument $argument"; exit 2 ;;
    esac
done
cd "$(dirname "$0")/.."
bash scripts/setup.sh >/dev/null  # makes sure the Debian packages copied below are installed
rm -rf .whl .deps
mkdir -p .whl .deps
python3 -m pip download --quiet --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
    --platform manylinux_2_34_x86_64 --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 \
    --platform manylinux2014_x86_64 --platform manylinux_2_12_x86_64 --platform manylinux2010_x86_64 \
    -d .whl openmm==8.6.1 openmm-cuda-13==8.6.1 swig==4.5.0
# Test and benchmark companions (mdtraj and MDAnalysis for the RDF comparison, gridDataFormats to read .dx maps
# back).
extra=(mdtraj==1.11.1.post2 gridDataFormats==1.2.0 mrcfile==1.5.4)
[ $mdanalysis = 1 ] && extra+=(MDAnalysis==2.9.0 mmtf-python==1.1.3 mda-xdrlib==0.2.0 dask==2026.8.0 distributed==2026.8.0)
python3 -m pip download --quiet --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
    --platform manylinux_2_28_x86_64 --platform manylinux_2_24_x86_64 --platform manylinux_2_17_x86_64 \
    --platform manylinux2014_x86_64 -d .whl/extra "${extra[@]}"
if [ $mdanalysis = 1 ]; then
    # The image has these (and scipy, matplotlib); carried in case one is gone, installed there only if missing
    # (pyparsing: for mdtraj; click to zict: for dask and distributed).
    python3 -m pip download --quiet --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
        --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 \
        -d .whl/extra/if-missing tqdm==4.70.1 msgpack==1.2.4 packaging==26.3 filelock==4.2.11 joblib==1.6.0 \
        cloudpickle==3.1.2 threadpoolctl==3.8.0 pyparsing==3.3.3 \
        click==8.4.0 fsspec==2026.9.0 partd==1.4.2 pyyaml==6.0.3 toolz==1.2.0 jinja2==3.1.6 markupsafe==3.0.3 \
        locket==1.0.0 psutil==7.2.2 sortedcontainers==2.4.0 tblib==3.2.2 tornado==6.6.1 urllib3==2.7.0 zict==3.0.0
fi
if [ $wheel = 1 ]; then
    python312=${NARUMI_WHEEL_PYTHON:-$(ls "$HOME"/.pyenv/versions/3.12*/bin/python3.12 2>/dev/null | tail -n 1)}
    [ -x "$python312" ] || { echo "--wheel: no Python 3.12 found (set NARUMI_WHEEL_PYTHON)"; exit 1; }
    NARUMI_WHEEL_PYTHON=$python312 NARUMI_WHEEL_DIR=$PWD/.whl/project python3 -m pytest -q tests/wheel
fi
if command -v gmx_d >/dev/null; then
    # Running the tests with the cache set stores each of their reruns; the data must be where the GPU machine reads it.
    data=${NARUMI_DATA_DIR:-../shared/data}
    NARUMI_GROMACS_CACHE=$PWD/.carry/gromacs-cache python3 -m pytest -q -p no:cacheprovider --data-dir "$data" \
        tests/python/test_gromacs_inputs.py tests/python/test_gromacs_conventions.py || exit 1
fi
staging=$(mktemp -d)
mkdir -p "$staging/eigen/include" "$staging/eigen/share"
cp -r /usr/src/googletest "$staging/googletest"
cp -r /usr/include/eigen3 "$staging/eigen/include/"
cp -r /usr/share/eigen3 "$staging/eigen/share/"
tar -C "$staging" -cJf .deps/deps.tar.xz .
rm -rf "$staging"
du -shc .whl .whl/extra .deps
