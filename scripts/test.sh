#!/usr/bin/env bash
# Sets everything up (scripts/setup.sh), then runs every C++ test (ctest: GoogleTest, CUDA tests skip
# without a GPU) and every Python test (pytest).  Exits non-zero if any test fails.
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh || exit 1
source scripts/python_env.sh

build_dir=build/wheel  # scikit-build-core build folder (pyproject.toml: build-dir)
status=0
echo "=== C++ tests (ctest in $build_dir) ==="
ctest --test-dir "$build_dir" --output-on-failure --no-tests=error -j2 || status=1
echo "=== Python tests (pytest) ==="
"$PYTHON" -m pytest tests/python -v -rs || status=1
exit $status
