"""Drawing the items and writing the annotators' sheets. An item is one convention of one
session: the user's request and the statement of what they want; the annotator names the
mechanism that makes it ambiguous. No sheet shows the benchmark's label (key.json does, for
`agree`)."""

from __future__ import annotations

import csv
import html
import json
import random
import re
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from capabench.benchmark import Benchmark
from capabench.records import Mechanism

MECHANISMS = [m.value for m in Mechanism]
SHEET_FIELDS = ("item_id", "request", "statement", "label")


class Item(BaseModel):
    model_config = ConfigDict(frozen=True)

    item_id: str
    session_id: str
    request: str
    statement: str
    label: str  # the benchmark's mechanism: in key.json only


def sample_items(bench: Benchmark, n: int, seed: int) -> list[Item]:
    """`n` conventions balanced over the six mechanisms (as even as n allows), each user's
    convention at most once, in a fixed order for the seed."""
    rng = random.Random(f"capa-annotate:{seed}")
    pools: dict[str, list] = {m: [] for m in MECHANISMS}
    seen = set()
    for session in sorted(bench.sessions, key=lambda s: s.id):
        for slot in session.slots:
            if (session.user_id, slot.family) not in seen:
                seen.add((session.user_id, slot.family))
                pools[slot.mechanism.value].append((session, slot))
    for pool in pools.values():
        rng.shuffle(pool)
    if n > sum(len(p) for p in pools.values()):
        raise ValueError(f"the benchmark has {len(seen)} distinct conventions; --n {n} is more")
    chosen = []
    while len(chosen) < n:  # round robin: every mechanism before any twice
        for m in MECHANISMS:
            if pools[m] and len(chosen) < n:
                chosen.append(pools[m].pop())
    rng.shuffle(chosen)
    return [
        Item(
            item_id=f"item-{i + 1:03d}",
            session_id=s.id,
            request=s.request,
            statement=slot.statement,
            label=slot.mechanism.value,
        )
        for i, (s, slot) in enumerate(chosen)
    ]


def cyclic_design(items: int, annotators: int, per_item: int = 3) -> list[list[int]]:
    """Which items each annotator rates: item i goes to annotators i, i+1, ..., i+per_item-1
    (mod the number of annotators), so every annotator rates about items*per_item/annotators
    items and every pair of annotators shares about as many as any other."""
    per_item = min(per_item, annotators)
    sheets: list[list[int]] = [[] for _ in range(annotators)]
    for i in range(items):
        for j in range(per_item):
            sheets[(i + j) % annotators].append(i)
    return sheets


def write_kit(items: list[Item], annotators: list[str], out: Path, per_item: int = 3) -> None:
    """out/key.json (the benchmark's labels), out/sheets/<annotator>.csv and .html."""
    if bad := [a for a in annotators if not re.fullmatch(r"[A-Za-z0-9_.-]+", a)]:
        raise ValueError(f"annotator names are letters, digits, - _ . only: {bad[0]!r}")
    if out.exists() and any(out.iterdir()):
        raise FileExistsError(f"{out} is not empty: the kit goes to a new directory")
    (out / "sheets").mkdir(parents=True, exist_ok=True)
    key = {
        "mechanisms": MECHANISMS,
        "items": {i.item_id: {"label": i.label, "session_id": i.session_id} for i in items},
        "design": {"annotators": annotators, "per_item": min(per_item, len(annotators))},
    }
    (out / "key.json").write_text(json.dumps(key, indent=1))
    for name, chosen in zip(
        annotators, cyclic_design(len(items), len(annotators), per_item), strict=True
    ):
        mine = [items[i] for i in chosen]
        with (out / "sheets" / f"{name}.csv").open("w", newline="") as f:
            writer = csv.writer(f)
            writer.writerow(SHEET_FIELDS)
            writer.writerows((i.item_id, i.request, i.statement, "") for i in mine)
        (out / "sheets" / f"{name}.html").write_text(sheet_html(name, mine))


def sheet_html(annotator: str, items: list[Item]) -> str:
    """A self-contained form: one question per item, answers kept in the browser as they are
    given, and a button that saves them as <annotator>-labels.csv (item_id,label)."""
    options = "".join(
        f'<label><input type="radio" name="{{id}}" value="{html.escape(m)}"> {html.escape(m)}</label>'
        for m in MECHANISMS
    )
    cards = "".join(
        f'<section class="item" data-id="{i.item_id}"><h2>{i.item_id}</h2>'
        f"<p><b>The request</b></p><pre>{html.escape(i.request)}</pre>"
        f"<p><b>What the user wanted, unsaid</b>: {html.escape(i.statement)}</p>"
        f"<fieldset>{options.replace('{id}', i.item_id)}</fieldset></section>"
        for i in items
    )
    return SHEET_PAGE.replace("{annotator}", html.escape(annotator)).replace("{cards}", cards)


SHEET_PAGE = """<!doctype html><html><head><meta charset="utf-8"><title>capabench annotation: {annotator}</title>
<style>body{font:15px system-ui,sans-serif;max-width:900px;margin:2em auto}pre{white-space:pre-wrap;background:#f6f6f6;padding:.5em}
.item{border-bottom:1px solid #ccc;padding:1em 0}fieldset{border:0}label{display:block}#bar{position:sticky;top:0;background:#fff;padding:.5em 0}</style>
</head><body><h1>Annotation sheet: {annotator}</h1>
<p>For each item: which mechanism makes what the user wanted go unsaid? Answers stay in this browser until you save them.</p>
<div id="bar"><button id="save">Save my labels (CSV)</button> <span id="count"></span></div>
{cards}
<h2>Your labels so far</h2><pre id="csv"></pre>
<script>
const store = "capabench-annotation-{annotator}";
const saved = JSON.parse(localStorage.getItem(store) || "{}");
const fill = location.hash.startsWith("#fill=") ? JSON.parse(decodeURIComponent(location.hash.slice(6))) : {};
function esc(v) { return /[",\\n]/.test(v) ? '"' + v.replace(/"/g, '""') + '"' : v; }
function labels() {
  const out = {};
  document.querySelectorAll(".item").forEach(s => {
    const c = s.querySelector("input:checked"); out[s.dataset.id] = c ? c.value : ""; });
  return out;
}
function csv() {
  return "item_id,label\\n" + Object.entries(labels()).map(([k, v]) => esc(k) + "," + esc(v)).join("\\n") + "\\n";
}
function update() {
  const l = labels(); localStorage.setItem(store, JSON.stringify(l));
  document.getElementById("csv").textContent = csv();
  document.getElementById("count").textContent = Object.values(l).filter(Boolean).length + " of " + Object.keys(l).length + " labelled";
}
document.querySelectorAll(".item").forEach(s => {
  const want = fill[s.dataset.id] || saved[s.dataset.id];
  s.querySelectorAll("input").forEach(i => { if (i.value === want) i.checked = true; i.addEventListener("change", update); });
});
document.getElementById("save").addEventListener("click", () => {
  const a = document.createElement("a");
  a.href = URL.createObjectURL(new Blob([csv()], {type: "text/csv"}));
  a.download = "{annotator}-labels.csv"; a.click();
});
update();
</script></body></html>
"""
