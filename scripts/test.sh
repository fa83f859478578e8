#!/usr/bin/env bash
# Set up, lint, and run the test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh test memory embeddings swe claude
.venv/bin/ruff check src tests benchmarks
.venv/bin/ruff format --check src tests benchmarks
exec .venv/bin/python -m pytest "$@"
