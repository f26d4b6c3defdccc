#!/usr/bin/env bash
# Builds TestNarumiAccumulator (Narumi's accumulator on plain data) on a GPU machine that has nvcc and CMake but neither OpenMM nor an
# installed GoogleTest, runs the tests, and writes everything to $OUT/accumulator_test.log (./ without $OUT).
# A quick loop for kernel work (compute-sanitizer, SASS dump); scripts/device_test.sh runs everything.
# GoogleTest comes as sources: run scripts/prepare_device_carry.sh here, then copy ".deps" to the GPU machine.
# Exits non-zero if the build or a test fails.
set -uo pipefail
cd "$(dirname "$0")/../../.."
out=${OUT:-.}
build=/tmp/narumi-cuda-build
source scripts/device_deps.sh "$PWD"
gtest_source=$NARUMI_DEPS/googletest
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)

{
    echo "== machine"
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
    nvcc --version | tail -n 2
    cmake --version | head -n 1
    [ -f "$gtest_source/CMakeLists.txt" ] || { echo "no GoogleTest sources in $gtest_source"; exit 1; }

    echo "== configure (CUDA core only: no OpenMM needed)"
    time cmake -S . -B "$build" "${generator[@]}" -DNARUMI_CUDA_CORE_ONLY=ON -DNARUMI_BUILD_PYTHON=OFF \
        -DNARUMI_CUDA_RESOURCE_USAGE=ON -DNARUMI_GTEST_SOURCE_DIR="$gtest_source" || exit 1
    echo "== build"
    time cmake --build "$build" -j "$(nproc)" --target TestNarumiAccumulator || exit 1

    echo "== ctest"
    ctest --test-dir "$build" -R Accumulator --output-on-failure | tee "$build/ctest.log"
    status=$?
    # On a GPU machine a skipped test means the GPU was not seen: that is a failure here.
    grep -q "Skipped" "$build/ctest.log" && { echo "tests were skipped: no GPU seen"; status=1; }
    echo "== the test binary's own output"
    "$build/platforms/cuda/tests/TestNarumiAccumulator"
    if command -v compute-sanitizer >/dev/null; then
        echo "== compute-sanitizer memcheck"
        timeout 120 compute-sanitizer --tool memcheck --error-exitcode 1 "$build/platforms/cuda/tests/TestNarumiAccumulator" \
            --gtest_brief=1 || status=1
    fi
    command -v cuobjdump >/dev/null && cuobjdump --dump-sass "$build/platforms/cuda/tests/TestNarumiAccumulator" > "$out/narumi_sass.txt"
    echo "== exit status $status"
    exit $status
} 2>&1 | tee "$out/accumulator_test.log"
