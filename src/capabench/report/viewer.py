"""The session viewer of the HTML report: every played session's dialogue with its
verdicts, each user turn's revealed conventions (or the questions that revealed nothing),
the history the condition gave (its method's record), filters by run, condition,
mechanism, profile and outcome. With two runs, a session opens with both dialogues side by
side. Self-contained: the sessions are a JSON block the page's script renders on demand."""

from __future__ import annotations

import json

from capabench.report.collect import RunData


def _outcome(r) -> str:
    if r.status != "completed":
        return "infra error"
    return "solved" if r.solved else "unsolved"


def viewer_data(runs: list[RunData]) -> dict:
    sessions = []
    for i, run in enumerate(runs):
        for r in run.results:
            sessions.append(
                {
                    "r": i,
                    "k": f"{r.session_id}|{r.condition}|{r.epoch}",
                    "s": r.session_id,
                    "c": r.condition,
                    "e": r.epoch,
                    "m": list(r.mechanisms),
                    "p": r.profile_id,
                    "t": r.task_id,
                    "o": _outcome(r),
                    "st": r.solved_turn,
                    "a": r.asks,
                    "h": r.history_tokens,
                    "hi": r.history_info,
                    "err": r.error[:500],
                    "d": [[t.role[0], t.text, t.verdict or "", list(t.revealed)] for t in r.turns],
                    "u": [[q.turn, q.text, q.best or "", q.score] for q in r.unanswered],
                }
            )
    return {"runs": [run.model for run in runs], "sessions": sessions}


def viewer_html(runs: list[RunData]) -> str:
    data = json.dumps(viewer_data(runs), ensure_ascii=False, separators=(",", ":"))
    data = data.replace("</", "<\\/")  # a dialogue's "</script>" can't end the block
    return VIEWER.replace("{data}", data)


VIEWER = """<h2 id="sessions">Sessions</h2>
<p class="note">Every played session: pick filters, then a row to read its dialogue (with two runs: both runs' dialogues of that session side by side).</p>
<div id="filters"></div><p class="note" id="shown"></p>
<table id="list"><thead><tr><th>session</th><th>run</th><th>condition</th><th>epoch</th><th>profile</th><th>mechanisms</th><th>outcome</th><th>asks</th></tr></thead><tbody></tbody></table>
<div id="dialogues" style="display:flex;gap:1em;align-items:flex-start"></div>
<style>#list tbody tr{cursor:pointer}#list tbody tr:hover{background:#eef}.turn{border:1px solid #ddd;margin:.4em 0;padding:.4em;text-align:left;white-space:pre-wrap;font-size:13px}
.turn.u{background:#f7fbff}.turn.a{background:#fffdf5}.tag{font-size:12px;color:#555}.col{flex:1;min-width:0}</style>
<script type="application/json" id="session-data">{data}</script>
<script>
(function () {
const D = JSON.parse(document.getElementById("session-data").textContent);
const S = D.sessions, runs = D.runs, LIMIT = 300;
const esc = s => String(s).replace(/[&<>"]/g, c => ({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;"}[c]));
const uniq = xs => [...new Set(xs)].sort();
const fields = {run: s => runs[s.r], condition: s => s.c, mechanism: s => s.m, profile: s => s.p, outcome: s => s.o};
const chosen = {};
const box = document.getElementById("filters");
for (const [name, get] of Object.entries(fields)) {
  const values = uniq(S.flatMap(s => [].concat(get(s))));
  const sel = document.createElement("select"); sel.id = "filter-" + name;
  sel.innerHTML = `<option value="">${name}: all</option>` + values.map(v => `<option>${esc(v)}</option>`).join("");
  sel.onchange = () => { chosen[name] = sel.value; list(); };
  box.appendChild(sel);
}
if (runs.length === 2) {
  const sel = document.createElement("select"); sel.id = "filter-differs";
  sel.innerHTML = '<option value="">both runs: any</option><option value="1">solved by one run only</option>';
  sel.onchange = () => { chosen.differs = sel.value; list(); };
  box.appendChild(sel);
}
const byKey = {};
for (const s of S) (byKey[s.k] = byKey[s.k] || [])[s.r] = s;
const differs = s => { const b = byKey[s.k]; return b[0] && b[1] && (b[0].o === "solved") !== (b[1].o === "solved"); };
function keep(s) {
  for (const [name, get] of Object.entries(fields))
    if (chosen[name] && ![].concat(get(s)).includes(chosen[name])) return false;
  return !chosen.differs || differs(s);
}
function list() {
  const rows = S.filter(keep);
  document.getElementById("shown").textContent = `${rows.length} of ${S.length} sessions` + (rows.length > LIMIT ? ` (the first ${LIMIT} listed: filter to see others)` : "");
  document.querySelector("#list tbody").innerHTML = rows.slice(0, LIMIT).map(s =>
    `<tr data-k="${esc(s.k)}"><td>${esc(s.s)}</td><td>${esc(runs[s.r])}</td><td>${esc(s.c)}</td><td>${s.e}</td><td>${esc(s.p)}</td><td>${esc(s.m.join(" + "))}</td><td>${esc(s.o)}</td><td>${s.a}</td></tr>`).join("");
}
function dialogue(s) {
  if (!s) return '<div class="col"><p class="note">not played in this run</p></div>';
  const unanswered = {}; for (const q of s.u) (unanswered[q[0]] = unanswered[q[0]] || []).push(q);
  let assistant = 0;
  const turns = s.d.map(([role, text, verdict, revealed]) => {
    let tags = "";
    if (role === "a") {
      assistant += 1;
      if (verdict) tags += `<div class="tag">judge: ${esc(verdict)}</div>`;
      for (const q of unanswered[assistant] || []) tags += `<div class="tag">revealed nothing: "${esc(q[1])}" (closest: ${esc(q[2] || "none")}, ${q[3]})</div>`;
    } else if (revealed.length) tags += `<div class="tag">revealed: ${esc(revealed.join(", "))}</div>`;
    return `<div class="turn ${role}"><b>${role === "u" ? "user" : "assistant"}</b>${tags}\\n${esc(text)}</div>`;
  }).join("");
  return `<div class="col"><h3>${esc(runs[s.r])}: ${esc(s.s)} (${esc(s.c)}, epoch ${s.e})</h3>
<p class="tag">task ${esc(s.t)}; ${esc(s.o)}${s.st ? " at turn " + s.st : ""}; ${s.a} asks; history ${s.h} tokens ${esc(JSON.stringify(s.hi))}${s.err ? "; error: " + esc(s.err) : ""}</p>${turns}</div>`;
}
document.querySelector("#list tbody").onclick = e => {
  const tr = e.target.closest("tr"); if (!tr) return;
  const both = byKey[tr.dataset.k];
  document.getElementById("dialogues").innerHTML = runs.map((_, i) => dialogue(both[i])).join("");
};
list();
const open = location.hash.startsWith("#open=") ? decodeURIComponent(location.hash.slice(6)) : "";
if (open && byKey[open]) { const b = byKey[open]; document.getElementById("dialogues").innerHTML = runs.map((_, i) => dialogue(b[i])).join(""); }
})();
</script>"""
