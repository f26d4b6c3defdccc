#!/usr/bin/env bash
# Run on the GPU machine through the device tool, carrying .whl and .deps (scripts/prepare_device_carry.sh):
# installs the carried OpenMM wheels into the default python3, builds and installs the whole project with the
# CUDA platform enabled (CMake 4 there), then runs every C++ test (ctest, GPU tests included) and the Python
# tests (the NVE drift tests, pure CPU work, are left to CI).  The log goes to $OUT/device_test.log.
# With --bench it also runs the DHFR simulation script and the speed benchmark; they read the PDB files from
# $NARUMI_DATA_DIR (default: .carry/data, where a device call carries a copy of ../shared/data).
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-.}
bench=0
[ "${1:-}" = "--bench" ] && bench=1
data_dir=${NARUMI_DATA_DIR:-.carry/data}
export PIP_ROOT_USER_ACTION=ignore CMAKE_BUILD_PARALLEL_LEVEL=$(nproc)
# The image's default CXX=/opt/gcc/bin/g++ (a g++-real wrapper) put a private copy of libstdc++ into our libraries
# (libOpenMMNarumi.so grew to ~750 kB with std::codecvt inside it), and std::ostream crashed in it when used from
# Python next to the system libstdc++ that libOpenMM loads.  The system compiler links the shared libstdc++.
export CC=/usr/bin/gcc CXX=/usr/bin/g++ CUDAHOSTCXX=/usr/bin/g++
{
    echo "== machine"
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
    nvcc --version | tail -n 1
    cmake --version | head -n 1
    "$CXX" --version | head -n 1
    python3 --version
    echo "== install the carried wheels"
    python3 -m pip install --quiet --no-index --no-deps .whl/*.whl || exit 1
    python3 -c "import openmm; print('OpenMM', openmm.__version__, [openmm.Platform.getPlatform(i).getName() for i in range(openmm.Platform.getNumPlatforms())])"
    echo "== build and install openmm-narumi (from scratch: a warm machine may hold a build by another compiler)"
    rm -rf build/wheel
    time python3 -m pip install --quiet --no-build-isolation --no-deps \
        -Ccmake.define.NARUMI_GTEST_SOURCE_DIR="$PWD/.deps/googletest" \
        -Ccmake.define.Eigen3_DIR="$PWD/.deps/eigen/share/eigen3/cmake" . || exit 1
    echo "== ctest"
    ctest --test-dir build/wheel --output-on-failure --no-tests=error -j 8 | tee /tmp/ctest.log
    status=${PIPESTATUS[0]}
    # On a GPU machine a skipped CUDA test means the GPU was not seen: that is a failure here.
    grep -q "cuda\..*Skipped" /tmp/ctest.log && { echo "CUDA tests were skipped: no GPU seen"; status=1; }
    echo "== pytest"
    python3 -m pytest tests/python -q -rs -k "not drift and not fluctuation" || status=1
    echo "== demo"
    python3 examples/simulate_water_box.py --steps 200 --equilibration-steps 50 || status=1
    if [ $bench = 1 ]; then
        echo "== DHFR simulation with NarumiNonbondedForce"
        python3 examples/simulate_solvated_protein.py --data-dir "$data_dir" --steps 5000 || status=1
        echo "== speed benchmark"
        python3 benchmarks/nonbonded_speed.py --data-dir "$data_dir" --markdown "$out/benchmark.md" || status=1
    fi
    echo "== exit status $status"
    exit $status
} 2>&1 | tee "$out/device_test.log"
