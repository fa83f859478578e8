#!/usr/bin/env bash
# The main job's steps for one model (scripts/main.sh runs them for the embedded one; the test
# suite runs them against a local fake server so a broken step fails CI):
#   1. the instrument: the four reference policies over the held-out sessions under no,
#      same-user and shuffled history (seconds of harness time each);
#   2. the model on a slice, then one report with the policies as reference rows beside it;
#   3. the ask-or-guess arm: preflight canary (a model it can't certify is a finding, not a
#      failure), batch over the bundled dataset, grading, sanity check, dashboard.
# Usage: scripts/pipeline.sh MODEL [model options, e.g. --base-url URL --api-key KEY]
# Settings (environment): RUNS (runs), REPORT (report), MODEL_LIMIT (2 sessions),
# MAX_TOKENS (per CAPA turn; a local model's slice is sized to LOCAL_BUDGET_S, 240 s, unless
# either is set), POLICY_LIMIT (all sessions), SWE_COUNT (all instances).
set -euo pipefail
cd "$(dirname "$0")/.."
model=${1:?usage: scripts/pipeline.sh MODEL [model options]}
shift
cb=${CAPABENCH:-.venv/bin/capabench}
runs=${RUNS:-runs}
report=${REPORT:-report}
slug=${model//[^A-Za-z0-9._-]/-}
policy_limit=()
[ -n "${POLICY_LIMIT:-}" ] && policy_limit=(--limit "$POLICY_LIMIT")
swe_count=()
[ -n "${SWE_COUNT:-}" ] && swe_count=(--count "$SWE_COUNT")

dirs=()
for policy in oracle history-reader asker guesser; do
  $cb run --model "baseline/$policy" --conditions none,same-user,shuffled "${policy_limit[@]}" \
    --quiet --run-dir "$runs/main-$policy"
  dirs+=("$runs/main-$policy")
done
# A local model's slice is sized by its measured speed to fit LOCAL_BUDGET_S (once per runs
# folder: a resumed run keeps its settings).
limit=${MODEL_LIMIT:-2}
tokens=${MAX_TOKENS:-512}
if [[ "$model" == local* && -z "${MODEL_LIMIT:-}${MAX_TOKENS:-}" ]]; then
  sizing="$runs/main-$slug.slice"
  mkdir -p "$runs"
  [ -s "$sizing" ] || "${PYTHON:-.venv/bin/python}" -m capabench.models.local_slice \
    --budget-s "${LOCAL_BUDGET_S:-240}" --model "$model" > "$sizing.tmp" && mv "$sizing.tmp" "$sizing"
  read -r limit tokens < "$sizing"
  echo "local slice: $limit session(s) per condition, $tokens tokens per reply ($sizing)"
fi
$cb run --model "$model" "$@" --conditions none,same-user --limit "$limit" --concurrency 1 \
  --max-tokens "$tokens" --quiet --run-dir "$runs/main-$slug"
$cb report "${dirs[@]}" "$runs/main-$slug" --out "$report"

$cb swe batch --model "$model" "$@" --condition both "${swe_count[@]}" --steps 4 --max-tokens 256 \
  --runs "$runs/main-swe"
$cb swe evaluate --runs "$runs/main-swe"
$cb swe sanity --runs "$runs/main-swe"
$cb swe dashboard --runs "$runs/main-swe" --out "$report/swe-dashboard.html"
