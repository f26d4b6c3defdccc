#!/usr/bin/env bash
# The accuracy study (issue 4) on a GPU machine prepared as for scripts/device_test.sh (from a copy of this worktree
# under .carry/accuracy, so that the wheels and data are found two levels up):
#   cd .carry/accuracy && bash studies/accuracy/device_accuracy.sh [--phase all|nve] [--total-s 560]
# Builds and installs the project with scripts/device_test.sh --tests none (skipped when the installed CUDA plugin is
# the one this script built last on a still-warm machine), then
#   --phase all : speed.py (GPU alone), then the NVE batch in the background while force_accuracy.py --emulate,
#                 determinism.py and the pytest accuracy tests run beside it
#   --phase nve : only the NVE batch
# NVE runs stop cleanly at the --total-s deadline (measured from this script's start); a folder nve_prev/ in the
# repository root (a previous call's $OUT/nve) makes every run resume from its state and append to its CSV.
# Everything goes to $OUT.
set -uo pipefail
cd "$(dirname "$0")/../.."
phase=all
total_s=560
while [ $# -gt 0 ]; do
    case "$1" in
        --phase) phase=$2; shift 2 ;;
        --total-s) total_s=$2; shift 2 ;;
        *) echo "unknown argument $1"; exit 2 ;;
    esac
done
out=${OUT:-/tmp/accuracy_out}
mkdir -p "$out/nve"
carried=.
[ -d .whl ] || carried=../..
data=${NARUMI_DATA_DIR:-$carried/.carry/data}
export PYTHONUNBUFFERED=1
deadline=$((SECONDS + total_s))
{
echo "== start $(date -u +%Y-%m-%dT%H:%MZ), phase $phase, deadline in ${total_s} s"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
lib=$(python3 -c "import openmmnarumi, os; print(os.path.join(os.path.dirname(openmmnarumi.__file__), 'libOpenMMNarumiCUDA.so'))" 2>/dev/null)
if [ -n "$lib" ] && [ -f /tmp/accuracy_build.md5 ] && [ "$(md5sum < "$lib")" = "$(cat /tmp/accuracy_build.md5)" ]; then
    echo "== installed plugin is this script's last build: not rebuilt"
else
    echo "== build and install (scripts/device_test.sh --tests none)"
    OUT=$out bash scripts/device_test.sh --tests none > "$out/build.log" 2>&1 || { tail -n 40 "$out/build.log"; exit 1; }
    tail -n 3 "$out/build.log"
    lib=$(python3 -c "import openmmnarumi, os; print(os.path.join(os.path.dirname(openmmnarumi.__file__), 'libOpenMMNarumiCUDA.so'))")
    md5sum < "$lib" > /tmp/accuracy_build.md5
fi
python3 -c "import openmmnarumi, openmm; print('plugin failures:', openmmnarumi.pluginLoadFailures); print([openmm.Platform.getPlatform(i).getName() for i in range(openmm.Platform.getNumPlatforms())])"
echo "== $SECONDS s elapsed"
if [ "$phase" = all ]; then
    echo "== speed"
    python3 -m studies.accuracy.speed --data-dir "$data" --json "$out/speed.json" --markdown "$out/speed.md" 2>&1 | tee "$out/speed.log"
    echo "== $SECONDS s elapsed"
fi
echo "== NVE batch"
runs=${NVE_RUNS:-"narumi:mixed:2:1 narumi:mixed:2:2 narumi:mixed:2:3 openmm:mixed:2:1 openmm:mixed:2:2 openmm:mixed:2:3
      narumi-single:mixed:2:1 openmm:single:2:1 openmm:double:2:1 narumi:mixed:1:1 openmm:mixed:1:1"}
wall=$((deadline - SECONDS - 45))
pids=""
for r in $runs; do
    IFS=: read -r force precision dt seed <<< "$r"
    name=${force}_${precision}_${dt}fs_s${seed}
    resume=""
    if [ -f "nve_prev/$name.state.xml" ]; then
        cp "nve_prev/$name.csv" "$out/nve/$name.csv"
        resume="--resume nve_prev/$name.state.xml"
    fi
    python3 -m studies.accuracy.nve --data-dir "$data" --force "$force" --precision "$precision" --dt-fs "$dt" \
        --seed "$seed" --length-ns ${NVE_LENGTH_NS:-1} --max-wall-s "$wall" $resume --out "$out/nve/$name" \
        > "$out/nve/$name.log" 2>&1 &
    pids="$pids $!"
done
echo "started $(echo $pids | wc -w) runs, wall limit $wall s each"
if [ "$phase" = nve ]; then
    echo "== pytest accuracy"
    timeout 120 python3 -m pytest tests/python/test_accuracy.py -q -rs -p no:cacheprovider --data-dir "$data" > "$out/pytest.log" 2>&1
    echo "pytest exit $? at $SECONDS s"; tail -n 8 "$out/pytest.log"
fi
if [ "$phase" = all ]; then
    echo "== force accuracy (beside the NVE runs)"
    OPENMM_CPU_THREADS=8 timeout $((deadline - SECONDS - 60)) python3 -m studies.accuracy.force_accuracy --data-dir "$data" --emulate \
        --json "$out/force_accuracy.json" --markdown "$out/force_accuracy.md" > "$out/force_accuracy.log" 2>&1
    echo "force_accuracy exit $? at $SECONDS s"
    echo "== determinism"
    timeout $((deadline - SECONDS - 50)) python3 -m studies.accuracy.determinism --data-dir "$data" --steps 1000 --json "$out/determinism.json" \
        --markdown "$out/determinism.md" > "$out/determinism.log" 2>&1
    echo "determinism exit $? at $SECONDS s"
    echo "== pytest accuracy"
    timeout $((deadline - SECONDS - 40)) python3 -m pytest tests/python/test_accuracy.py -q -rs -p no:cacheprovider --data-dir "$data" > "$out/pytest.log" 2>&1
    echo "pytest exit $? at $SECONDS s"; tail -n 5 "$out/pytest.log"
fi
for p in $pids; do wait "$p"; done
echo "== NVE done at $SECONDS s"
for f in "$out"/nve/*.log; do tail -n 1 "$f"; done
python3 -m studies.accuracy.analyze_nve "$out/nve" --markdown "$out/nve_drift.md" --json "$out/nve_drift.json" \
    --png "$out/nve_drift.png"
nvidia-smi --query-gpu=name,utilization.gpu,memory.used --format=csv,noheader
echo "== end at $SECONDS s"
} 2>&1 | tee "$out/device_accuracy.log"
# Keep the output to a few files: pack everything but the log, the plot and the drift table into one archive
# (the NVE states, a few MB each, in a second one for --resume).
cd "$out" && tar -czf results.tgz --exclude='*.state.xml' --exclude=results.tgz --exclude=states.tgz * &&
    tar -czf states.tgz nve/*.state.xml &&
    find . -mindepth 1 ! -name results.tgz ! -name states.tgz ! -name device_accuracy.log ! -name nve_drift.png \
        ! -name nve_drift.md -delete
