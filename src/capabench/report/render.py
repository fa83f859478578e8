"""Files of a report: CSV and JSON tables, PNG plots, and one self-contained HTML page."""

from __future__ import annotations

import base64
import csv
import html
import io
import json
from pathlib import Path

from capabench.report.collect import RunData
from capabench.report.compare import compare_rows
from capabench.report.curve import learning_curve_rows
from capabench.report.tables import (
    comparison_rows,
    condition_rows,
    difficulty_rows,
    main_table_rows,
    mechanism_rows,
    methods,
    pass_k_rows,
    profile_rows,
)
from capabench.report.viewer import viewer_html

HEADERS = {  # written even when empty
    "pass_k": [
        "model",
        "condition",
        "k",
        "pass^k",
        "pass^k FT-ES",
        "epochs",
        "TTC SD across epochs",
        "TTC range across epochs",
    ]
}


def write_csv(path: Path, rows: list[dict], header: list[str] | None = None) -> None:
    with path.open("w", newline="") as fh:
        fields = (
            list(dict.fromkeys(k for row in rows for k in row)) or header or []
        )  # rows may differ
        if not fields:
            return
        writer = csv.DictWriter(fh, fieldnames=fields)
        writer.writeheader()
        writer.writerows(rows)


LIMITS = {"ES": (0, 100), "FT-ES": (0, 100), "TTC": (1, 8)}  # fixed: all-zero runs don't zoom in


def _plot_png(rows: list[dict], group: str, title: str) -> bytes:
    """ES / FT-ES / TTC bars per group and model on fixed axes, with the 95% intervals as
    error bars (where the rows carry them) and each bar's value and n written on it."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = [r for r in rows if r.get("ES") is not None]  # n = 0: nothing was measured
    labels = sorted({r[group] for r in rows})
    models = sorted({r["model"] for r in rows})
    fig, axes = plt.subplots(1, 3, figsize=(13, 4.2))
    width = 0.8 / max(1, len(models))
    for ax, metric in zip(axes, ("ES", "FT-ES", "TTC"), strict=True):
        low, high = LIMITS[metric]
        for i, model in enumerate(models):
            found = [
                next((r for r in rows if r["model"] == model and r[group] == lab), None)
                for lab in labels
            ]
            xs = [x + i * width for x, r in zip(range(len(labels)), found, strict=True) if r]
            mine = [r for r in found if r]
            values = [r[metric] for r in mine]
            errors = None
            if all(f"{metric} 95% low" in r for r in mine) and mine:
                errors = [
                    [max(0, r[metric] - r[f"{metric} 95% low"]) for r in mine],
                    [max(0, r[f"{metric} 95% high"] - r[metric]) for r in mine],
                ]
            bottom = low if metric == "TTC" else 0
            bars = ax.bar(
                xs,
                [v - bottom for v in values],
                width,
                bottom=bottom,
                label=model,
                yerr=errors,
                capsize=3,
                error_kw={"elinewidth": 1},
            )
            for bar, r in zip(bars, mine, strict=True):
                text = f"{r[metric]:g}\nn={r['n']}"
                top = max(r[metric], r.get(f"{metric} 95% high", r[metric]))  # above the error bar
                ax.annotate(
                    text,
                    (bar.get_x() + bar.get_width() / 2, top),
                    ha="center",
                    va="bottom",
                    fontsize=6,
                    xytext=(0, 2),
                    textcoords="offset points",
                )
        ax.set_ylim(low, high + (high - low) * 0.18)
        ax.set_title(metric + (" (%)" if metric != "TTC" else " (turns; unsolved = 8)"))
        ax.set_xticks([x + width * (len(models) - 1) / 2 for x in range(len(labels))])
        ax.set_xticklabels(labels, rotation=30, ha="right", fontsize=8)
    handles, names = axes[0].get_legend_handles_labels()
    fig.legend(
        handles,
        names,
        loc="lower center",
        ncol=min(4, max(1, len(models))),
        fontsize=8,
        frameon=False,
    )
    fig.suptitle(title + " (error bars: 95% intervals)")
    fig.tight_layout(rect=(0, 0.1, 1, 1))
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=110)
    plt.close(fig)
    return buffer.getvalue()


def learning_curve_png(rows: list[dict]) -> bytes:
    """ES, FT-ES and asks per session against k (history size) per model, on fixed axes,
    with the 95% intervals as error bars (rows of the learning-curve study)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from capabench.records import TURN_BUDGET

    metrics = {"ES": (0, 100), "FT-ES": (0, 100), "asks/session": (0, TURN_BUDGET)}
    fig, axes = plt.subplots(1, 3, figsize=(13, 4.2))
    models = sorted({r["model"] for r in rows})
    for ax, (metric, (low, high)) in zip(axes, metrics.items(), strict=True):
        for model in models:
            mine = sorted((r for r in rows if r["model"] == model), key=lambda r: r["k"])
            values = [r[metric] for r in mine]
            errors = [
                [max(0, v - r[f"{metric} 95% low"]) for v, r in zip(values, mine, strict=True)],
                [max(0, r[f"{metric} 95% high"] - v) for v, r in zip(values, mine, strict=True)],
            ]
            ax.errorbar(
                [r["k"] for r in mine], values, yerr=errors, marker="o", capsize=3, label=model
            )
        ax.set_xlim(-0.3, 5.3)
        ax.set_ylim(
            low - (high - low) * 0.04, high + (high - low) * 0.04
        )  # markers at the ends show
        ax.set_xticks(range(6))
        ax.set_xlabel("k: the user's first k resolved sessions as history")
        ax.set_title(metric + (" (%)" if metric != "asks/session" else ""))
    handles, names = axes[0].get_legend_handles_labels()
    fig.legend(
        handles,
        names,
        loc="lower center",
        ncol=min(4, max(1, len(models))),
        fontsize=8,
        frameon=False,
    )
    fig.suptitle("Learning curve (error bars: 95% intervals)")
    fig.tight_layout(rect=(0, 0.1, 1, 1))
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=110)
    plt.close(fig)
    return buffer.getvalue()


def _html_table(rows: list[dict]) -> str:
    if not rows:
        return "<p>No rows.</p>"
    head = "".join(f"<th>{html.escape(str(k))}</th>" for k in rows[0])
    body = "".join(
        "<tr>"
        + "".join(f"<td>{html.escape('' if v is None else str(v))}</td>" for v in r.values())
        + "</tr>"
        for r in rows
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _reliability_rows(pass_k: list[dict]) -> list[dict]:
    """The pass^k rows pivoted for reading: one row per model and condition, pass^1..K of ES
    and of FT-ES side by side, then the TTC spread; – where not measured."""
    groups: dict[tuple[str, str], list[dict]] = {}
    for r in pass_k:
        groups.setdefault((r["model"], r["condition"]), []).append(r)
    dash = lambda v: "–" if v is None else v  # noqa: E731
    return [
        {
            "model": model,
            "condition": cond,
            "epochs": rows[0]["epochs"],
            **{f"ES pass^{r['k']}": dash(r["pass^k"]) for r in rows},
            **{f"FT-ES pass^{r['k']}": dash(r["pass^k FT-ES"]) for r in rows},
            "TTC SD": dash(rows[0]["TTC SD across epochs"]),
            "TTC range": dash(rows[0]["TTC range across epochs"]),
        }
        for (model, cond), rows in groups.items()
    ]


_STYLE = """body{font-family:system-ui,sans-serif;margin:2em;color:#222}table{border-collapse:collapse;margin:1em 0;font-size:13px}
th,td{border:1px solid #ccc;padding:4px 8px;text-align:right}th{background:#f3f3f3}td:first-child,th:first-child{text-align:left}
img{max-width:100%}h2{margin-top:2em}.note{color:#666;font-size:13px}"""


def write_report(
    runs: list[RunData], out: Path, *, cluster: str = "cell", compare: bool = False
) -> dict[str, Path]:
    """CSV, JSON, PNG and one self-contained HTML page (with the session viewer); with
    `compare`, two runs side by side on their common sessions."""
    out.mkdir(parents=True, exist_ok=True)
    named = methods(cluster)
    tables = {
        "main": main_table_rows(runs),
        "comparisons": comparison_rows(runs),
        "conditions": condition_rows(runs, cluster),
        "mechanisms": mechanism_rows(runs),
        "profiles": profile_rows(runs),
        "difficulty": difficulty_rows(runs),
        "pass_k": pass_k_rows(runs),
    }
    if compare:
        if len(runs) != 2:
            raise ValueError(f"--compare reads two runs, not {len(runs)}")
        tables["compare"], tables["compare_sessions"] = compare_rows(*runs)
    files: dict[str, Path] = {}
    for name, rows in tables.items():
        write_csv(out / f"{name}.csv", rows, HEADERS.get(name))
        files[f"{name}.csv"] = out / f"{name}.csv"
    (out / "report.json").write_text(
        json.dumps(
            {"runs": [str(r.path) for r in runs], "methods": named, **tables},
            indent=2,
            ensure_ascii=False,
        )
        + "\n",
        encoding="utf-8",
    )
    files["report.json"] = out / "report.json"
    images = {}
    if tables["conditions"]:
        images["by-condition.png"] = _plot_png(tables["conditions"], "condition", "By condition")
    if tables["mechanisms"]:
        images["by-mechanism.png"] = _plot_png(
            tables["mechanisms"], "mechanism", "By mechanism (same-user, multi-label)"
        )
    if curve := learning_curve_rows(runs):  # runs of the learning-curve study
        write_csv(out / "learning-curve.csv", curve)
        files["learning-curve.csv"] = out / "learning-curve.csv"
        images["learning-curve.png"] = learning_curve_png(curve)
    for name, data in images.items():
        (out / name).write_bytes(data)
        files[name] = out / name
    figures = "".join(
        f'<h2>{html.escape(name[:-4].replace("-", " "))}</h2><img alt="{html.escape(name)}" src="data:image/png;base64,{base64.b64encode(data).decode()}">'
        for name, data in images.items()
    )
    side_by_side = (
        f"<h2>Side by side: {html.escape(runs[0].model)} vs {html.escape(runs[1].model)}</h2>"
        '<p class="note">Per condition, the sessions both runs completed: how their outcomes pair up, '
        "and the paired tests (Holm over the table). Below: the sessions solved by one run only "
        '(open both dialogues in the session viewer with its "solved by one run only" filter).</p>'
        f"{_html_table(tables['compare'])}{_html_table(tables['compare_sessions'])}"
        if compare
        else ""
    )
    page = f"""<!doctype html><html lang="en"><head><meta charset="utf-8"><title>capabench report</title>
<style>{_STYLE}</style></head><body><h1>capabench report</h1>
<p class="note">Runs: {html.escape(", ".join(f"{r.model} ({r.path.name})" for r in runs))}. ES and FT-ES in %, TTC in turns (unsolved = 8).</p>
<h2>Main table: no history vs same-user history</h2>{_html_table(tables["main"])}
<h2>Every condition against no history</h2>{_html_table(tables["comparisons"])}
<h2>All conditions</h2>{_html_table(tables["conditions"])}
<h2>Per mechanism (same-user)</h2>{_html_table(tables["mechanisms"])}
<h2>Per difficulty (partition from the no-history results)</h2>{_html_table(tables["difficulty"])}
<h2>Per profile</h2>{_html_table(tables["profiles"])}
<h2>Reliability across epochs: pass^k and the spread of TTC</h2>
<p class="note">pass^k: the chance that k epochs of a session all succeed (%); TTC SD and range: across a session's epochs (turns), averaged over sessions; –: not measured (fewer epochs; <code>capabench run --epochs N</code>). See Methods.</p>{_html_table(_reliability_rows(tables["pass_k"]))}
{side_by_side}{figures}{viewer_html(runs)}<h2>Methods</h2><dl class="note">{"".join(f"<dt>{html.escape(k)}</dt><dd>{html.escape(v)}</dd>" for k, v in named.items())}</dl></body></html>
"""
    (out / "report.html").write_text(page, encoding="utf-8")
    files["report.html"] = out / "report.html"
    return files
