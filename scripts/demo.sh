#!/usr/bin/env bash
# Sets everything up (scripts/setup.sh), then runs the demo: a water box with NarumiNonbondedForce on the
# fastest platform that has the plugin's kernel, printing ns/day and the NVE energy drift.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
source scripts/python_env.sh
"$PYTHON" examples/simulate_water_box.py "$@"
