"""The CAPA paper's studies. Each plays the conditions it needs for every model (in the
model's run directory, so studies share what they have played) and builds its tables in
the paper's layout. `capabench study NAME` prints them and writes CSV."""

from __future__ import annotations

import json
import statistics
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from capabench.blank_control import play_blank_control
from capabench.metrics import difficulty_of, summarize
from capabench.models.spec import is_policy
from capabench.records import TURN_BUDGET, BlankRun
from capabench.report.collect import RunData, load_runs
from capabench.report.curve import CURVE, learning_curve_rows
from capabench.report.tables import (
    comparison_rows,
    main_table_rows,
    mechanism_rows,
    metric_cells,
    pct,
)
from capabench.runner import RunConfig, Runner, select_sessions

METRICS = ("ES", "FT-ES", "TTC")


@dataclass
class StudyData:
    runs: list[RunData]
    difficulty: dict[str, str] = field(default_factory=dict)
    blank: dict[str, list[BlankRun]] = field(default_factory=dict)  # model -> results


@dataclass(frozen=True)
class Study:
    name: str
    about: str
    conditions: tuple[str, ...]
    tables: Callable[[StudyData], dict[str, list[dict]]]
    llm_only: tuple[str, ...] = ()  # conditions that need the model to be an LLM
    history_split: bool = False  # also play the history split without history
    blank: bool = False  # the blank control instead of sessions
    # label sessions by the no-history difficulty partition (of the first model, then saved)
    by_difficulty: bool = False
    # PNG figures drawn from the tables (name -> bytes), written beside the CSVs
    plots: Callable[[dict[str, list[dict]]], dict[str, bytes]] | None = None

    def conditions_for(self, model: str) -> list[str]:
        extra = () if is_policy(model) else self.llm_only
        return [*self.conditions, *extra]


def _metrics(results) -> dict:
    return metric_cells(summarize(results))


def by_condition_rows(runs: list[RunData], conditions: list[str]) -> list[dict]:
    """Tables 3 and 5: a row per condition and metric, a column per model."""
    rows = []
    for cond in conditions:
        values = {run.model: _metrics(run.by_condition().get(cond, [])) for run in runs}
        if not any(v["n"] for v in values.values()):
            continue
        for metric in METRICS:
            rows.append(
                {
                    "condition": cond,
                    "metric": metric,
                    **{m: v[metric] if v["n"] else None for m, v in values.items()},
                }
            )
    return rows


def method_rows(runs: list[RunData], conditions: list[str]) -> list[dict]:
    """Table 4: a row per history method and model, with the history tokens it used."""
    rows = []
    for cond in conditions:
        for run in runs:
            group = run.by_condition().get(cond, [])
            if group:
                tokens = sum(r.history_tokens for r in group) / len(group)
                rows.append(
                    {
                        "method": cond,
                        "model": run.model,
                        **_metrics(group),
                        "history tokens/session": round(tokens, 1),
                        **memory_cost(group),
                    }
                )
    return rows


def memory_cost(results) -> dict:
    """What building memory cost per user (a method's `build_*` history info, one per user):
    model calls, tokens (where the method can count them) and seconds; and how many users'
    memories a run reused instead of building. Empty figures for methods that build none."""
    built = {r.cell: r.history_info for r in results if "build_calls" in r.history_info}
    mean = lambda key: (  # noqa: E731
        round(statistics.fmean(i[key] for i in built.values()), 2)
        if built and all(key in i for i in built.values())
        else None
    )
    tokens_in, tokens_out = mean("build_tokens_in"), mean("build_tokens_out")
    return {
        "memory calls/user": mean("build_calls"),
        "memory tokens/user": None if tokens_in is None else tokens_in + (tokens_out or 0),
        "memory s/user": mean("build_seconds"),
        "memories reused": sum(bool(i.get("memory_reused")) for i in built.values())
        if built
        else None,
    }


def difficulty_table(data: StudyData) -> list[dict]:
    """Table 2: under same-user history, per difficulty of the saved no-history partition."""
    rows = []
    for run in data.runs:
        group = run.by_condition().get("same-user", [])
        for level in ("simple", "medium", "complex"):
            part = [r for r in group if data.difficulty.get(r.session_id) == level]
            if part:
                rows.append({"model": run.model, "difficulty": level, **_metrics(part)})
        unlabeled = [r for r in group if r.session_id not in data.difficulty]
        if unlabeled:  # the saved partition came from a smaller reference run
            rows.append(
                {"model": run.model, "difficulty": "not in the partition", **_metrics(unlabeled)}
            )
    return rows


def split_table(data: StudyData) -> list[dict]:
    """Appendix A: no-history ES and assistant turns on the history vs the held-out split,
    and the median of the per-cell differences (held-out minus history)."""
    rows = []
    for run in data.runs:
        splits = {s: run.by_condition(s).get("none", []) for s in ("history", "heldout")}
        if not all(splits.values()):
            continue
        es = {s: summarize(g).es for s, g in splits.items()}
        turns = {s: summarize(g).ttc for s, g in splits.items()}
        cells = sorted({r.cell for r in splits["history"]} & {r.cell for r in splits["heldout"]})
        cell_es, cell_turns = [], []
        for cell in cells:
            part = {s: [r for r in g if r.cell == cell] for s, g in splits.items()}
            cell_es.append(summarize(part["heldout"]).es - summarize(part["history"]).es)
            cell_turns.append(summarize(part["heldout"]).ttc - summarize(part["history"]).ttc)
        rows.append(
            {
                "model": run.model,
                "n history": len(splits["history"]),
                "n held-out": len(splits["heldout"]),
                "ES history": pct(es["history"]),
                "ES held-out": pct(es["heldout"]),
                "ES diff (pp)": pct(es["heldout"] - es["history"]),
                "turns history": round(turns["history"], 3),
                "turns held-out": round(turns["heldout"], 3),
                "turns diff": round(turns["heldout"] - turns["history"], 3),
                "median cell ES diff (pp)": pct(statistics.median(cell_es)) if cell_es else None,
                "median cell turns diff": round(statistics.median(cell_turns), 3)
                if cell_turns
                else None,
            }
        )
    return rows


def blank_table(data: StudyData) -> list[dict]:
    rows = []
    for model, results in data.blank.items():
        done = [r for r in results if r.status == "completed"]
        if not done:
            continue
        first = sum(r.solved_turn == 1 for r in done)
        rows.append(
            {
                "model": model,
                "n": len(done),
                "ES": pct(sum(r.solved for r in done) / len(done)),
                "FT-ES": pct(first / len(done)),
                "first-try solved": f"{first}/{len(done)}",
                "TTC": round(sum(r.solved_turn or TURN_BUDGET for r in done) / len(done), 3),
                "infra errors": len(results) - len(done),
            }
        )
    return rows


def _learning_curve_plot(tables: dict[str, list[dict]]) -> dict[str, bytes]:
    from capabench.report.render import learning_curve_png

    rows = tables["curve"]
    return {"learning-curve.png": learning_curve_png(rows)} if rows else {}


STUDIES: dict[str, Study] = {
    s.name: s
    for s in [
        Study(
            "main",
            "Table 1: no history vs same-user history, and the gain",
            ("none", "same-user"),
            lambda d: {"table1": main_table_rows(d.runs)},
        ),
        Study(
            "difficulty",
            "Table 2: same-user history by difficulty (no-history partition)",
            ("none", "same-user"),
            lambda d: {"table2": difficulty_table(d)},
            by_difficulty=True,
        ),
        Study(
            "identity",
            "Table 3: none vs shuffled vs same-user history",
            ("none", "shuffled", "same-user"),
            lambda d: {
                "table3": by_condition_rows(d.runs, ["none", "shuffled", "same-user"]),
                "tests": comparison_rows(d.runs, "none", ["shuffled", "same-user"]),
            },
        ),
        Study(
            "memory",
            "Tables 4 and 5: memory methods vs gating; none vs same-user vs gated",
            ("none", "same-user", "gated"),
            lambda d: {
                "table4": method_rows(d.runs, ["mem0", "amem", "gated", "gated-llm"]),
                "table5": by_condition_rows(d.runs, ["none", "same-user", "gated", "gated-llm"]),
                "tests": comparison_rows(
                    d.runs, "none", ["same-user", "mem0", "amem", "gated", "gated-llm"]
                ),
            },
            llm_only=("mem0", "amem", "gated-llm"),
        ),
        Study(
            "mechanism",
            "Table 8: same-user history per mechanism (multi-label marginal)",
            ("same-user",),
            lambda d: {"table8": mechanism_rows(d.runs)},
        ),
        Study(
            "split",
            "Appendix A: history vs held-out split comparability (no history)",
            ("none",),
            lambda d: {"split": split_table(d)},
            history_split=True,
        ),
        Study(
            "learning-curve",
            "Learning curve: the first k of the user's resolved sessions as history, k = 0..5",
            CURVE,
            lambda d: {"curve": learning_curve_rows(d.runs)},
            plots=_learning_curve_plot,
        ),
        Study(
            "blank-control",
            "Blank control: original tasks, full specs, test feedback, 8 submissions",
            (),
            lambda d: {"blank-control": blank_table(d)},
            blank=True,
        ),
    ]
}


def study(name: str) -> Study:
    if name not in STUDIES:
        raise ValueError(f"unknown study {name!r}; known: {', '.join(STUDIES)}")
    return STUDIES[name]


@dataclass
class StudyPlan:
    """One study over models: where each model's runs live and how they are played."""

    study: Study
    configs: list[RunConfig]  # one per model; conditions are filled in per study
    run_dirs: list[Path]
    difficulty_file: Path | None = None


def play(plan: StudyPlan, bench, pool, progress=None) -> StudyData:
    s = plan.study
    blank: dict[str, list[BlankRun]] = {}
    for config, run_dir in zip(plan.configs, plan.run_dirs, strict=True):
        if s.blank:
            blank[config.model] = play_blank_control(config, run_dir, pool, progress)
            continue
        config = replace(config, conditions=s.conditions_for(config.model))
        Runner(config, bench, run_dir, pool=pool).run(progress)
        if s.history_split:
            Runner(
                replace(config, conditions=["none"], split="history"), bench, run_dir, pool=pool
            ).run(progress)
    runs = [] if s.blank else load_runs(plan.run_dirs)
    for run, config in zip(runs, plan.configs, strict=False):  # no runs for the blank control
        # The study's own slice: a run directory may hold more from earlier, wider studies.
        wanted = {x.id for x in select_sessions(bench, config.limit, "both")}
        run.results = [r for r in run.results if r.session_id in wanted]
    data = StudyData(runs, blank=blank)
    if s.by_difficulty:
        data.difficulty = difficulty_partition(data.runs[0], plan.difficulty_file)
    return data


def difficulty_partition(reference: RunData, path: Path | None) -> dict[str, str]:
    """The saved partition when `path` exists; else the reference run's no-history labels,
    saved to `path` for every later study (the paper keeps it fixed)."""
    if path is not None and path.is_file():
        return json.loads(path.read_text())["labels"]
    labels = difficulty_of(reference.by_condition().get("none", []))
    if not labels:
        raise ValueError(f"{reference.path}: no no-history results to partition by difficulty")
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        payload = {"reference_run": str(reference.path), "model": reference.model, "labels": labels}
        path.write_text(json.dumps(payload, indent=1, sort_keys=True) + "\n")
    return labels
