#!/usr/bin/env bash
# HCP surface potential on the GPU machine (the device tool), run from a copy of this worktree at
# /work/main/.carry/hcp with carry=[".carry/hcp", ".carry/data", ".whl", ".deps"]:
#   cd .carry/hcp && bash scripts/device_hcp.sh
# Installs the carried OpenMM wheels, builds and installs openmm-narumi (CUDA enabled), runs the HCP C++ tests
# (a skipped cuda.* test is a failure here), the HCP Python tests, dumps the kernels' SASS instruction mix and
# runs benchmarks/hcp_surface_potential.py.  Everything is logged to $OUT/device_hcp.log.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$(cd ../.. && pwd)  # the copy of /work/main that the device tool sent
out=${OUT:-.}
data_dir=${NARUMI_DATA_DIR:-$root/.carry/data}
export PIP_ROOT_USER_ACTION=ignore CMAKE_BUILD_PARALLEL_LEVEL=$(nproc) PYTHONUNBUFFERED=1
# As scripts/device_test.sh: the system compiler links the shared libstdc++ (the image's default g++ wrapper
# put a private copy into the libraries, which crashed next to OpenMM's).
export CC=/usr/bin/gcc CXX=/usr/bin/g++ CUDAHOSTCXX=/usr/bin/g++
{
    status=0
    echo "== machine ($(date -u +%Y-%m-%dT%H:%MZ))"
    nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader
    nvcc --version | tail -n 1
    python3 --version
    echo "== install the carried wheels"
    python3 -m pip install --quiet --no-index --no-deps "$root"/.whl/*.whl || exit 1
    echo "== build and install openmm-narumi"
    rm -rf build/wheel
    time python3 -m pip install --quiet --no-build-isolation --no-deps \
        -Ccmake.define.NARUMI_GTEST_SOURCE_DIR="$root/.deps/googletest" \
        -Ccmake.define.Eigen3_DIR="$root/.deps/eigen/share/eigen3/cmake" \
        -Ccmake.define.NARUMI_CUDA_RESOURCE_USAGE=ON . > /tmp/build.log 2>&1 || { tail -n 60 /tmp/build.log; exit 1; }
    grep -A2 -E "Compiling entry function.*(exactCoulomb|hcpCoulomb)" /tmp/build.log | grep -E "registers|spill" || true
    echo "== ctest (HCP)"
    ctest --test-dir build/wheel --output-on-failure --no-tests=error -R "hcp" | tee /tmp/ctest.log
    [ "${PIPESTATUS[0]}" = 0 ] || status=1
    grep -q "cuda\..*Skipped" /tmp/ctest.log && { echo "CUDA tests were skipped: no GPU seen"; status=1; }
    echo "== pytest (HCP)"
    python3 -m pytest tests/python/test_hcp.py -q -rs --data-dir "$data_dir" || status=1
    echo "== SASS instruction mix of the kernels"
    object=$(find build/wheel -name "CudaSurfacePotential.cu.o" | head -n 1)
    cuobjdump -sass "$object" > "$out/hcp_kernels.sass" 2>&1 || true
    for kernel in exactCoulombKernel hcpCoulombKernelILb1E; do
        echo "-- $kernel"
        awk -v k="$kernel" '/Function :/ {on = index($0, k) > 0} on' "$out/hcp_kernels.sass" |
            grep -oE "^\s+/\*[0-9a-f]+\*/\s+[A-Z0-9_.]+" | awk '{print $2}' | sed 's/\..*//' | sort | uniq -c | sort -rn | head -n 12
    done
    echo "== benchmark"
    python3 benchmarks/hcp_surface_potential.py --data-dir "$data_dir" --markdown "$out/hcp_benchmark.md" \
        --json "$out/hcp_benchmark.json" --repeats 10 --cpu-exact-limit 1e10 || status=1
    echo "== exit status $status"
    exit $status
} 2>&1 | tee "$out/device_hcp.log"
