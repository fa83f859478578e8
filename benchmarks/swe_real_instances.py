"""The real-instance check, replayed from local mirrors (no GitHub needed): for each SWE-bench
instance, `swe prepare` (repository and environment from swebench's specs), then the
controls of `swe evaluate --controls` (gold patch, empty patch) and, with --oracle, an
oracle agent (built-in agent, scripted: asks once, applies the gold patch, submits) over
both conditions, graded. One line per instance; timings are wall seconds on this machine.

    .venv/bin/python benchmarks/swe_real_instances.py --dataset verified.jsonl \\
        --summaries underspecified.csv --repos MIRRORS [--runs DIR] [--oracle]

MIRRORS holds `<owner>__<name>` clones or mirrors (e.g. links to `git clone --mirror`s).
Environments are cached (CAPABENCH_CACHE); a rerun reuses them and the stored controls
(--force grades again)."""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from capabench.models.scripted import ScriptedModel
from capabench.swe.agents.builtin import BuiltinAgent
from capabench.swe.batch import batch
from capabench.swe.data.datasets import load_instances
from capabench.swe.data.issue_texts import record_issue_texts
from capabench.swe.evaluate import evaluate, grade_controls
from capabench.swe.grading.prepare import prepare
from capabench.swe.store import SweStore
from capabench.swe.swe_records import Instance

DELIMITER = "CAPABENCH_GOLD_PATCH_EOF"


def oracle(instances: list[Instance]):
    """Replies of an agent that asks once, applies the instance's gold patch, submits."""

    def reply(messages) -> str:
        task = messages[1].content
        instance = next(
            i for i in instances if i.problem_statement in task or i.original_issue in task
        )
        done = sum(m.role == "assistant" for m in messages)
        if done == 0:
            return "Before I change anything:\n```ask_user\nWhich behaviour do you expect?\n```"
        if done == 1:
            patch = instance.patch if instance.patch.endswith("\n") else instance.patch + "\n"
            return f"```bash\ngit apply - <<'{DELIMITER}'\n{patch}{DELIMITER}\n```"
        return "Done.\n```submit\n```"

    return reply


def word(grade) -> str:
    if grade is None:
        return "-"
    if grade.status == "scored":
        return "resolved" if grade.resolved else "unresolved"
    return grade.status


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", type=Path, required=True)
    parser.add_argument("--summaries", type=Path)
    parser.add_argument("--repos", type=Path, required=True)
    parser.add_argument("--runs", type=Path, help="run store (default: a temporary one)")
    parser.add_argument("--instance", action="append", help="only these (repeat)")
    parser.add_argument("--oracle", action="store_true", help="also play and grade the oracle")
    parser.add_argument("--force", action="store_true", help="grade the controls again")
    args = parser.parse_args()
    instances = load_instances(args.dataset, summaries=args.summaries)
    if args.instance:
        instances = [i for i in instances if i.instance_id in args.instance]
    runs = args.runs or Path(tempfile.mkdtemp(prefix="capabench-real-"))
    store = SweStore(runs)
    start = time.monotonic()
    prepared = {p.instance_id: p for p in prepare(instances, args.repos, log=lambda m: None)}
    ready = [i for i in instances if prepared[i.instance_id].status == "ready"]
    controls = grade_controls(ready, store, repos=args.repos, force=args.force)
    oracle_grades: dict[tuple[str, str], object] = {}
    if args.oracle:
        record_issue_texts(runs, ready)  # as `swe batch` does: the dashboard shows them
        agent = BuiltinAgent(ScriptedModel(oracle(ready), name="oracle"))
        played = batch(ready, ["ambiguous", "full"], "oracle", agent, store, repos=args.repos)
        evaluate(ready, store, repos=args.repos, controls=controls, grader="local")
        for s in store.summaries():
            if s.model == "oracle":
                oracle_grades[(s.instance_id, s.condition)] = store.evaluation(s.run_id)
        asked = sum(s.asked for s in played)
        print(f"oracle: {len(played)} session(s) played this time, {asked} asked")
    header = "instance  env (build s, MiB)  gold (s)  empty (s)  gradable"
    print(header + ("  oracle ambiguous / full" if args.oracle else ""))
    for i in instances:
        p = prepared[i.instance_id]
        env = f"{p.env or '-'} ({'reused' if p.reused else f'{p.build_s:.0f}'}, {p.size_bytes / 2**20:.0f})"
        c = controls.get(i.instance_id)
        if c is None:
            print(f"{i.instance_id}  {env}  not prepared: {p.reason}")
            continue
        line = (
            f"{i.instance_id}  {env}  {word(c.gold)} ({c.gold.duration_s:.0f})  "
            f"{word(c.empty)} ({c.empty.duration_s:.0f})  "
            + ("yes" if c.gradable else f"NOT GRADABLE HERE: {c.reason[:160]}")
        )
        if args.oracle:
            line += "  " + " / ".join(
                word(oracle_grades.get((i.instance_id, cond))) for cond in ("ambiguous", "full")
            )
        print(line, flush=True)
    gradable = sum(c.gradable for c in controls.values())
    print(
        f"{gradable} of {len(instances)} gradable here; wall {time.monotonic() - start:.0f} s; "
        f"store {runs}"
    )


if __name__ == "__main__":
    main()
