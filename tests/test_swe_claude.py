"""The Claude arm end to end: the real Claude Agent SDK (its bundled Claude Code CLI) against
a scripted Anthropic Messages server on 127.0.0.1: a command, an AskUserQuestion call, an
edit that needs permission, and a final report."""

from __future__ import annotations

import json

import pytest

pytest.importorskip(
    "claude_agent_sdk", reason="needs the claude extra (scripts/setup.sh test installs it)"
)

from capabench.swe.agents import MAX_ASKS
from capabench.swe.agents.claude import ClaudeRunner
from capabench.swe.batch import batch
from capabench.swe.data.bundled_repos import LIBRARIES
from capabench.swe.evaluate import evaluate
from capabench.swe.preflight import preflight
from capabench.swe.store import SweStore
from capabench.testing.fake_anthropic import FakeAnthropic, text, tool, tool_results, user_texts

QUESTION = {
    "question": "Should accented letters be transliterated or kept?",
    "header": "Accents",
    "multiSelect": False,
    "options": [
        {"label": "Transliterate", "description": "é becomes e"},
        {"label": "Keep", "description": "é stays"},
    ],
}


def _script(asks: int = 1):
    def play(body):
        done = tool_results(body)
        task = next(u for u in user_texts(body) if "Resolve the following issue" in u)
        lib = next(lib for lib in LIBRARIES if lib.ambiguous in task or lib.full in task)
        if not done:
            return [
                text("Let me look around."),
                tool("Bash", command="ls && git status --short", description="look"),
            ]
        if len(done) <= asks:
            return [tool("AskUserQuestion", questions=[QUESTION])]
        if len(done) == asks + 1:
            ((path, source),) = lib.gold.items()
            return [
                tool(
                    "Bash",
                    command=f"cat > {path} <<'CAPA_EOF'\n{source}CAPA_EOF",
                    description="fix",
                )
            ]
        return [text("Accented letters are now transliterated; the tests pass.")]

    return play


def test_claude_sdk_asks_is_answered_edits_and_is_graded(swe_bundled, tmp_path):
    _, instances = swe_bundled
    store = SweStore(tmp_path / "swe")
    with FakeAnthropic(_script()) as server:
        (run,) = batch(
            instances[:1],
            ["ambiguous"],
            "claude-fake",
            ClaudeRunner("claude-fake", base_url=server.base_url),
            store,
        )
    assert run.runner == "claude-agent-sdk" and run.stop_reason == "completed", run.error
    assert "AskUserQuestion" in run.tools and "Bash" in run.tools  # the live roster
    (ask,) = run.asks
    assert ask.channel == "AskUserQuestion" and ask.question == QUESTION["question"]
    assert json.loads(ask.answer) == {QUESTION["question"]: "Transliterate"}  # the first option
    events = store.events(run.run_id)
    assert [e["kind"] for e in events if e["kind"] in ("ask", "answer", "permission")][:3] == [
        "ask",
        "answer",
        "permission",
    ]
    assert (
        events[-1]["kind"] == "permission_prompts" and "Bash" in events[-1]["tools"]
    )  # the edit asked
    (grade,) = evaluate(instances, store).values()
    assert grade.status == "scored" and grade.resolved and grade.localization_hit


def test_an_ask_over_the_cap_ends_the_claude_session(swe_bundled, tmp_path):
    _, instances = swe_bundled
    store = SweStore(tmp_path / "swe")
    with FakeAnthropic(_script(asks=MAX_ASKS + 1)) as server:
        (run,) = batch(
            instances[:1],
            ["full"],
            "claude-fake",
            ClaudeRunner("claude-fake", base_url=server.base_url),
            store,
        )
    assert (
        run.stop_reason == "max_ask_rounds"
        and len(run.asks) == MAX_ASKS + 1
        and run.asks[-1].answer is None
    )


def test_claude_preflight_certifies_ask_user_question(tmp_path):
    def canary(body):
        done = tool_results(body)
        if not done:
            return [tool("AskUserQuestion", questions=[QUESTION])]
        return (
            [tool("Bash", command="echo first > notes.txt", description="write")]
            if len(done) == 1
            else [text("Done.")]
        )

    with FakeAnthropic(canary) as server:
        outcome = preflight(ClaudeRunner("claude-fake", base_url=server.base_url), "claude-fake")
    assert outcome.asks[0].answer and outcome.stop_reason == "completed"
