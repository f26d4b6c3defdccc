#!/usr/bin/env bash
# Occupancy sweep of the pair kernel on a GPU machine (prepared as for scripts/device_test.sh):
#   bash benchmarks/tune_tile_kernel.sh [MIN_BLOCKS ...]
# For each value (default: 1 9 10 12) builds the plugin with -DNARUMI_TILE_MIN_BLOCKS=N (the __launch_bounds__
# minimum blocks per multiprocessor of computeTiles, which caps its registers), prints the registers and spills ptxas
# reports, then benchmarks/profile_nonbonded.py on DHFR and a ~100k-atom water box (stage times, ms per step).
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-.}
values=${*:-1 9 10 12}
for n in $values; do
    echo "== NARUMI_TILE_MIN_BLOCKS=$n"
    OUT=$out NARUMI_CMAKE_ARGS="-Ccmake.define.NARUMI_TILE_MIN_BLOCKS=$n" bash scripts/device_test.sh --tests none > "$out/build_$n.log" 2>&1 ||
        { tail -n 30 "$out/build_$n.log"; exit 1; }
    grep -A2 "computeTilesINS_21NarumiTermAccumulatorELb0" "$out/kernel_resource_usage.txt" | grep -E "registers|spill"
    python3 -m benchmarks.profile_nonbonded --data-dir .carry/data --atoms 100000 --steps 200 2>&1 |
        grep -E "ms/step|computeTiles|findNeighborTiles|total"
done
