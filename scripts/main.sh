#!/usr/bin/env bash
# The main job on the embedded defaults: set up, then judge every HumanEval reference
# solution in the sandbox and print the summary.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec .venv/bin/capabench tasks verify --source humaneval
