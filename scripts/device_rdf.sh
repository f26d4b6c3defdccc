#!/usr/bin/env bash
# RDF engine on the GPU machine (the device tool), the approach of scripts/device_test.sh: install the carried
# OpenMM wheels, build and install openmm-narumi with the system compiler (see device_test.sh for why), run the RDF
# GoogleTest suites (CUDA tests must not skip there) and the RDF Python tests, dump the kernels' SASS, then the
# benchmark (benchmarks/rdf_speed.py).  Carried: .whl (OpenMM wheels), .deps (GoogleTest, Eigen) and, optionally,
# .carry/rdf-whl (an mdtraj cp312 wheel for the side-by-side comparison).  Logs and tables go to $OUT.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-.}
root=${NARUMI_CARRY_ROOT:-../..}   # where .whl and .deps were carried (the repository root of /work/main)
export PIP_ROOT_USER_ACTION=ignore CMAKE_BUILD_PARALLEL_LEVEL=$(nproc) PYTHONUNBUFFERED=1
export CC=/usr/bin/gcc CXX=/usr/bin/g++ CUDAHOSTCXX=/usr/bin/g++
status=0
{
    echo "== machine $(date -u +%F)"
    nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader
    nvcc --version | tail -n 1
    echo "== install the carried wheels"
    python3 -m pip install --quiet --no-index --no-deps "$root"/.whl/*.whl || exit 1
    if ls "$root"/.carry/rdf-whl/*.whl >/dev/null 2>&1; then
        python3 -m pip install --quiet --no-index --no-deps --target /tmp/rdf-site "$root"/.carry/rdf-whl/*.whl &&
            export PYTHONPATH=/tmp/rdf-site
        python3 -c "import mdtraj; print('mdtraj', mdtraj.__version__)" || echo "mdtraj does not import here"
    fi
    echo "== build and install openmm-narumi"
    rm -rf build/wheel
    time python3 -m pip install --quiet --no-build-isolation --no-deps \
        -Ccmake.define.NARUMI_GTEST_SOURCE_DIR="$PWD/$root/.deps/googletest" \
        -Ccmake.define.Eigen3_DIR="$PWD/$root/.deps/eigen/share/eigen3/cmake" . || exit 1
    echo "== ctest (RDF)"
    timeout 100 ctest --test-dir build/wheel --output-on-failure --no-tests=error -R "Rdf|CpuOracle" -j 4 | tee /tmp/ctest.log
    [ "${PIPESTATUS[0]}" = 0 ] || status=1
    grep -q "cuda\..*Skipped" /tmp/ctest.log && { echo "CUDA tests were skipped: no GPU seen"; status=1; }
    echo "== SASS of the RDF kernels"
    cuobjdump -sass build/wheel/analysis/rdf/CMakeFiles/NarumiRdf.dir/cuda/RdfKernels.cu.o > "$out/rdf_kernels.sass" 2>&1 || true
    ls -la "$out/rdf_kernels.sass"
    echo "== pytest (RDF)"
    timeout 90 python3 -m pytest tests/python/test_rdf*.py -q -rs -p no:cacheprovider
    pytest_status=$?
    [ $pytest_status = 0 ] || [ $pytest_status = 5 ] || status=1
    echo "== benchmark"
    timeout ${RDF_BENCH_TIMEOUT:-200} python3 benchmarks/rdf_speed.py --markdown "$out/rdf_benchmark.md" --json "$out/rdf_benchmark.json" \
        ${RDF_BENCH_ARGS:-} || status=1
    echo "== exit status $status"
    exit $status
} 2>&1 | tee "$out/device_rdf.log"
exit ${PIPESTATUS[0]}
