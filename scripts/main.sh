#!/usr/bin/env bash
# The main job on the embedded defaults: set up, judge every HumanEval reference solution
# in the sandbox, then build (once; it is cached) and validate the default CAPA benchmark.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/capabench tasks verify --source humaneval
exec .venv/bin/capabench benchmark --seed 0 --validate
