#!/usr/bin/env bash
# Run here, before using the GPU machine (the device tool): gathers what that machine lacks into git-ignored
# folders that a device call names in `carry`:
#   .whl/   cp312 wheels of the pinned openmm, openmm-cuda-13 and swig (it has Python 3.12, no network), and in
#           .whl/extra/ mdtraj and gridDataFormats for the analysis tests and benchmarks
#   .deps/  GoogleTest sources and Eigen headers, copied from this machine's Debian packages
# Then: run(command="bash scripts/device_test.sh", carry=[".whl", ".deps", ".carry/data"]) (copy ../shared/data to
# .carry/data for the benchmarks).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh >/dev/null  # makes sure the Debian packages copied below are installed
rm -rf .whl .deps
mkdir -p .whl .deps/eigen/include .deps/eigen/share
python3 -m pip download --quiet --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
    --platform manylinux_2_34_x86_64 --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 \
    --platform manylinux2014_x86_64 --platform manylinux_2_12_x86_64 --platform manylinux2010_x86_64 \
    -d .whl openmm==8.6.1 openmm-cuda-13==8.6.1 swig==4.5.0
# Test and benchmark companions (mdtraj for the RDF comparison, gridDataFormats to read .dx maps back).
python3 -m pip download --quiet --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
    --platform manylinux_2_28_x86_64 --platform manylinux_2_24_x86_64 --platform manylinux_2_17_x86_64 \
    -d .whl/extra mdtraj==1.11.1.post2 gridDataFormats==1.2.0 mrcfile==1.5.4
cp -r /usr/src/googletest .deps/googletest
cp -r /usr/include/eigen3 .deps/eigen/include/
cp -r /usr/share/eigen3 .deps/eigen/share/
du -sh .whl .deps
