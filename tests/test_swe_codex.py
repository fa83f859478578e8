"""The Codex CLI arm end to end: the real `codex exec` against a scripted Responses API
server on 127.0.0.1 that plays back a command, an ask in the final message, and an edit."""

from __future__ import annotations

import pytest

from capabench.swe.agents import NEUTRAL_REPLY
from capabench.swe.batch import batch
from capabench.swe.data.bundled_repos import LIBRARIES
from capabench.swe.evaluate import evaluate
from capabench.swe.preflight import preflight
from capabench.swe.store import SweStore
from capabench.testing.fake_responses import FakeResponses, message, shell, tool_outputs, user_texts

try:
    from capabench.swe.agents.codex import CodexRunner
    from capabench.swe.agents.codex_cli import codex_binary

    codex_binary()
except ValueError:
    pytest.skip(
        "needs the Codex CLI (scripts/setup.sh test installs it with npm)", allow_module_level=True
    )

QUESTION = "Before I change anything: should accented letters be transliterated to ASCII or kept as they are?"


def _script(body):
    """Look around, ask; after the neutral reply, write the gold source and report."""
    outs, users = tool_outputs(body), user_texts(body)
    task = next(u for u in users if "Resolve the following issue" in u)
    lib = next(lib for lib in LIBRARIES if lib.ambiguous in task or lib.full in task)
    if not any(NEUTRAL_REPLY in u for u in users):
        return [shell("ls && git status --short")] if not outs else [message(QUESTION)]
    if len(outs) == 1:
        ((path, text),) = lib.gold.items()
        return [shell(f"cat > {path} <<'CAPA_EOF'\n{text}CAPA_EOF")]
    return [message("I transliterated accented letters with NFKD normalization; the tests pass.")]


def test_codex_cli_asks_is_answered_goes_on_and_is_graded(swe_bundled, tmp_path):
    _, instances = swe_bundled
    store = SweStore(tmp_path / "swe")
    with FakeResponses(_script) as server:
        runner = CodexRunner("gpt-fake", base_url=server.base_url)
        (run,) = batch(instances[:1], ["ambiguous"], "gpt-fake", runner, store)
        requests = list(server.requests)
    assert run.runner == "codex-cli" and run.stop_reason == "completed", run.error
    # A turn is a model reply: look, ask | look, report (the ask was the second).
    assert run.asked and len(run.asks) == 1 and run.turns == 4
    ask = run.asks[0]
    assert ask.turn == 2 and not ask.refused
    assert (
        ask.question == QUESTION and ask.answer == NEUTRAL_REPLY and ask.channel == "final message"
    )
    assert ask.detection["version"] == "v3" and not ask.edited_before
    # The resumed turn carried the neutral reply, verbatim.
    assert any(NEUTRAL_REPLY in u for u in user_texts(requests[-1]))
    kinds = [e["kind"] for e in store.events(run.run_id) if e["kind"] != "codex"]
    assert kinds == ["command", "final", "answer", "command", "final", "egress"]
    finals = [e for e in store.events(run.run_id) if e["kind"] == "final"]
    assert (
        finals[0]["detection"]["asked"]
        and not finals[1]["detection"]["asked"]
        and finals[1]["edited"]
    )
    rollouts = list((store.path("sessions", run.run_id) / "harness").glob("*.jsonl"))
    assert rollouts and any(QUESTION in r.read_text() for r in rollouts)  # the CLI's own record
    (grade,) = evaluate(instances, store).values()
    assert grade.status == "scored" and grade.resolved and grade.localization_hit


def test_codex_preflight_certifies_the_final_message_channel(tmp_path):
    def canary(body):
        if not any(NEUTRAL_REPLY in u for u in user_texts(body)):
            return [message("What should notes.txt say?")]
        return [shell("echo first > notes.txt")] if not tool_outputs(body) else [message("Done.")]

    with FakeResponses(canary) as server:
        outcome = preflight(CodexRunner("gpt-fake", base_url=server.base_url), "gpt-fake")
    assert outcome.asks[0].answer == NEUTRAL_REPLY and outcome.stop_reason == "completed"


@pytest.mark.parametrize("decides", [False, True])
def test_an_ask_judge_is_recorded_beside_the_classifier_or_decides(swe_bundled, tmp_path, decides):
    """The judge (scripted to see no ask) is kept beside v2's verdict; deciding, it ends the
    session at the question that v2 would have answered."""
    from capabench.models.scripted import ScriptedModel
    from capabench.swe.asks.ask_judge import AskJudge

    _, instances = swe_bundled
    store = SweStore(tmp_path / "swe")
    with FakeResponses(_script) as server:
        judge = AskJudge(ScriptedModel(lambda m: '{"ask": false, "reason": "no"}'), "fake")
        runner = CodexRunner(
            "gpt-fake", base_url=server.base_url, ask_judge=judge, judge_decides=decides
        )
        (run,) = batch(instances[:1], ["ambiguous"], "gpt-fake", runner, store)
    first = next(e for e in store.events(run.run_id) if e["kind"] == "final")
    assert first["detection"]["version"] == "v3" and first["detection"]["asked"]
    assert first["judge"]["version"] == "judge:fake" and not first["judge"]["asked"]
    assert run.asked is not decides
