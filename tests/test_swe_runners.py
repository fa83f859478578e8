"""Agent runners as an extension point: the registry by model prefix, the session recorder
every runner shares, and a new runner (one class and its registration) played through the
CLI from preflight to stored run."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest
from typer.testing import CliRunner

from capabench.cli import app
from capabench.models import ModelOptions
from capabench.swe.agents import (
    MAX_ASKS,
    NEUTRAL_REPLY,
    RunnerOptions,
    SessionRecorder,
    make_runner,
    register,
    registration,
)
from capabench.swe.agents import registry as runner_registry
from capabench.swe.store import SweStore
from capabench.swe.swe_records import AgentSetup, Budget, SessionOutcome

QUESTION = "Which spelling should notes.txt use?"


class ScriptedRunner:
    """A whole runner: asks once through the recorder, writes what it was told, reports."""

    name = "scripted-runner"

    def __init__(self, model: str, budget: Budget, structured: bool | None) -> None:
        self.model, self.budget, self.structured = model, budget, structured

    @classmethod
    def from_options(cls, model: str, options: RunnerOptions, budget: Budget) -> ScriptedRunner:
        return cls(model, budget, options.structured)

    def run(self, task, ws) -> SessionOutcome:
        out = SessionOutcome(
            stop_reason="completed",
            setup=AgentSetup(budget=self.budget),
            runner_version=f"scripted; structured={self.structured}",
        )
        record = SessionRecorder(ws, out)
        out.turns = 1
        record.model(QUESTION)
        answer = record.ask(QUESTION, turn=1, channel="scripted ask")
        out.turns = 2
        (ws.path / "notes.txt").write_text(f"{answer}\n")
        record.command("write notes.txt", exit=0, output="")
        record.final("Wrote notes.txt.")
        return out


@pytest.fixture
def scripted_runner():
    """ScriptedRunner registered for fake-* models, for this test only."""
    with runner_registry.REGISTRY.scoped():
        register("fake-", turns=6, preflight_turns=3, takes=("structured",))(ScriptedRunner)
        yield ScriptedRunner


def test_a_registered_runner_plays_a_batch_through_the_cli(swe_bundled, scripted_runner, tmp_path):
    dataset, instances = swe_bundled
    runs = tmp_path / "swe"
    args = [
        "swe",
        "batch",
        "--model",
        "fake-x",
        "--dataset",
        str(dataset),
        "--count",
        "1",
        "--runs",
        str(runs),
        "--steps",
        "5",
        "--structured-actions",
    ]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "ask channel was observed" in result.output  # its preflight passed, by the same path
    store = SweStore(runs)
    assert store.preflights() == [{"model": "fake-x", "passed": True, "asks": 1, "turns": 2}]
    summaries = store.summaries()
    assert sorted(s.condition for s in summaries) == ["ambiguous", "full"]
    for s in summaries:
        assert s.instance_id == instances[0].instance_id and s.stop_reason == "completed"
        assert s.runner == "scripted-runner" == store.manifest(s.run_id)["runner"]
        # The options reached it through the registry: the turn budget and its own option.
        assert s.setup.budget.turns == 5 and s.runner_version == "scripted; structured=True"
        (ask,) = s.asks
        assert ask.answer == NEUTRAL_REPLY and ask.turn == 1 and not ask.edited_before
        assert "notes.txt" in store.patch(s.run_id) and NEUTRAL_REPLY in store.patch(s.run_id)
        kinds = [e["kind"] for e in store.events(s.run_id)]
        assert kinds == ["model", "ask", "answer", "command", "final"]
        transcript = store.path("transcripts", s.run_id) / "agent.txt"
        assert transcript.read_text() == f"{QUESTION}\n\nWrote notes.txt."
    # An option only another runner reads is refused by name, before anything runs.
    judged = CliRunner().invoke(app, [*args, "--ask-judge-model", "scripted:x.json"])
    assert judged.exit_code == 2 and "applies to the Codex arm" in judged.output


def test_the_longest_registered_prefix_picks_the_runner(scripted_runner):
    assert registration("fake-x").name == "scripted-runner"
    assert registration("gpt-5.5").name == registration("codex-mini").name == "codex-cli"
    assert registration("claude-sonnet").name == "claude-agent-sdk"
    for model in ("openai/qwen", "local", "scripted:replies.json", "fake"):
        assert registration(model).name == "builtin"  # "" plays every other slug
    # The budget: the run's turns, else the registered default (the canary's for a preflight).
    assert make_runner("fake-x").budget == Budget(turns=6)
    assert make_runner("fake-x", preflight=True).budget.turns == 3
    assert make_runner("fake-x", RunnerOptions(turns=9, wall_s=5)).budget == Budget(
        turns=9, wall_s=5
    )
    chat = ModelOptions(base_url="http://127.0.0.1:9/v1", api_key="k")
    builtin = make_runner("openai/x", RunnerOptions(model=chat, sandbox=False))
    assert builtin.name == "builtin" and builtin.budget.turns == 30 and not builtin.structured


def test_the_recorder_caps_answered_asks_and_not_refused_ones():
    ws = SimpleNamespace(fingerprint=lambda: "same")  # all the recorder reads of a workspace
    out = SessionOutcome(stop_reason="completed")
    record = SessionRecorder(ws, out)  # type: ignore[arg-type]
    record.refused_ask(
        "refused?",
        turn=1,
        channel="tool (refused)",
        edited_before=False,
        detection={},
        refusal="not available",
    )
    replies = [record.ask(f"q{n}?", turn=n + 2, channel="c") for n in range(MAX_ASKS + 1)]
    assert replies == [NEUTRAL_REPLY] * MAX_ASKS + [None] and out.stop_reason == "max_ask_rounds"
    assert [a.answer for a in out.asks] == [None] + [NEUTRAL_REPLY] * MAX_ASKS + [None]
    assert out.asks[0].refused and not any(a.refused for a in out.asks[1:])
    # A structured reply is stored as given and shown as said; a final message is its own ask.
    out2 = SessionOutcome(stop_reason="completed")
    record2 = SessionRecorder(ws, out2)  # type: ignore[arg-type]
    record2.final("Which one?", edited=False)
    assert (
        record2.ask(
            "Which one?",
            turn=1,
            channel="final message",
            reply='{"q": "a"}',
            said="q: a",
            in_stream=True,
        )
        == '{"q": "a"}'
    )
    stored = [json.loads(json.dumps(e)) for e in out2.events]  # as events.jsonl keeps them
    assert [(e["kind"], e["text"]) for e in stored] == [("final", "Which one?"), ("answer", "q: a")]
    assert all(isinstance(e["t"], float) for e in stored)


def test_the_codex_cli_is_found_by_setting_on_path_or_in_the_tools_folder(tmp_path, monkeypatch):
    from capabench.swe.agents.codex_cli import codex_binary

    def executable(path):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("#!/bin/sh\n")
        path.chmod(0o755)
        return str(path)

    for name in ("CAPABENCH_CODEX", "CAPABENCH_TOOLS"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    with pytest.raises(ValueError, match=r"not installed.*home/\.cache/capabench/tools"):
        codex_binary()
    installed = executable(tmp_path / "home/.cache/capabench/tools/codex/node_modules/.bin/codex")
    assert codex_binary() == installed  # where scripts/setup.sh test puts it
    monkeypatch.setenv("CAPABENCH_TOOLS", str(tmp_path / "tools"))
    moved = executable(tmp_path / "tools/codex/node_modules/.bin/codex")
    assert codex_binary() == moved
    on_path = executable(tmp_path / "bin/codex")
    assert codex_binary() == on_path  # PATH before the tools folder
    monkeypatch.setenv("CAPABENCH_CODEX", "/opt/codex")
    assert codex_binary() == "/opt/codex"  # the setting before everything
