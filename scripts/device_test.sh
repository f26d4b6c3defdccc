#!/usr/bin/env bash
# Build, tests and benchmarks on a GPU machine without network access, from a copy of the repository that holds what
# scripts/prepare_device_carry.sh gathered (.whl, .deps, and the data in .carry/data or $NARUMI_DATA_DIR):
#   bash scripts/device_test.sh [--bench SECTIONS] [--tests PATTERN]
# Installs the wheels of .whl into the default python3, builds and installs the whole project with CUDA (the C++ tests'
# build), installs over it the openmm-narumi wheel built and tested on the CPU machine when one for this Python is
# found in .whl/project (prepare_device_carry.sh --wheel), checks that NarumiNonbondedForce runs on CUDA
# (python -m openmmnarumi --check --require-cuda), runs every C++ test (ctest; a skipped cuda.* test is a failure here:
# the GPU was not seen) and the Python tests against the installed package (the NVE drift tests, CPU work, are left to
# CI), then the benchmarks named in SECTIONS (comma-separated, or "all"):
#   nonbonded     DHFR simulation + benchmarks/nonbonded_speed.py (NarumiNonbondedForce vs NonbondedForce, stage times;
#                 $NONBONDED_ARGS: its options, e.g. "--systems dhfr octahedron --precisions double")
#   rdf           benchmarks/rdf_speed.py
#   potentialmap  benchmarks/potentialmap_speed.py (+ compute-sanitizer on the CUDA suite)
#   hcp           benchmarks/hcp_surface_potential.py
#   msm           benchmarks/msm_speed.py (multilevel summation against the direct sum; $MSM_ARGS: its options, e.g.
#                 "--cases large --orders 5 --accuracies 1e-3"), then compute-sanitizer on the CUDA MSM tests
#   mdanalysis    benchmarks/mdanalysis_rdf_speed.py (openmmnarumi.mdanalysis.InterRDF vs MDAnalysis' InterRDF on a
#                 trajectory of the 100k-atom water box; $MDANALYSIS_BENCH_ARGS: its options, e.g. "--frames 500")
#   profile       benchmarks/profile_nonbonded.py (per-stage times next to whole steps; DHFR, ~100k and ~400k atoms)
#   stages        benchmarks/stage_times.py (NarumiNonbondedForce stage times on DHFR and boxes of $STAGE_WATER_ATOMS)
#   ncu           ncu on DHFR steps of both forces (benchmarks/kernel_steps.py): every kernel's duration, then the
#                 pair and neighbour-search kernels of both in detail ($OUT/ncu_*)
#   context       benchmarks/context_speed.py (every fresh Context's speed from its first step, two timing modes;
#                 $CONTEXT_ARGS: its options, e.g. "--builds 1 --contexts 2")
#   multigpu      benchmarks/multi_gpu_speed.py on the devices $NARUMI_TEST_DEVICES (default 0,1): one GPU against
#                 several for both forces, bit identity, RDF and potential maps ($MULTIGPU_ARGS: its options)
#   martini       benchmarks/martini_speed.py: the Martini bilayers (11k, 198k, 1.19M beads) with Martini's table against
#                 OpenMM's GROMACS-exact route and the other routes ($MARTINI_ARGS: its options, e.g. "--systems 200k")
#   ncu-martini   ncu on the pair kernel of the 198k-bead Martini bilayer with its type table (one launch, after 30):
#                 throughput and stall reasons ($OUT/ncu_martini.txt), and per SASS instruction with its CUDA line the
#                 executions and stall samples ($OUT/ncu_martini_source.csv.gz)
# NCU_FORCES picks the forces of the ncu section (default "openmm narumi").
# NARUMI_TEST_DEVICES (e.g. 0,1 on a machine with two GPUs; default 0,0, the one GPU listed twice) are the devices of
# the multi-device tests, C++ and Python.
# --tests PATTERN limits ctest to tests matching it (-R) and pytest to tests/python/test_PATTERN*.py (each
# alternative of A|B; "none" skips both).  A copy of a worktree under .carry/NAME runs the same way (cd .carry/NAME first): the folders of
# prepare_device_carry.sh are then found two levels up.  Logs, tables, JSON and kernel resource usage go to $OUT.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-.}
sections=""
tests=""
while [ $# -gt 0 ]; do
    case "$1" in
        --bench) sections=${2:-all}; shift 2 ;;
        --tests) tests=$2; shift 2 ;;
        *) echo "unknown argument $1"; exit 2 ;;
    esac
done
[ "$sections" = all ] && sections="nonbonded,rdf,potentialmap,hcp"
carried=.
[ -d .whl ] || carried=../..
data_dir=${NARUMI_DATA_DIR:-$carried/.carry/data}
# GROMACS reruns made where gmx_d is installed (prepare_device_carry.sh): the GROMACS tests read them here.
[ -d "$carried/.carry/gromacs-cache" ] && export NARUMI_GROMACS_CACHE=${NARUMI_GROMACS_CACHE:-$(cd "$carried/.carry/gromacs-cache" && pwd)}
wants() { [[ ",$sections," == *",$1,"* ]]; }
# Nsight Compute for the ncu sections: sets ncu_bin, or says it is missing and fails.
have_ncu() {
    ncu_bin=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null || true)
    [ -n "$ncu_bin" ] || { echo "ncu not found: no kernel profile"; return 1; }
}
export PIP_ROOT_USER_ACTION=ignore CMAKE_BUILD_PARALLEL_LEVEL=$(nproc) PYTHONUNBUFFERED=1
# The image's default CXX=/opt/gcc/bin/g++ (a g++-real wrapper) put a private copy of libstdc++ into our libraries
# (libOpenMMNarumi.so grew to ~750 kB with std::codecvt inside it), and std::ostream crashed in it when used from
# Python next to the system libstdc++ that libOpenMM loads.  The system compiler links the shared libstdc++.
export CC=/usr/bin/gcc CXX=/usr/bin/g++ CUDAHOSTCXX=/usr/bin/g++
{
    status=0
    echo "== machine ($(date -u +%Y-%m-%dT%H:%MZ))"
    nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader
    [ "$(nvidia-smi -L | wc -l)" -gt 1 ] && nvidia-smi topo -m
    nvcc --version | tail -n 1
    cmake --version | head -n 1
    python3 --version
    echo "== install the carried wheels"
    python3 -m pip install --quiet --no-index --no-deps "$carried"/.whl/*.whl || exit 1
    # Optional test/benchmark companions (mdtraj, MDAnalysis, gridDataFormats), installed aside so a failure cannot
    # break numpy; of .whl/extra/if-missing (dependencies the image has) only what does not import.
    if ls "$carried"/.whl/extra/*.whl >/dev/null 2>&1; then
        python3 -m pip install --quiet --no-index --no-deps --target /tmp/extra-site "$carried"/.whl/extra/*.whl &&
            export PYTHONPATH=/tmp/extra-site
        missing=()
        for wheel in "$carried"/.whl/extra/if-missing/*.whl; do
            [ -e "$wheel" ] || continue
            module=$(basename "$wheel"); module=${module%%-*}  # these wheels are named after their module
            python3 -c "import $module" 2>/dev/null || missing+=("$wheel")
        done
        if [ ${#missing[@]} -gt 0 ]; then
            echo "not in the image, installed from .whl/extra/if-missing: ${missing[*]##*/}"
            python3 -m pip install --quiet --no-index --no-deps --target /tmp/extra-site "${missing[@]}"
        fi
        for module in mdtraj MDAnalysis; do
            python3 -c "import $module; print('$module', $module.__version__)" 2>/tmp/extra_import.log ||
                echo "$module does not import ($(tail -n 1 /tmp/extra_import.log)): no $module rows"
        done
    fi
    python3 -c "import openmm; print('OpenMM', openmm.__version__, [openmm.Platform.getPlatform(i).getName() for i in range(openmm.Platform.getNumPlatforms())])"
    source scripts/device_deps.sh "$carried"
    echo "== build and install openmm-narumi (from scratch: a warm machine may hold a build by another compiler)"
    rm -rf build/wheel
    SECONDS=0
    python3 -m pip install -v --no-build-isolation --no-deps \
        -Ccmake.define.NARUMI_GTEST_SOURCE_DIR="$NARUMI_DEPS/googletest" \
        -Ccmake.define.Eigen3_DIR="$NARUMI_DEPS/eigen/share/eigen3/cmake" \
        -Ccmake.define.NARUMI_CUDA_RESOURCE_USAGE=ON -Ccmake.define.NARUMI_BUILD_TESTS=ON ${NARUMI_CMAKE_ARGS:-} . > /tmp/build.log 2>&1 ||
        { tail -n 80 /tmp/build.log; exit 1; }
    echo "built in ${SECONDS} s"
    python_tag=$(python3 -c 'import sys; print(f"cp{sys.version_info[0]}{sys.version_info[1]}")')
    project_wheel=$(ls "$carried"/.whl/project/openmm_narumi-*-"$python_tag"-*.whl 2>/dev/null | tail -n 1)
    if [ -n "$project_wheel" ]; then
        echo "== install the carried wheel $(basename "$project_wheel") over the source build (the Python tests use it)"
        python3 -m pip install --quiet --no-index --no-deps --force-reinstall "$project_wheel" || exit 1
    else
        echo "== no openmm-narumi wheel for $python_tag carried: the Python tests use the source build"
    fi
    echo "== python -m openmmnarumi --check --require-cuda"
    (cd /tmp && python3 -m openmmnarumi --check --require-cuda) || status=1
    # Registers, spills and shared memory of every kernel (read before tuning).
    grep -E "Compiling entry function|Used [0-9]+ registers|bytes spill" /tmp/build.log |
        sed 's/ptxas info    : //' > "$out/kernel_resource_usage.txt"
    if [ "$tests" != none ]; then
        echo "== ctest"
        ctest --test-dir build/wheel --output-on-failure --no-tests=error -j 8 ${tests:+-R "$tests"} | tee /tmp/ctest.log
        [ "${PIPESTATUS[0]}" = 0 ] || status=1
        grep -q "cuda\..*[*][*][*]Skipped" /tmp/ctest.log && { echo "CUDA tests were skipped: no GPU seen"; status=1; }
        echo "== pytest"
        pytest_targets=tests/python
        # A PATTERN with alternatives (A|B) picks the files of each.
        [ -n "$tests" ] && pytest_targets=$(for part in ${tests//|/ }; do ls tests/python/test_${part,,}*.py 2>/dev/null; done | sort -u)
        if [ -n "$pytest_targets" ]; then
            python3 -m pytest $pytest_targets -q -rs -p no:cacheprovider -k "not drift and not fluctuation" \
                --data-dir "$data_dir" || status=1
        fi
        echo "== demo"
        [ -z "$tests" ] && { python3 examples/simulate_water_box.py --steps 200 --equilibration-steps 50 || status=1; }
    fi
    if wants nonbonded; then
        echo "== DHFR simulation with NarumiNonbondedForce"
        python3 examples/simulate_solvated_protein.py --data-dir "$data_dir" --steps 5000 || status=1
        echo "== benchmark: NarumiNonbondedForce vs NonbondedForce"
        python3 -m benchmarks.nonbonded_speed --data-dir "$data_dir" ${NONBONDED_ARGS:-} --markdown "$out/nonbonded_benchmark.md" \
            --json "$out/nonbonded_benchmark.json" || status=1
    fi
    if wants context; then
        echo "== benchmark: every fresh Context's speed"
        python3 -m benchmarks.context_speed --data-dir "$data_dir" ${CONTEXT_ARGS:-} --markdown "$out/context_speed.md" \
            --json "$out/context_speed.json" || status=1
    fi
    if wants multigpu; then
        echo "== benchmark: one GPU against several (devices ${NARUMI_TEST_DEVICES:-0,1})"
        python3 -m benchmarks.multi_gpu_speed --data-dir "$data_dir" --devices "${NARUMI_TEST_DEVICES:-0,1}" ${MULTIGPU_ARGS:-} \
            --markdown "$out/multi_gpu_benchmark.md" --json "$out/multi_gpu_benchmark.json" || status=1
    fi
    if wants martini; then
        echo "== benchmark: Martini bilayers"
        python3 -m benchmarks.martini_speed --data-dir "$data_dir" ${MARTINI_ARGS:-} --markdown "$out/martini_benchmark.md" \
            --json "$out/martini_benchmark.json" || status=1
    fi
    if wants profile; then
        echo "== profile: NarumiNonbondedForce stages next to whole steps"
        python3 -m benchmarks.profile_nonbonded --data-dir "$data_dir" || status=1
    fi
    if wants stages; then
        echo "== stage times (atoms held still)"
        python3 -m benchmarks.stage_times --data-dir "$data_dir" --water-atoms ${STAGE_WATER_ATOMS:-} || status=1
    fi
    if wants ncu && have_ncu; then
        # Both forces' kernels on the same DHFR steps (benchmarks/kernel_steps.py), one process per force (ncu saw
        # only the first Context of a process): first every kernel's duration, summed per name, then the pair and
        # neighbour-search kernels in detail (stall reasons, instruction counts).
        for force in ${NCU_FORCES:-openmm narumi}; do
            echo "== ncu: every kernel's duration, $force (DHFR, 6 steps)"
            timeout 200 "$ncu_bin" --clock-control none --metrics gpu__time_duration.sum --print-summary per-kernel \
                python3 -m benchmarks.kernel_steps --data-dir "$data_dir" --steps 6 --forces $force > "$out/ncu_durations_$force.txt" 2>&1 ||
                echo "ncu durations failed (see $out/ncu_durations_$force.txt)"
            awk '/^  [A-Za-z_].*Invocations/ {name=$0} /gpu__time_duration.sum/ {print $NF " us  " name}' "$out/ncu_durations_$force.txt"
        done
        for force in ${NCU_FORCES:-openmm narumi}; do
            echo "== ncu: $force pair and neighbour-search kernels in detail"
            timeout 200 "$ncu_bin" --clock-control none --launch-skip 4 --launch-count 4 \
                --kernel-name "regex:computeTiles|findNeighborTiles|computeNonbonded|findInteractingBlocks" \
                --section SpeedOfLight --section ComputeWorkloadAnalysis --section InstructionStats --section Occupancy \
                --section LaunchStats --section WarpStateStats --section SchedulerStats --section MemoryWorkloadAnalysis \
                --section SourceCounters --print-details all \
                python3 -m benchmarks.kernel_steps --data-dir "$data_dir" --steps 6 --forces $force > "$out/ncu_$force.txt" 2>&1 ||
                echo "ncu on $force failed (see $out/ncu_$force.txt)"
            grep -E "^  [A-Za-z_].*\(|Duration  |Instructions Executed  |Issue Slots Busy|Achieved Occupancy|Registers Per Thread  |Avg. Active Threads|Stall (No Instruction|Wait|Long Scoreboard|Short Scoreboard) " \
                "$out/ncu_$force.txt" | head -n 60
        done
    fi
    if wants ncu-martini && have_ncu; then
        echo "== ncu: the pair kernel on the 198k-bead Martini bilayer"
        timeout 300 "$ncu_bin" --clock-control none --kernel-name regex:computeTiles --launch-skip 30 --launch-count 1 \
            --section SpeedOfLight --section InstructionStats --section Occupancy --section WarpStateStats \
            --section MemoryWorkloadAnalysis --section SourceCounters --import-source yes -f -o /tmp/ncu_martini \
            python3 -m benchmarks.martini_speed --data-dir "$data_dir" --systems 200k --routes narumi-table --seconds 0.3 \
            --warmup 20 > "$out/ncu_martini_run.txt" 2>&1 || echo "ncu on the Martini bilayer failed (see $out/ncu_martini_run.txt)"
        "$ncu_bin" -i /tmp/ncu_martini.ncu-rep --print-details all > "$out/ncu_martini.txt" 2>&1
        # Per SASS instruction: executions and stall samples by reason, with the CUDA line of each (-lineinfo).
        "$ncu_bin" -i /tmp/ncu_martini.ncu-rep --page source --print-source cuda,sass --csv > /tmp/ncu_martini_source.csv 2>&1
        gzip -c /tmp/ncu_martini_source.csv > "$out/ncu_martini_source.csv.gz"
        grep -E "Duration  |Executed Instructions  |Warp Cycles Per Issued|Achieved Occupancy|Stall (Long|Short) Scoreboard|Stall Wait " \
            "$out/ncu_martini.txt" | head -n 20
        echo "source view: $(zcat "$out/ncu_martini_source.csv.gz" | wc -l) lines in $out/ncu_martini_source.csv.gz"
    fi
    if wants rdf; then
        echo "== benchmark: RDF"
        timeout 300 python3 -m benchmarks.rdf_speed --markdown "$out/rdf_benchmark.md" --json "$out/rdf_benchmark.json" \
            ${RDF_BENCH_ARGS:-} || status=1
    fi
    if wants potentialmap; then
        echo "== benchmark: potential maps"
        python3 -m benchmarks.potentialmap_speed --backend cuda --json "$out/potentialmap_bench.json" || status=1
        python3 -m benchmarks.potentialmap_speed --backend cuda --cases cutoff --periodic --accumulations compensated \
            --json "$out/potentialmap_bench_periodic.json" || status=1
        echo "== compute-sanitizer memcheck (potential maps)"
        timeout 100 compute-sanitizer --tool memcheck --error-exitcode 1 build/wheel/analysis/potentialmap/TestPotentialMapCuda \
            --gtest_filter='*DirectMatches*:*NonPeriodic*:*Dense*:*Triclinic*' --gtest_brief=1 || status=1
    fi
    if wants msm; then
        echo "== benchmark: multilevel summation against the direct sum"
        timeout 400 python3 -m benchmarks.msm_speed --data-dir "$data_dir" ${MSM_ARGS:-} --json "$out/msm_benchmark.json" || status=1
        echo "== compute-sanitizer memcheck (multilevel summation)"
        timeout 120 compute-sanitizer --tool memcheck --error-exitcode 1 build/wheel/analysis/potentialmap/TestPotentialMapCuda \
            --gtest_filter='PotentialMapMsmCuda.*' --gtest_brief=1 || status=1
    fi
    if wants hcp; then
        echo "== benchmark: HCP surface potential"
        python3 -m benchmarks.hcp_surface_potential --data-dir "$data_dir" --markdown "$out/hcp_benchmark.md" \
            --json "$out/hcp_benchmark.json" --repeats 10 --cpu-exact-limit ${HCP_CPU_EXACT_LIMIT:-1e10} || status=1
    fi
    if wants mdanalysis; then
        echo "== benchmark: MDAnalysis trajectory RDF"
        python3 -W ignore::DeprecationWarning -m benchmarks.mdanalysis_rdf_speed --markdown "$out/mdanalysis_benchmark.md" \
            --json "$out/mdanalysis_benchmark.json" ${MDANALYSIS_BENCH_ARGS:-} || status=1
    fi
    echo "== exit status $status"
    exit $status
} 2>&1 | tee "$out/device_test.log"
exit "${PIPESTATUS[0]}"
