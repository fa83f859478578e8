#!/usr/bin/env bash
# Set up, lint, and run the test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh test memory embeddings swe claude swebench ray annotate
# the base image scripts/docker-engine.sh makes, for the official harness's test
export CAPABENCH_HARNESS_BASE_IMAGE=${CAPABENCH_HARNESS_BASE_IMAGE:-capabench-test/debian-python:bookworm}
.venv/bin/ruff check src tests benchmarks scripts
.venv/bin/ruff format --check src tests benchmarks scripts
exec .venv/bin/python -m pytest "$@"
