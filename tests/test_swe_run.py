"""Sessions of the ask-or-guess arm with the built-in agent: the store, resume, grading."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess

import pytest

from capabench.models import InfraError
from capabench.models.scripted import ScriptedModel
from capabench.swe.agents import MAX_ASKS, NEUTRAL_REPLY
from capabench.swe.agents.builtin import BuiltinAgent
from capabench.swe.batch import batch, pending
from capabench.swe.data.bundled_repos import LIBRARIES
from capabench.swe.evaluate import evaluate
from capabench.swe.store import SweStore
from capabench.swe.swe_records import Budget
from capabench.swe.views.dashboard import build, rate
from capabench.testing.browser import dump_dom


@pytest.fixture(scope="module")
def instances(swe_bundled):
    return swe_bundled[1]


def _fixer(asks: int = 1):
    """A scripted agent: asks `asks` times, looks around, writes the gold source, submits."""

    def reply(messages):
        task = messages[1].content
        lib = next(lib for lib in LIBRARIES if lib.ambiguous in task or lib.full in task)
        done = sum(m.role == "assistant" for m in messages)
        if done < asks:
            return f"Before I change anything:\n```ask_user\nQuestion {done + 1}: which behaviour?\n```"
        if done == asks:
            return "Let me look.\n```bash\nls && git status --short\n```"
        if done == asks + 1:
            ((path, text),) = lib.gold.items()
            return f"```bash\ncat > {path} <<'CAPA_EOF'\n{text}CAPA_EOF\n```"
        return "Done.\n```submit\n```"

    return reply


def test_builtin_agent_asks_edits_and_is_graded(instances, tmp_path):
    store = SweStore(tmp_path / "swe")
    model = ScriptedModel(_fixer(asks=1))
    runs = batch(instances[:2], ["ambiguous", "full"], "scripted", BuiltinAgent(model), store)
    assert len(runs) == 4 and all(r.stop_reason == "completed" for r in runs)
    first = runs[0]
    assert first.asked and first.asks[0].answer == NEUTRAL_REPLY and not first.asks[0].edited_before
    assert first.asks[0].question.startswith("Question 1") and first.patch_bytes > 0
    # The agent saw the reply, then the command's output.
    assert any(m.content == NEUTRAL_REPLY for m in model.calls[1])
    assert "slugkit" in model.calls[2][-1].content and "[exit code 0]" in model.calls[2][-1].content
    events = store.events(first.run_id)
    assert [e["kind"] for e in events][:3] == ["model", "ask", "answer"]
    assert store.manifest(first.run_id)["prompt_sha256"] == first.prompt_sha256
    assert (
        "Before I change anything"
        in store.path("transcripts", first.run_id).joinpath("agent.txt").read_text()
    )
    grades = evaluate(instances, store)
    assert len(grades) == 4 and all(g.status == "scored" and g.resolved for g in grades.values())
    assert all(g.localization_hit for g in grades.values())
    assert evaluate(instances, store) == {}  # graded once; --force regrades
    assert len(evaluate(instances, store, force=True)) == 4


def test_builtin_sessions_are_reproducible_across_checkouts(instances, tmp_path):
    """Each session gets a fresh temporary checkout; nothing of it may leak into what the
    model is sent, or a temperature-0 session can't be reproduced or its calls cached."""
    model = ScriptedModel(_fixer(asks=1))
    for k in range(2):
        batch(instances[:1], ["full"], "scripted", BuiltinAgent(model), SweStore(tmp_path / str(k)))
    half = len(model.calls) // 2
    assert half and model.calls[:half] == model.calls[half:]


def test_asks_over_the_cap_end_the_session(instances, tmp_path):
    store = SweStore(tmp_path / "swe")
    (run,) = batch(
        instances[:1], ["ambiguous"], "scripted", BuiltinAgent(ScriptedModel(_fixer(asks=9))), store
    )
    assert run.stop_reason == "max_ask_rounds" and len(run.asks) == MAX_ASKS + 1
    assert [a.answer for a in run.asks] == [NEUTRAL_REPLY] * MAX_ASKS + [None]
    (grade,) = evaluate(instances, store).values()
    assert (
        grade.status == "scored"
        and grade.resolved is False
        and grade.detail == "empty source patch"
    )


def test_batches_resume_by_instance_condition_and_model(instances, tmp_path):
    store = SweStore(tmp_path / "swe")
    agent = BuiltinAgent(ScriptedModel(_fixer(asks=0)))
    batch(instances, ["ambiguous", "full"], "scripted", agent, store, count=2)
    assert len(store.summaries()) == 4
    left = pending(instances, ["ambiguous", "full"], "scripted", store)
    assert [i.instance_id for i, _ in left[::2]] == [i.instance_id for i in instances[2:]]
    # Another model shares nothing; a rerun of the same batch skips what is done.
    assert len(pending(instances, ["ambiguous"], "other", store, count=3)) == 3
    batch(instances, ["ambiguous", "full"], "scripted", agent, store, count=2)
    keys = [(s.instance_id, s.condition) for s in store.summaries()]
    assert len(keys) == 8 == len(set(keys))
    # A run summary is write-once.
    first = store.summaries()[0]
    with pytest.raises(FileExistsError):
        store.write_once(store.path("runs", first.run_id), "{}")
    assert json.loads(store.path("runs", first.run_id).read_text())["run_id"] == first.run_id


def test_a_harness_bug_raises_once_what_finished_is_stored(instances, tmp_path):
    """As in the CAPA runner: a runner that raises is a bug, not a session's error."""
    store = SweStore(tmp_path / "swe")
    fix = _fixer(asks=0)

    def buggy(messages):
        if instances[1].original_issue in messages[1].content:
            raise RuntimeError("harness bug")
        return fix(messages)

    with pytest.raises(RuntimeError, match="harness bug"):
        batch(instances[:2], ["full"], "scripted", BuiltinAgent(ScriptedModel(buggy)), store)
    assert [s.instance_id for s in store.summaries()] == [instances[0].instance_id]
    left = pending(instances[:2], ["full"], "scripted", store)
    assert [i.instance_id for i, _ in left] == [instances[1].instance_id]


def test_an_endpoint_past_its_retries_is_recorded_and_retried(instances, tmp_path):
    store = SweStore(tmp_path / "swe")

    def down(messages):
        raise InfraError("endpoint down")

    (run,) = batch(instances[:1], ["full"], "scripted", BuiltinAgent(ScriptedModel(down)), store)
    assert run.stop_reason == "error" and "endpoint down" in run.error and run.retryable
    assert pending(instances[:1], ["full"], "scripted", store)  # picked up again next time


def test_a_run_summary_stored_flat_before_the_shared_facts_still_loads(instances, tmp_path):
    """RunSummary is SessionFacts plus which session it was: its JSON stays flat, so the
    run stores written before still load (and a new summary has the same fields)."""
    store = SweStore(tmp_path / "swe")
    (run,) = batch(
        instances[:1], ["full"], "scripted", BuiltinAgent(ScriptedModel(_fixer(0))), store
    )
    old = {  # a summary as the store wrote it before, every field at the top
        "run_id": "r0",
        "instance_id": run.instance_id,
        "condition": "full",
        "model": "scripted",
        "runner": "builtin",
        "runner_version": "",
        "repo": run.repo,
        "base_commit": run.base_commit,
        "prompt_sha256": run.prompt_sha256,
        "started": run.started,
        "duration_s": 1.0,
        "stop_reason": "completed",
        "asked": False,
        "asks": [],
        "turns": 2,
        "input_tokens": 0,
        "output_tokens": 0,
        "tools": ["bash"],
        "error": "",
        "patch_bytes": 10,
        "reply": "",
        "capabench_version": "0",
        "setup": None,
        "warnings": [],
    }
    assert set(json.loads(run.model_dump_json())) == set(old)
    store.write_once(store.path("runs", "r0"), json.dumps(old))
    loaded = {s.run_id: s for s in store.summaries()}["r0"]
    assert loaded.turns == 2 and loaded.tools == ["bash"] and not loaded.retryable


@pytest.mark.skipif(
    shutil.which("chromium") is None, reason="needs chromium (scripts/setup.sh test installs it)"
)
def test_dashboard_shows_arms_runs_and_verified_prompts_in_chromium(instances, tmp_path):
    store = SweStore(tmp_path / "swe")
    batch(
        instances[:2],
        ["ambiguous", "full"],
        "scripted",
        BuiltinAgent(ScriptedModel(_fixer(asks=1))),
        store,
    )
    batch(instances[:1], ["ambiguous"], "other", BuiltinAgent(ScriptedModel(_fixer(asks=0))), store)
    evaluate(instances, store)
    page = build(store, instances, tmp_path / "index.html")
    raw = page.read_text()
    assert "/tmp/capabench-" not in raw and os.path.expanduser("~") + "/" not in raw  # redacted
    dom = dump_dom(page, tmp_path / "p")
    # One column per arm, never pooled; small counts as fractions.
    assert "<th>scripted<br>" in dom and "<th>other<br>" in dom
    assert "<td>2/2</td>" in dom and "<td>0/1</td>" in dom
    assert len(re.findall(r'<tr class="run" data-i="\d', dom)) == 5 and "✓ VERIFIED" in dom
    assert 'class="ask"' in dom and "agent asks:" in dom and NEUTRAL_REPLY in dom
    assert "resolved" in dom and "slugkit/__init__.py" in dom  # the patch beside its grade
    # Both forms of the issue, once per instance, beside the run; filters by repo and difficulty.
    assert 'class="forms"' in dom and "(the agent saw only the ambiguous one)" in dom
    data = json.loads(raw.split("const DATA = ", 1)[1].split(";\n", 1)[0])
    assert set(data["keys"]) == {i.instance_id for i in instances[:2]}
    assert data["keys"][instances[0].instance_id]["full"] == instances[0].original_issue
    assert not any({"ambiguous", "full"} & set(run) for run in data["runs"])
    assert (
        '<select id="f-repo"><option value="">all</option><option>capabench/csvlite</option>' in dom
    )


def test_rates_are_fractions_until_the_denominator_is_large():
    assert rate(1, 31) == "3.2% (1/31)" and rate(1, 19) == "1/19" and rate(0, 0) == "n/a"


def test_locate_and_sanity_read_the_store(instances, tmp_path):
    from typer.testing import CliRunner

    from capabench.cli import app

    store = SweStore(tmp_path / "swe")
    (run,) = batch(
        instances[:1], ["ambiguous"], "scripted", BuiltinAgent(ScriptedModel(_fixer(asks=1))), store
    )
    cli = CliRunner()
    located = cli.invoke(app, ["swe", "locate", "slugkit", "--runs", str(store.root), "--json"])
    (entry,) = json.loads(located.stdout)
    assert entry["run_id"] == run.run_id and entry["grade"] == "not_evaluated"
    assert entry["artifacts"]["evaluation"] is None and entry["artifacts"]["patch"].endswith(
        ".patch"
    )
    not_graded = cli.invoke(app, ["swe", "sanity", "--runs", str(store.root)])
    assert not_graded.exit_code == 1 and "not evaluated yet" in not_graded.stdout
    evaluate(instances, store)
    assert cli.invoke(app, ["swe", "sanity", "--runs", str(store.root)]).exit_code == 0
    # A crashed session leaves a manifest without a summary; a tampered patch is caught.
    store.write_once(store.path("manifests", "crashed-run"), "{}")
    store.path("patches", run.run_id).write_text("diff --git a/x b/x\n")
    bad = cli.invoke(app, ["swe", "sanity", "--runs", str(store.root)])
    assert bad.exit_code == 1 and "crashed-run" in bad.stdout and "the summary says" in bad.stdout
    assert cli.invoke(app, ["swe", "locate", "nothing", "--runs", str(store.root)]).exit_code == 2


def test_preflight_certifies_the_ask_channel_or_skips_the_batch_as_a_finding(instances, tmp_path):
    from typer.testing import CliRunner

    from capabench.cli import app
    from capabench.swe.preflight import PreflightFailed, preflight

    asker = ScriptedModel(
        [
            "```ask_user\nWhat should notes.txt say?\n```",
            "```bash\necho first > notes.txt\n```",
            "```submit\n```",
        ]
    )
    outcome = preflight(BuiltinAgent(asker), "scripted")
    assert outcome.asks[0].answer == NEUTRAL_REPLY and outcome.turns == 3
    with pytest.raises(PreflightFailed, match="no ask was observed"):
        preflight(BuiltinAgent(ScriptedModel(["```submit\n```"])), "scripted")
    # It went on (replies after the ask) and then stopped acting: said as that, not as
    # "did not continue" (issue 26).
    with pytest.raises(PreflightFailed, match=r"went on after the answered ask.*no_action"):
        preflight(
            BuiltinAgent(ScriptedModel(["```ask_user\nWhat?\n```", "oops"] + ["no action"] * 3)),
            "x",
        )
    with pytest.raises(PreflightFailed, match="did not continue after the answered ask"):
        asks_once = ScriptedModel(["```ask_user\nWhat?\n```"] * 2)
        preflight(BuiltinAgent(asks_once, budget=Budget(turns=1)), "x")
    replies = tmp_path / "replies.json"
    replies.write_text(json.dumps(["```submit\n```"] * 4))
    args = [
        "swe",
        "batch",
        "--model",
        f"scripted:{replies}",
        "--condition",
        "full",
        "--count",
        "1",
        "--runs",
        str(tmp_path / "swe"),
    ]
    stopped = CliRunner().invoke(app, args)
    # A model that can't be certified is a finding: said, recorded for the dashboard, exit 0.
    store = SweStore(tmp_path / "swe")
    assert (
        stopped.exit_code == 0
        and "could not be certified" in stopped.output
        and not store.summaries()
    )
    assert store.preflights() == [
        {
            "model": f"scripted:{replies}",
            "passed": False,
            "finding": f"scripted:{replies}: no ask was observed and answered (completed)",
        }
    ]
    ran = CliRunner().invoke(app, [*args, "--skip-preflight"])
    assert ran.exit_code == 0, ran.stderr
    assert len(SweStore(tmp_path / "swe").summaries()) == 1


def test_a_killed_batch_resumes_without_redoing_or_losing_a_run(swe_bundled, tmp_path):
    import signal
    import sys
    import time

    replies = tmp_path / "replies.json"
    replies.write_text(
        json.dumps(["```bash\nsleep 1 && echo hi > note.txt\n```", "```submit\n```"] * 12)
    )
    runs = tmp_path / "swe"
    cli = [
        sys.executable,
        "-m",
        "capabench.cli",
        "swe",
        "batch",
        "--model",
        f"scripted:{replies}",
        "--condition",
        "full",
        "--skip-preflight",
        "--runs",
        str(runs),
        "--dataset",
        str(swe_bundled[0]),
    ]
    env = {**os.environ, "CAPABENCH_CACHE": os.environ["CAPABENCH_CACHE"]}
    proc = subprocess.Popen(cli, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and len(list((runs / "runs").glob("*.json"))) < 2:
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    before = {p.name: p.read_text() for p in (runs / "runs").glob("*.json")}
    assert 2 <= len(before) < 6
    subprocess.run(cli, env=env, check=True, capture_output=True, timeout=300)
    after = SweStore(runs).summaries()
    assert sorted(s.instance_id for s in after) == sorted(
        i.instance_id for i in swe_bundled[1]
    )  # each once
    assert all(
        (runs / "runs" / name).read_text() == text for name, text in before.items()
    )  # kept as written


def test_structured_actions_decode_every_reply_as_a_json_action(tmp_path):
    """Local models act under a JSON schema: the same ask round-trip as JSON objects, the
    schema handed to the model on every call, and the decoding recorded."""
    from capabench.swe.agents.builtin import ACTION_SCHEMA
    from capabench.swe.preflight import preflight

    model = ScriptedModel(
        [
            '{"action": "ask_user", "text": "What should notes.txt say?"}',
            '{"action": "bash", "text": "echo first > notes.txt"}',
            "not json",
            '{"action": "submit", "text": ""}',
        ]
    )
    outcome = preflight(BuiltinAgent(model, structured=True), "scripted")
    assert (
        outcome.asks[0].question == "What should notes.txt say?"
        and outcome.stop_reason == "completed"
    )
    assert model.schemas == [ACTION_SCHEMA] * 4 and "structured" in outcome.runner_version
    from capabench.models import ModelOptions
    from capabench.swe.agents import RunnerOptions, make_runner

    chat = ModelOptions(base_url="http://127.0.0.1:9/v1", api_key="k")
    runner = make_runner("openai/x", RunnerOptions(model=chat))
    assert (
        runner.structured is False
    )  # hosted and OpenAI-compatible models keep free text unless asked
