"""The agents as people run them, contained (issue 17, points 5 and 6), each against the
project's fake servers: Claude Code's own system prompt, Codex's refused ask tool counted as
an ask, a model on fallback metadata flagged, the tool roster offered recorded, one turn
definition and one budget for every arm, the CLI's stderr kept, and no agent reaching a
file outside its checkout, a host file, or the host's environment."""

from __future__ import annotations

import importlib.util
import json
import secrets
import shutil
import time
from pathlib import Path

import pytest

from capabench.models.scripted import ScriptedModel
from capabench.swe import containment
from capabench.swe.agents import NEUTRAL_REPLY
from capabench.swe.agents.builtin import BuiltinAgent
from capabench.swe.agents.codex_cli import codex_binary
from capabench.swe.agents.workspace import Workspace
from capabench.swe.batch import batch
from capabench.swe.git import git
from capabench.swe.preflight import preflight
from capabench.swe.store import SweStore
from capabench.swe.swe_records import AgentTask, Budget
from capabench.swe.views.audit import sanity
from capabench.swe.views.dashboard import build
from capabench.testing.browser import dump_dom
from conftest import requires_bwrap

pytestmark = requires_bwrap  # every agent runs contained by default


def _has_codex() -> bool:
    try:
        return bool(codex_binary())
    except ValueError:
        return False


requires_codex = pytest.mark.skipif(
    not _has_codex(), reason="needs the Codex CLI (scripts/setup.sh test installs it with npm)"
)
requires_claude = pytest.mark.skipif(
    importlib.util.find_spec("claude_agent_sdk") is None,
    reason="needs the claude extra (scripts/setup.sh test installs it)",
)
TASK = "Resolve the following issue in this repository:\n\nThe greeting is wrong."


@pytest.fixture
def repo(tmp_path) -> tuple[Path, str]:
    """A one-commit repository: (its path, the commit)."""
    path = tmp_path / "origin"
    path.mkdir()
    git("init", "--quiet", "--initial-branch=main", cwd=path)
    (path / "README.md").write_text("# hello\n")
    git("add", "-A", cwd=path)
    git("commit", "--quiet", "-m", "start", cwd=path)
    return path, git("rev-parse", "HEAD", cwd=path).strip()


def _task(commit: str) -> AgentTask:
    return AgentTask(
        instance_id="fidelity",
        repo="capabench/fidelity",
        base_commit=commit,
        condition="full",
        prompt=TASK,
        prompt_sha256="",
    )


# --- Claude: the system prompt ---------------------------------------------------------------


def _system_text(body: dict) -> str:
    system = body.get("system") or []
    return system if isinstance(system, str) else "".join(b.get("text", "") for b in system)


@requires_claude
@pytest.mark.parametrize("choice", ["preset", "bare"])
def test_claude_code_gets_its_own_system_prompt_by_default(choice, repo, tmp_path):
    from capabench.swe.agents.claude import ClaudeRunner
    from capabench.testing.fake_anthropic import FakeAnthropic, is_agent_turn, text

    with FakeAnthropic(lambda body: [text("Done.")]) as server, Workspace(*repo) as ws:
        kwargs = {} if choice == "preset" else {"system_prompt": "bare"}
        outcome = ClaudeRunner("claude-fake", base_url=server.base_url, **kwargs).run(
            _task(repo[1]), ws
        )
        sent = [b for b in server.requests if is_agent_turn(b)]
    assert outcome.stop_reason == "completed", outcome.error
    system = _system_text(sent[0])
    if choice == "preset":  # Claude Code's prompt: thousands of characters beyond the SDK's line
        assert outcome.setup.system_prompt == "claude_code preset" and len(system) > 2000
    else:  # the SDK's bare default: a billing header and one line
        assert outcome.setup.system_prompt == "bare" and len(system) < 300
        assert "Claude Agent SDK" in system
    # The roster offered is the request's, not the SDK's longer startup list.
    assert outcome.setup.tools_offered == [t["name"] for t in sent[0]["tools"]]
    # Claude Code's stderr is kept, and what it says about an unknown model flagged.
    assert [w.kind for w in outcome.warnings] == ["unrecognized_model"]
    assert "unrecognized_model" in outcome.files["claude-stderr.log"]
    assert set(outcome.setup.tools_offered) < set(outcome.tools) | {
        "Agent",
        "DeferredToolPlaceholder",
    }


# --- Codex: the refused ask tool, fallback metadata, the roster, stderr -----------------------

ASK_ARGS = {
    "questions": [
        {
            "id": "accents",
            "header": "Accents",
            "question": "Transliterate accents or keep them?",
            "options": [
                {"label": "Transliterate", "description": "é becomes e"},
                {"label": "Keep", "description": "é stays"},
            ],
        }
    ]
}


@requires_codex
def test_codex_request_user_input_is_an_ask_through_a_refused_channel(swe_bundled, tmp_path):
    from capabench.swe.agents.codex import REFUSED_CHANNEL, CodexRunner
    from capabench.testing.fake_responses import FakeResponses, call, message, tool_outputs

    def script(body):
        return (
            [call("request_user_input", **ASK_ARGS)]
            if not tool_outputs(body)
            else [message("Done.")]
        )

    _, instances = swe_bundled
    store = SweStore(tmp_path / "swe")
    with FakeResponses(script) as server:
        (run,) = batch(
            instances[:1],
            ["ambiguous"],
            "gpt-fake",
            CodexRunner("gpt-fake", base_url=server.base_url),
            store,
        )
        refusal = tool_outputs(server.requests[-1])[0]
    assert run.stop_reason == "completed", run.error
    (ask,) = run.asks
    assert run.asked and ask.refused and ask.answer is None and ask.channel == REFUSED_CHANNEL
    assert (
        ask.question == "Transliterate accents or keep them?" and ask.turn == 1 and run.turns == 2
    )
    assert ask.detection["refusal"] == refusal and ask.detection["arguments"] == ASK_ARGS
    assert any(e["kind"] == "refused_ask" for e in store.events(run.run_id))
    assert any("refused channel" in f.what for f in sanity(store))
    page = build(store, instances, tmp_path / "dash.html")
    data = json.loads(page.read_text().split("const DATA = ", 1)[1].split(";\nconst esc", 1)[0])
    (arm,) = data["arms"]
    assert REFUSED_CHANNEL in arm["channel"] and arm["cells"]["ambiguous"]["refused"] == "1/1"
    assert data["runs"][0]["refused"] == 1
    if shutil.which("chromium"):  # rendered: the ask in the run's trace, the arm's row
        dom = dump_dom(page, tmp_path / "p")
        assert f"agent asks ({REFUSED_CHANNEL}; counted as asked):" in dom
        assert "asked through a refused channel" in dom and "yes (1, 1 refused)" in dom


@requires_codex
@pytest.mark.parametrize("model", ["gpt-5-codex", "gpt-5.5"])
def test_codex_on_fallback_model_metadata_is_flagged_by_sanity(model, swe_bundled, tmp_path):
    from capabench.swe.agents.codex import CodexRunner
    from capabench.testing.fake_responses import FakeResponses, message

    _, instances = swe_bundled
    store = SweStore(tmp_path / "swe")
    with FakeResponses(lambda body: [message("Done.")]) as server:
        (run,) = batch(
            instances[:1], ["full"], model, CodexRunner(model, base_url=server.base_url), store
        )
        offered = [t.get("name") or t.get("type") for t in server.requests[0]["tools"]]
    flagged = [f for f in sanity(store) if "fallback metadata" in f.what]
    assert run.setup.tools_offered == offered  # what the model was offered, from the request
    if model == "gpt-5-codex":  # an unknown slug: Codex says so, and offers less
        assert [w.kind for w in run.warnings] == ["fallback_model_metadata"]
        assert len(flagged) == 1 and flagged[0].severity == "attention"
        assert "apply_patch" not in offered
    else:
        assert not run.warnings and not flagged and "apply_patch" in offered


@requires_codex
def test_codex_stderr_is_kept_beside_the_run(swe_bundled, tmp_path):
    from capabench.swe.agents.codex import CodexRunner
    from capabench.testing.fake_responses import FakeResponses, message

    calls = []

    def flaky(body):  # the first request fails; Codex retries it
        calls.append(1)
        if len(calls) == 1:
            raise RuntimeError("upstream overloaded")
        return [message("Done.")]

    _, instances = swe_bundled
    store = SweStore(tmp_path / "swe")
    with FakeResponses(flaky) as server:
        (run,) = batch(
            instances[:1],
            ["full"],
            "gpt-5.5",
            CodexRunner("gpt-5.5", base_url=server.base_url),
            store,
        )
    assert run.stop_reason == "completed" and run.turns == 1  # the failed request was no reply
    log = (store.path("sessions", run.run_id) / "harness" / "codex-stderr.log").read_text()
    assert "status=500" in log and "tools: exec_command" in log
    assert '"input":' not in log  # request bodies summarized, not kept


# --- One budget, one turn definition ---------------------------------------------------------


@pytest.mark.parametrize(
    "arm",
    [
        "builtin",
        pytest.param("codex", marks=requires_codex),
        pytest.param("claude", marks=requires_claude),
    ],
)
@pytest.mark.parametrize("limit", ["step_limit", "time_limit"])
def test_a_session_that_never_stops_ends_at_its_budget(arm, limit, repo):
    # Turns: 3 replies; time: 4 s of a script that sleeps a second per command.
    budget = Budget(turns=3, wall_s=600) if limit == "step_limit" else Budget(turns=1000, wall_s=4)
    action = "true" if limit == "step_limit" else "sleep 1"
    requests: list[dict] = []
    began = time.monotonic()
    with Workspace(*repo) as ws:
        if arm == "builtin":
            model = ScriptedModel(lambda messages: f"```bash\n{action}\n```")
            outcome = BuiltinAgent(model, budget=budget).run(_task(repo[1]), ws)
            replies = len(model.calls)
        elif arm == "codex":
            from capabench.swe.agents.codex import CodexRunner
            from capabench.testing.fake_responses import FakeResponses, shell

            with FakeResponses(lambda body: [shell(action)]) as server:
                outcome = CodexRunner("gpt-5.5", base_url=server.base_url, budget=budget).run(
                    _task(repo[1]), ws
                )
                requests = list(server.requests)
            replies = outcome.turns
        else:
            from capabench.swe.agents.claude import ClaudeRunner
            from capabench.testing.fake_anthropic import FakeAnthropic, is_agent_turn, tool

            with FakeAnthropic(
                lambda body: [tool("Bash", command=action, description="again")]
            ) as server:
                outcome = ClaudeRunner("claude-fake", base_url=server.base_url, budget=budget).run(
                    _task(repo[1]), ws
                )
                requests = [b for b in server.requests if is_agent_turn(b)]
            replies = len(requests)
    assert outcome.stop_reason == limit, outcome.error
    assert outcome.setup.budget == budget
    if limit == "step_limit":  # exactly the budget: one model reply is one turn in every arm
        assert outcome.turns == 3 and replies == 3
        assert len(requests) <= 4  # Codex: the request beyond it was stopped before its reply ran
    else:
        assert 1 <= outcome.turns < 10 and time.monotonic() - began < 60


@requires_claude
def test_claude_preflight_passes_for_ask_act_then_an_empty_message(tmp_path):
    """The reported false failure: the ask's turn numbered one too high, and the empty final
    reply (no SDK message) uncounted, made this look like no reply after the answer."""
    from capabench.swe.agents.claude import ClaudeRunner
    from capabench.testing.fake_anthropic import FakeAnthropic, text, tool, tool_results

    question = {
        "question": "What should notes.txt say?",
        "header": "Notes",
        "multiSelect": False,
        "options": [
            {"label": "first", "description": "the word first"},
            {"label": "second", "description": "the word second"},
        ],
    }

    def canary(body):
        done = tool_results(body)
        if not done:
            return [tool("AskUserQuestion", questions=[question])]
        if len(done) == 1:
            return [tool("Bash", command="echo first > notes.txt", description="write")]
        return [text("")]

    with FakeAnthropic(canary) as server:
        outcome = preflight(ClaudeRunner("claude-fake", base_url=server.base_url), "claude-fake")
    (ask,) = outcome.asks
    assert ask.turn == 1 and ask.answer and outcome.stop_reason == "completed"
    assert outcome.turns >= 3  # ask, write, and the empty reply(ies), each a turn


@requires_codex
def test_codex_preflight_passes_for_ask_act_then_an_empty_message():
    from capabench.swe.agents.codex import CodexRunner
    from capabench.testing.fake_responses import (
        FakeResponses,
        message,
        shell,
        tool_outputs,
        user_texts,
    )

    def canary(body):
        if not any(NEUTRAL_REPLY in u for u in user_texts(body)):
            return [message("What should notes.txt say?")]
        return [shell("echo first > notes.txt")] if not tool_outputs(body) else [message("")]

    with FakeResponses(canary) as server:
        outcome = preflight(CodexRunner("gpt-5.5", base_url=server.base_url), "gpt-5.5")
    (ask,) = outcome.asks
    assert ask.turn == 1 and ask.answer == NEUTRAL_REPLY and outcome.turns == 3


# --- Containment ------------------------------------------------------------------------------

PROBE = (
    "echo inside > inside.txt; echo escaped > {outside}/escape.txt; echo escaped > ../escape.txt; "
    'echo escaped > {project}/escape-probe.txt; cat {planted} {home_planted}; echo "home=[$HOME]"; '
    "echo \"env=[$CAPABENCH_HOST_ONLY]\"; cat /proc/[0-9]*/environ | tr '\\0' '\\n' | grep CAPABENCH_HOST_ONLY; "
    "echo probe-ran"
)


@pytest.mark.parametrize(
    "arm",
    [
        "builtin",
        pytest.param("codex", marks=requires_codex),
        pytest.param("claude", marks=requires_claude),
    ],
)
def test_a_contained_agent_reaches_nothing_outside_its_checkout(arm, repo, tmp_path, monkeypatch):
    secret, host_only = secrets.token_hex(8), secrets.token_hex(8)
    outside = tmp_path / "outside"  # the host's, beside the checkout's origin
    outside.mkdir()
    planted = tmp_path / "planted.txt"
    planted.write_text(f"host secret {secret}\n")
    # Where credentials live (~/.ssh, ~/.codex, ~/.claude): the operator's own home.
    home_planted = Path.home() / f".capabench-containment-{secrets.token_hex(4)}"
    home_planted.write_text(f"home secret {secret}\n")
    project = Path(__file__).parent  # on the read-only root: visible, not writable
    monkeypatch.setenv("CAPABENCH_HOST_ONLY", host_only)
    command = PROBE.format(
        outside=outside, project=project, planted=planted, home_planted=home_planted
    )
    try:
        with Workspace(*repo) as ws:
            if arm == "builtin":
                model = ScriptedModel(
                    lambda m: "```submit\n```" if len(m) > 2 else f"```bash\n{command}\n```"
                )
                outcome = BuiltinAgent(model).run(_task(repo[1]), ws)
                seen = "\n".join(m.content for m in model.calls[-1] if m.role == "user")
            elif arm == "codex":
                from capabench.swe.agents.codex import CodexRunner
                from capabench.testing.fake_responses import (
                    FakeResponses,
                    message,
                    shell,
                    tool_outputs,
                )

                def codex(body):
                    return [shell(command)] if not tool_outputs(body) else [message("Done.")]

                with FakeResponses(codex) as server:
                    outcome = CodexRunner("gpt-5.5", base_url=server.base_url).run(
                        _task(repo[1]), ws
                    )
                seen = "\n".join(o for b in server.requests for o in tool_outputs(b))
            else:
                from capabench.swe.agents.claude import ClaudeRunner
                from capabench.testing.fake_anthropic import FakeAnthropic, text, tool, tool_results

                def claude(body):
                    done = tool_results(body)
                    return (
                        [tool("Bash", command=command, description="probe")]
                        if not done
                        else [text("Done.")]
                    )

                with FakeAnthropic(claude) as server:
                    outcome = ClaudeRunner("claude-fake", base_url=server.base_url).run(
                        _task(repo[1]), ws
                    )
                seen = "\n".join(o for b in server.requests for o in tool_results(b))
            assert outcome.stop_reason == "completed", outcome.error
            assert outcome.setup.containment == "bwrap"
            assert (
                "probe-ran" in seen and (ws.path / "inside.txt").read_text() == "inside\n"
            )  # it ran
            assert not (ws.root / "escape.txt").exists()  # beside the checkout: a private tmpfs
            if arm != "builtin":
                assert f"home=[{ws.home}]" in seen  # a private home, never the host's
        assert not (outside / "escape.txt").exists() and not (project / "escape-probe.txt").exists()
        assert secret not in seen  # the planted host files: hidden
        assert host_only not in seen and "env=[]" in seen  # in no process's environment
    finally:
        (project / "escape-probe.txt").unlink(missing_ok=True)
        home_planted.unlink()


def test_without_bubblewrap_agents_need_an_explicit_no_sandbox(monkeypatch, repo):
    monkeypatch.setattr(containment, "bwrap_available", lambda: (False, "bwrap is not installed"))
    model = ScriptedModel(["```bash\necho hi > out.txt\n```", "```submit\n```"])
    with pytest.raises(containment.SandboxUnavailable, match="--no-sandbox"):
        BuiltinAgent(model)
    with Workspace(*repo) as ws:
        outcome = BuiltinAgent(model, sandbox=False).run(_task(repo[1]), ws)
        assert (ws.path / "out.txt").is_file()
    assert outcome.stop_reason == "completed" and outcome.setup.containment == "none"
