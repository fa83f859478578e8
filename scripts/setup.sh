#!/usr/bin/env bash
# Prepares a fresh machine: system packages (bubblewrap for the judge's sandbox) and a
# virtual environment in .venv with capabench installed. Extras: pass them as arguments,
# e.g. `scripts/setup.sh test`.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v bwrap >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap >/dev/null
  elif command -v sudo >/dev/null 2>&1; then
    sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap >/dev/null
  else
    echo "warning: bubblewrap is not installed and can't be installed here; the judge runs unsandboxed" >&2
  fi
fi

# The test suite opens the HTML report in headless Chromium.
if [[ " $* " == *" test "* ]] && ! command -v chromium >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null || echo "warning: chromium not installed; the HTML check will be skipped" >&2
fi

# The Codex CLI arm's end-to-end test drives the real CLI (npm), pinned, in capabench's tools
# folder, where the arm looks for it after $CAPABENCH_CODEX and PATH (swe/agents/codex_cli.py).
tools="${CAPABENCH_TOOLS:-$HOME/.cache/capabench/tools}"
if [[ " $* " == *" test "* ]] && command -v npm >/dev/null 2>&1 && [ ! -x "$tools/codex/node_modules/.bin/codex" ]; then
  npm install --silent --no-audit --no-fund --prefix "$tools/codex" @openai/codex@0.171.0 >/dev/null \
    || echo "warning: the Codex CLI could not be installed; its end-to-end test will be skipped" >&2
fi

# The official SWE-bench harness's test needs a Docker engine and a base image (no registry).
if [[ " $* " == *" test "* && " $* " == *" swebench "* ]]; then
  bash scripts/docker-engine.sh
fi

PYTHON=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
# The embeddings extra needs torch; pinned first, or pip pulls a 3 GB CUDA build.
if [[ " $* " == *" embeddings "* ]]; then
  .venv/bin/python -m pip install -q --disable-pip-version-check "torch==2.13.0"
fi
extras=$(IFS=,; echo "$*")
spec="."
[ -n "$extras" ] && spec=".[${extras}]"
.venv/bin/python -m pip install -q --disable-pip-version-check -e "$spec"
