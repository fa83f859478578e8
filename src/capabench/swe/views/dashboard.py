"""A self-contained HTML dashboard over the run store: aggregates per model arm side by
side (never pooled), and a drill-down per run (tool trace, messages with each ask shown as an
interaction, the prompt rebuilt from the dataset and checked against its sha256, the patch
beside its grade). Opens by double-click: no server, no network. Local paths are redacted."""

from __future__ import annotations

import hashlib
import json
import os
import re
from pathlib import Path

from capabench.swe.data.issue_texts import recorded_issue_texts
from capabench.swe.store import RunSummary, SweStore
from capabench.swe.swe_records import EventKind, Instance

SMALL = 20  # below this many, a rate is shown as a fraction, not a percentage
MAX_TEXT = 4000


def rate(part: int, whole: int) -> str:
    if whole == 0:
        return "n/a"
    if whole < SMALL:
        return f"{part}/{whole}"
    return f"{100 * part / whole:.1f}% ({part}/{whole})"


def redact(text: str, repo_root: Path | None = None) -> str:
    """Local machine paths out of a shareable page."""
    if repo_root is not None:
        text = text.replace(str(repo_root.resolve()), "<repo>")
    home = os.path.expanduser("~")
    if home not in ("", "/"):
        text = text.replace(home, "~")
    return re.sub(r"/tmp/capabench-[A-Za-z0-9_-]+", "<workspace>", text)


def _clip(text: str) -> str:
    if len(text) <= MAX_TEXT:
        return text
    cut = len(text) - MAX_TEXT
    return f"{text[: MAX_TEXT // 2]}\n[... {cut} characters cut ...]\n{text[-MAX_TEXT // 2 :]}"


def _containment(summary: RunSummary) -> str:
    """How the run was contained: "bwrap", "none" (--no-sandbox), or "unknown"."""
    return summary.setup.containment if summary.setup is not None else "unknown"


def _arms(summaries: list[RunSummary], grades: dict) -> list[dict]:
    """One column per model and containment (contained runs are never pooled with runs on
    the host): its ask channel, ask and resolve rates per condition."""
    arms = []
    for model, contained in sorted({(s.model, _containment(s)) for s in summaries}):
        mine = [s for s in summaries if s.model == model and _containment(s) == contained]
        cells = {}
        for condition in ("ambiguous", "full"):
            runs = [s for s in mine if s.condition == condition]
            observable = [s for s in runs if s.stop_reason != "error"]  # asking was possible
            # Resolved rates count scored runs only: an error (listed tests not run, no
            # environment) or a run of an instance not gradable here is shown apart.
            scored = [s for s in runs if (g := grades.get(s.run_id)) and g.status == "scored"]
            undecided = [
                s for s in runs if (g := grades.get(s.run_id)) and g.status in ("error", "timeout")
            ]
            excluded = [
                s for s in runs if (g := grades.get(s.run_id)) and g.status == "not_gradable"
            ]
            cells[condition] = {
                "runs": len(runs),
                "ask": rate(sum(s.asked for s in observable), len(observable)),
                # Asks the harness refused (Codex's request_user_input): in "asked", shown apart.
                "refused": rate(
                    sum(any(a.refused for a in s.asks) for s in observable), len(observable)
                ),
                "degraded": rate(sum(bool(s.warnings) for s in runs), len(runs)),
                "resolved": rate(sum(bool(grades[s.run_id].resolved) for s in scored), len(scored)),
                "grading_error": rate(len(undecided), len(runs)),
                "not_gradable": rate(len(excluded), len(runs)),
            }
        channel = sorted({a.channel for s in mine for a in s.asks}) or ["(no asks yet)"]
        arms.append(
            {
                "model": model,
                "runner": mine[0].runner,
                "containment": contained,
                "network": ", ".join(sorted({s.setup.network for s in mine if s.setup} - {""})),
                "channel": ", ".join(channel),
                "cells": cells,
            }
        )
    return arms


def build(
    store: SweStore, instances: list[Instance], out: Path, *, repo_root: Path | None = None
) -> Path:
    by_id = {i.instance_id: i for i in instances}
    summaries = store.summaries()
    grades = {s.run_id: g for s in summaries if (g := store.evaluation(s.run_id)) is not None}
    runs = []
    for s in summaries:
        instance = by_id.get(s.instance_id)
        prompt = instance.task(s.condition).prompt if instance else ""
        verified = bool(prompt) and hashlib.sha256(prompt.encode()).hexdigest() == s.prompt_sha256
        grade = grades.get(s.run_id)
        events = [
            {**e, "text": _clip(str(e.get("text", ""))), "output": _clip(str(e.get("output", "")))}
            for e in store.events(s.run_id)
        ]
        runs.append(
            {
                "run_id": s.run_id,
                "instance": s.instance_id,
                "condition": s.condition,
                "model": s.model,
                "runner": s.runner,
                "stop": s.stop_reason,
                "asked": s.asked,
                "turns": s.turns,
                "asks": [a.model_dump() for a in s.asks],
                "repo": s.repo,
                "resolved": None if grade is None else grade.resolved,
                "grade": grade.model_dump() if grade else {"status": "not_evaluated"},
                "prompt": prompt,
                "verified": verified,
                "patch": _clip(store.patch(s.run_id)),
                "events": events,
                "difficulty": instance.difficulty if instance else "",
                "refused": sum(a.refused for a in s.asks),
                "setup": s.setup.model_dump() if s.setup else None,
                "warnings": [w.model_dump() for w in s.warnings],
            }
        )
    # The issue in both forms (and a workbook's withheld categories), once per instance and
    # never inside a run record: an agent's question is judged next to what was left out.
    played = {s.instance_id for s in summaries}
    keys = {k: v for k, v in recorded_issue_texts(store.root).items() if k in played}
    keys |= {
        i.instance_id: {
            "ambiguous": i.problem_statement,
            "full": i.original_issue,
            "extra": i.extra,
        }
        for i in instances
        if i.instance_id in played
    }
    data = {
        "arms": _arms(summaries, grades),
        "runs": runs,
        "keys": keys,
        "preflights": store.preflights(),
    }
    kinds = json.dumps({k.name: k.value for k in EventKind})  # first: the data is the agents'
    page = TEMPLATE.replace("/*KINDS*/null", kinds).replace(
        "/*DATA*/null", redact(json.dumps(data).replace("</", "<\\/"), repo_root)
    )
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(page)
    return out


TEMPLATE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>capabench: ask or guess</title>
<style>
body{font:14px/1.45 system-ui,sans-serif;margin:24px;color:#1d2330;max-width:1200px}
h1{font-size:20px}h2{font-size:16px;margin-top:28px}
table{border-collapse:collapse;margin:8px 0}td,th{border:1px solid #d5dae3;padding:4px 8px;text-align:left;vertical-align:top}
th{background:#f3f5f9}.run{cursor:pointer}.run:hover{background:#f7f9ff}
pre{background:#f6f8fa;padding:8px;overflow:auto;max-height:360px;white-space:pre-wrap}
.ask{border-left:4px solid #c77d00;background:#fff8ea;padding:6px 10px;margin:6px 0}
.reply{border-left:4px solid #2d7d46;background:#effaf2;padding:6px 10px;margin:6px 0}
.ok{color:#2d7d46;font-weight:600}.warn{color:#b54708;font-weight:600}.muted{color:#667085;font-style:italic}.bad{color:#b42318;font-weight:600}.side{display:grid;grid-template-columns:1fr 1fr;gap:12px}
label{margin-right:12px}
</style></head><body>
<h1>Ask or guess: coding agents on ambiguous vs full issues</h1>
<p>Each model is its own arm (its ask channel named), and so is each containment (a run with --no-sandbox is never pooled with contained ones); arms are never pooled. Small counts are shown as fractions.</p>
<div id="preflights"></div>
<div id="arms"></div>
<h2>Runs</h2>
<div id="filters">
<label>arm <select id="f-model"><option value="">all</option></select></label>
<label>condition <select id="f-condition"><option value="">all</option><option>ambiguous</option><option>full</option></select></label>
<label>asked <select id="f-asked"><option value="">all</option><option value="true">yes</option><option value="false">no</option></select></label>
<label>resolved <select id="f-resolved"><option value="">all</option><option value="true">yes</option><option value="false">no</option><option value="null">not graded</option></select></label>
<label>repo <select id="f-repo"><option value="">all</option></select></label>
<label>difficulty <select id="f-difficulty"><option value="">all</option></select></label>
</div>
<table id="runs"><thead><tr><th>instance</th><th>condition</th><th>arm</th><th>stop</th><th>asked</th><th>turns</th><th>grade</th></tr></thead><tbody></tbody></table>
<div id="detail"></div>
<script>
const K = /*KINDS*/null;  // the event kinds the trace knows (records.EventKind)
const DATA = /*DATA*/null;
const esc = s => String(s ?? "").replace(/[&<>"]/g, c => ({"&":"&amp;","<":"&lt;",">":"&gt;",'"':"&quot;"}[c]));
function preflights(){
  const p = DATA.preflights || [];
  if (!p.length) return;
  document.getElementById("preflights").innerHTML = "<h2>Preflight (ask channel certification)</h2><ul>" + p.map(x =>
    `<li><b>${esc(x.model)}</b>: ${x.passed ? '<span class="ok">certified</span>' : '<span class="bad">not certified</span>: ' + esc(x.finding) + " (its batch was not run)"}</li>`).join("") + "</ul>";
}
function arms(){
  let h = "<table><tr><th></th>" + DATA.arms.map(a => `<th>${esc(a.model)}<br><small>${esc(a.runner)}: ${esc(a.channel)}</small><br><small>contained: ${esc(a.containment)}${a.network ? "; network: " + esc(a.network) : ""}</small></th>`).join("") + "</tr>";
  for (const c of ["ambiguous","full"]) for (const [k,label] of [["runs","runs"],["ask","asked"],["refused","asked through a refused channel"],["degraded","ran degraded (see sanity)"],["resolved","resolved (of scored runs)"],["grading_error","grading error (not counted)"],["not_gradable","not gradable here (excluded)"]])
    h += `<tr><th>${c}: ${label}</th>` + DATA.arms.map(a => `<td>${esc(a.cells[c][k])}</td>`).join("") + "</tr>";
  document.getElementById("arms").innerHTML = h + "</table>";
  const sel = document.getElementById("f-model");
  for (const a of DATA.arms) sel.insertAdjacentHTML("beforeend", `<option>${esc(a.model)}</option>`);
  for (const k of ["repo","difficulty"]) for (const v of [...new Set(DATA.runs.map(r => r[k]))].sort())
    document.getElementById("f-" + k).insertAdjacentHTML("beforeend", `<option>${esc(v)}</option>`);
}
function grade(r){
  if (r.resolved !== null) return r.resolved ? '<span class="ok">resolved</span>' : '<span class="bad">unresolved</span>';
  const st = r.grade.status, why = esc(r.grade.detail || "");
  if (st === "error" || st === "timeout") return `<span class="warn" title="${why}">grading ${esc(st)}</span>`;
  if (st === "not_gradable") return `<span class="muted" title="${why}">not gradable here</span>`;
  return esc(st);
}
function rows(){
  const f = id => document.getElementById(id).value;
  const body = document.querySelector("#runs tbody"); body.innerHTML = "";
  DATA.runs.forEach((r, i) => {
    if (f("f-model") && r.model !== f("f-model")) return;
    if (f("f-condition") && r.condition !== f("f-condition")) return;
    if (f("f-asked") && String(r.asked) !== f("f-asked")) return;
    if (f("f-resolved") && String(r.resolved) !== f("f-resolved")) return;
    if (f("f-repo") && r.repo !== f("f-repo")) return;
    if (f("f-difficulty") && r.difficulty !== f("f-difficulty")) return;
    body.insertAdjacentHTML("beforeend", `<tr class="run" data-i="${i}"><td>${esc(r.instance)}</td><td>${esc(r.condition)}</td><td>${esc(r.model)}</td><td>${esc(r.stop)}</td><td>${r.asked ? "yes (" + r.asks.length + (r.refused ? ", " + r.refused + " refused" : "") + ")" : "no"}</td><td>${r.turns}</td><td>${grade(r)}</td></tr>`);
  });
}
function forms(r){
  const k = DATA.keys[r.instance];
  if (!k) return "";
  const extra = Object.entries(k.extra).map(([n, v]) => `<tr><th>${esc(n)}</th><td>${esc(v)}</td></tr>`).join("");
  return `<details class="forms"><summary>the issue in both forms${extra ? " and what was withheld" : ""} (the agent saw only the ${esc(r.condition)} one)</summary>
    <div class="side"><div><h4>ambiguous</h4><pre>${esc(k.ambiguous)}</pre></div><div><h4>full</h4><pre>${esc(k.full)}</pre></div></div>
    ${extra ? `<table>${extra}</table>` : ""}</details>`;
}
function detail(i){
  const r = DATA.runs[i];
  let trace = "";
  for (const e of r.events){
    if (e.kind === "codex") continue;  // the raw stream; its trace is normalized beside it
    if (e.kind === K.ASK) trace += `<div class="ask"><b>agent asks:</b> ${esc(e.text)}</div>`;
    else if (e.kind === K.REFUSED_ASK) trace += `<div class="ask"><b>agent asks (${esc(e.channel)}; counted as asked):</b> ${esc(e.text)}<br><small>the CLI answered the model: ${esc(e.output)}</small></div>`;
    else if (e.kind === K.ANSWER) trace += `<div class="reply"><b>reply:</b> ${esc(e.text)}</div>`;
    else if (e.kind === K.COMMAND) trace += `<div><b>$ ${esc(e.text)}</b> <small>(exit ${esc(e.exit)})</small><pre>${esc(e.output)}</pre></div>`;
    else if (e.kind === K.FINAL && e.detection && e.detection.asked) trace += `<div class="ask"><b>agent asks (final message, ${esc(e.detection.version)}):</b> ${esc(e.text)}</div>`;
    else if (e.kind === K.MODEL || e.kind === K.FINAL) trace += `<div><b>agent:</b><pre>${esc(e.text)}</pre></div>`;
    else trace += `<div><b>${esc(e.kind)}:</b> ${esc(e.text)}</div>`;
  }
  const s = r.setup;
  const setup = s ? `<p>contained: ${esc(s.containment)} &middot; system prompt: ${esc(s.system_prompt)} &middot; budget: ${s.budget ? esc(s.budget.turns) + " turns, " + esc(s.budget.wall_s) + " s" : "n/a"}<br>tools offered: ${esc((s.tools_offered || []).join(", ")) || "(not recorded)"}</p>` : "";
  const warnings = (r.warnings || []).map(w => `<p class="bad">degraded (${esc(w.kind)}): ${esc(w.text)}</p>`).join("");
  const badge = r.verified ? '<span class="ok">&#10003; VERIFIED</span>' : '<span class="bad">prompt not verified</span>';
  document.getElementById("detail").innerHTML = `<h2>${esc(r.run_id)}</h2>
    <p>${esc(r.repo)} &middot; ${esc(r.condition)} &middot; ${esc(r.model)} &middot; stop: ${esc(r.stop)}</p>${setup}${warnings}
    <h3>Prompt ${badge}</h3><pre>${esc(r.prompt)}</pre>${forms(r)}
    <h3>Session</h3>${trace || "<p>(no events)</p>"}
    <div class="side"><div><h3>Patch</h3><pre>${esc(r.patch) || "(empty)"}</pre></div>
    <div><h3>Grade</h3><pre>${esc(JSON.stringify(r.grade, null, 1))}</pre></div></div>`;
}
preflights(); arms(); rows();
for (const id of ["f-model","f-condition","f-asked","f-resolved","f-repo","f-difficulty"]) document.getElementById(id).onchange = rows;
document.querySelector("#runs tbody").onclick = e => { const tr = e.target.closest("tr"); if (tr) detail(+tr.dataset.i); };
if (DATA.runs.length) detail(0);
</script></body></html>
"""
