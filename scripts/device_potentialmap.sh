#!/usr/bin/env bash
# Potential maps (issue 6) on the GPU machine.  From /work/main (whose ignored .carry/, .whl/ and .deps/ travel):
#   rm -rf .carry/potentialmap && mkdir -p .carry/potentialmap && (cd <worktree> && tar --exclude=./build \
#       --exclude=./.git --exclude=__pycache__ --exclude=.pytest_cache -cf - .) | tar -xf - -C .carry/potentialmap
#   run(command="cd .carry/potentialmap && bash scripts/device_potentialmap.sh", carry=[".carry/potentialmap", ".whl", ".deps"])
# Installs the carried OpenMM wheels, builds and installs this tree with the system compiler (why: scripts/device_test.sh),
# runs the potential-map GoogleTest suites (a skipped CUDA test is a failure here), the Python tests, the benchmark
# (timings and errors against a CuPy float64 reference) and compute-sanitizer.  Logs and JSON go to $OUT.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-.}
carried=$(cd ../.. && pwd)   # the repository root that holds .whl and .deps
export PIP_ROOT_USER_ACTION=ignore CMAKE_BUILD_PARALLEL_LEVEL=$(nproc) PYTHONUNBUFFERED=1
export CC=/usr/bin/gcc CXX=/usr/bin/g++ CUDAHOSTCXX=/usr/bin/g++
status=0
{
    echo "== machine"
    nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader
    nvcc --version | tail -n 1
    python3 --version
    date -u
    echo "== install the carried wheels and build"
    python3 -m pip install --quiet --no-index --no-deps "$carried"/.whl/*.whl || exit 1
    rm -rf build/wheel
    time python3 -m pip install --quiet --no-build-isolation --no-deps \
        -Ccmake.define.NARUMI_GTEST_SOURCE_DIR="$carried/.deps/googletest" \
        -Ccmake.define.Eigen3_DIR="$carried/.deps/eigen/share/eigen3/cmake" \
        -Ccmake.define.NARUMI_CUDA_RESOURCE_USAGE=ON . > /tmp/build.log 2>&1 || { tail -n 60 /tmp/build.log; exit 1; }
    grep -A1 "Compiling entry function.*NarumiPotentialMap" /tmp/build.log | grep -E "entry|registers" | sed 's/ptxas info    : //' > "$out/potentialmap_resource_usage.txt"
    echo "== ctest (potential maps)"
    ctest --test-dir build/wheel -R PotentialMap --output-on-failure -j 4 | tee /tmp/ctest.log
    [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
    grep -q "cuda\..*Skipped" /tmp/ctest.log && { echo "CUDA tests were skipped: no GPU seen"; status=1; }
    echo "== measured errors of the CUDA tests"
    build/wheel/analysis/potentialmap/TestPotentialMapCuda 2>&1 | grep -E "measure|FAILED|PASSED"
    echo "== pytest"
    ls tests/python/test_potentialmap*.py >/dev/null 2>&1 && { python3 -m pytest tests/python/test_potentialmap*.py -q -rs -x || status=1; }
    echo "== benchmark"
    python3 benchmarks/potentialmap_speed.py --backend cuda --json "$out/potentialmap_bench.json" || status=1
    python3 benchmarks/potentialmap_speed.py --backend cuda --cases cutoff --periodic --accumulations compensated \
        --json "$out/potentialmap_bench_periodic.json" || status=1
    if command -v compute-sanitizer >/dev/null; then
        echo "== compute-sanitizer memcheck"
        timeout 100 compute-sanitizer --tool memcheck --error-exitcode 1 build/wheel/analysis/potentialmap/TestPotentialMapCuda \
            --gtest_filter='*DirectMatches*:*NonPeriodic*:*Dense*:*Triclinic*' --gtest_brief=1 || status=1
    fi
    echo "== exit status $status"
    exit $status
} 2>&1 | tee "$out/device_potentialmap.log"
