#!/usr/bin/env bash
# The C++ package as C++ users get it: a CPU-only CMake build of the plugin (no Python module, no tests), `cmake
# --install` into a new prefix, then tests/install's program configured against that prefix with
# find_package(OpenMMNarumi), built and run (NarumiNonbondedForce on the Reference platform against OpenMM's
# NonbondedForce).  The build folder (NARUMI_INSTALL_TEST_BUILD, default build/cxx-package) is kept, so a second run
# rebuilds incrementally; the prefix and the program's build are temporary.  Run by .ci/run; exits non-zero on failure.
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/python_env.sh
build=${NARUMI_INSTALL_TEST_BUILD:-build/cxx-package}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
[ -f "$build/CMakeCache.txt" ] && generator=()  # a kept build folder keeps its generator

echo "== the plugin, CPU-only, in $build"
cmake -S . -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release -DPython3_EXECUTABLE="$PYTHON" \
    -DNARUMI_BUILD_CUDA=OFF -DNARUMI_BUILD_PYTHON=OFF -DNARUMI_BUILD_TESTS=OFF -DNARUMI_INSTALL_CXX_PACKAGE=ON >/dev/null
cmake --build "$build" -j "$(nproc)"
echo "== cmake --install into a new prefix"
cmake --install "$build" --prefix "$work/prefix" >/dev/null
(cd "$work/prefix" && find . -type f | sort)

echo "== a C++ program against the installed package"
# Only the prefix: no OpenMM hints from the environment, OpenMM is found where the package was built.
env -u OPENMM_DIR -u OPENMM_PLUGIN_DIR -u LD_LIBRARY_PATH cmake -S tests/install -B "$work/program" "${generator[@]}" \
    -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
cmake --build "$work/program"
env -u OPENMM_PLUGIN_DIR -u LD_LIBRARY_PATH "$work/program/UseInstalledPlugin"
