#!/usr/bin/env bash
# A variant of libOpenMMNarumiCUDA.so for an A/B on the GPU machine, built on this machine from a configured build
# folder without changing it:
#   bash scripts/variant_library.sh BUILD_DIR KERNEL_FILE VARIANT_SOURCE OUTPUT.so.xz [NVCC_OPTION ...]
# recompiles KERNEL_FILE's object (e.g. platforms/cuda/src/kernels/findNeighbors.cu, or a unit of the pair kernel
# that the build made, platforms/cuda/computeTilesGroup0_false.cu) from VARIANT_SOURCE with the
# build's own nvcc command, for sm_90 only (no PTX) and with the extra options (e.g. -DNARUMI_TILE_MIN_BLOCKS=6),
# prints ptxas' registers and stack per kernel, relinks the library with the build's other objects and packs it with xz.
# BUILD_DIR: a ninja build of this tree, e.g. the cp312 wheel's (docs/development.md, "Kernel experiments").
# benchmarks/library_ab.py then runs such libraries one after another under the installed package.
set -euo pipefail
[ $# -ge 4 ] || { sed -n 2,9p "$0"; exit 2; }
build=$(cd "$1" && pwd); kernel=$2; source=$(realpath "$3"); output=$(realpath -m "$4"); shift 4
[ -f "$build/build.ninja" ] || { echo "no ninja build in $build"; exit 2; }
[ -f "$source" ] || { echo "no variant source $source"; exit 2; }
library=platforms/cuda/libOpenMMNarumiCUDA.so
object=platforms/cuda/CMakeFiles/OpenMMNarumiCUDA.dir/${kernel#platforms/cuda/}.o
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$build"
compile=$(ninja -t commands "$library" | grep -F nvcc | grep -E -- "-o $object( |$)") ||
    { echo "$kernel is not compiled into $library by this build"; exit 2; }
link=$(ninja -t commands "$library" | tail -n 1)
[[ "$link" == *" $object "* ]] || { echo "the link command does not name $object"; exit 1; }
# The variant is compiled where the original lives, so that its relative includes resolve alike.
original=$(echo "$compile" | grep -o -- "-c [^ ]*" | cut -c4-)
variant="$(dirname "$original")/.variant_$$_$(basename "$original")"
cp "$source" "$variant"
trap 'rm -rf "$work" "$variant"' EXIT
compile=${compile//"-c $original"/"-c $variant"}
compile=${compile//"-o $object"/"-o $work/variant.o"}
compile=$(echo "$compile" | sed -E 's/-MD -MT [^ ]+ -MF [^ ]+//; s/--generate-code=arch=compute_([0-9]+),code=\[compute_[0-9]+,sm_([0-9]+)\]/--generate-code=arch=compute_\1,code=sm_\2/')
eval "$compile --resource-usage $*" 2> "$work/ptxas.txt"
python3 - "$work/ptxas.txt" <<'EOF'
import re, subprocess, sys
found = re.findall(r"Function properties for (\S+)\n.*?(\d+) bytes stack frame.*?Used (\d+) registers", open(sys.argv[1]).read(), re.S)
names = subprocess.run(["c++filt"], input="\n".join(f[0] for f in found), capture_output=True, text=True).stdout.split("\n")
for (_, stack, registers), name in zip(found, names):
    print(f"{registers:>4} registers {stack:>5} bytes stack  {name.replace('OpenMMNarumi::', '').replace('(anonymous namespace)::', '')}")
EOF
link=${link//" $object "/" $work/variant.o "}
link=${link//"-o $library"/"-o $work/libOpenMMNarumiCUDA.so"}
eval "$link"
xz -T0 -6 -c "$work/libOpenMMNarumiCUDA.so" > "$output"
echo "$output: $(stat -c %s "$output") bytes"
