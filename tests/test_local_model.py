"""The embedded model for real (skipped without the local extra): llama.cpp in process, its
JSON grammar, served on 127.0.0.1 through capabench's OpenAI-compatible server, and driving
the built-in agent of the ask-or-guess arm on the bundled dataset."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("llama_cpp", reason="needs the local extra (scripts/main.sh installs it)")

from capabench.models import PLAIN, Message, ModelOptions, make_model
from capabench.models.local import LocalModelError, embedded_gguf
from capabench.models.serve import serve_model

try:
    embedded_gguf()
except LocalModelError as exc:
    pytest.skip(str(exc), allow_module_level=True)


@pytest.fixture(scope="module")
def local():
    return make_model("local", ModelOptions(max_tokens=64, cache=None))


def test_the_embedded_model_answers_and_counts_tokens(local):
    reply = local.complete(
        [Message(role="user", content="Write a Python function that adds two numbers.")]
    )
    assert (
        reply.text.strip()
        and reply.input_tokens > 5
        and reply.output_tokens > 0
        and reply.model == "local"
    )


def test_json_mode_gives_parseable_json_through_the_served_endpoint(local):
    import openai

    with serve_model(local) as server:
        client = openai.OpenAI(base_url=server.base_url, api_key="x", max_retries=0)
        answer = client.chat.completions.create(
            model="local",
            response_format={"type": "json_object"},
            messages=[
                {
                    "role": "user",
                    "content": "Give a JSON object with keys name and age for Ada, 36.",
                }
            ],
        )
    assert isinstance(json.loads(answer.choices[0].message.content), dict)


def test_the_builtin_agent_runs_a_bundled_instance_on_the_embedded_model(
    local, swe_bundled, tmp_path
):
    from capabench.swe.agents.builtin import BuiltinAgent
    from capabench.swe.batch import batch
    from capabench.swe.evaluate import evaluate
    from capabench.swe.store import SweStore
    from capabench.swe.swe_records import Budget

    _, instances = swe_bundled
    store = SweStore(tmp_path / "swe")
    (run,) = batch(
        instances[:1], ["ambiguous"], "local", BuiltinAgent(local, budget=Budget(turns=2)), store
    )
    assert (
        run.stop_reason in ("completed", "step_limit", "no_action", "max_ask_rounds")
        and run.turns >= 1
    )
    assert run.input_tokens > 0 and store.events(run.run_id)[0]["kind"] == "model"
    (grade,) = evaluate(instances, store).values()
    assert grade.status == "scored"  # whatever it did, it was graded


def test_mem0_builds_memories_with_the_embedded_model_served_locally():
    """mem0's real extraction prompt (about 8K tokens) through the embedded model served on
    127.0.0.1, in JSON mode: it fits the context window and its answer parses."""
    from types import SimpleNamespace

    pytest.importorskip("mem0")
    from capabench.history.mem0 import Mem0

    model = make_model("local", ModelOptions(max_tokens=256, context=16384, cache=None))
    calls = []

    class Counting:
        name = model.name

        def complete(self, messages, reply=PLAIN):
            calls.append(reply.json_object)
            return model.complete(messages, reply)

    turns = [
        SimpleNamespace(role="user", text="Write a function that lists the files in a folder."),
        SimpleNamespace(role="assistant", text="Should the result be sorted?"),
        SimpleNamespace(role="user", text="Yes: I always want results as a sorted list."),
    ]
    env = SimpleNamespace(
        settings={"embedder": "hashing"},
        need_model=lambda name: Counting(),
        history_of=lambda session: [SimpleNamespace(trace=turns)],
        memories=None,  # no run directory: nothing saved for reuse
    )
    mem0 = Mem0(env)
    context = mem0.context(SimpleNamespace(cell=7, request="List the users in a group."))
    assert calls and all(calls)  # mem0's extraction went through the model, in JSON mode
    assert context.info["method"] == "mem0" and context.info["memories"] >= 0


def test_ctrl_c_ends_a_generation_at_its_next_token():
    """The run's Ctrl-C (capabench.interrupt) stops llama.cpp mid-generation instead of
    after max_tokens, and the next call starts clean."""
    import threading

    from capabench import interrupt
    from capabench.models.local import LocalModel

    model = LocalModel(embedded_gguf(), max_tokens=2048)
    outcome = {}

    def generate():
        try:
            model.complete([Message(role="user", content="Write a very long story.")])
            outcome["finished"] = True
        except interrupt.Interrupted:
            outcome["interrupted"] = True

    worker = threading.Thread(target=generate)
    worker.start()
    while model.llm.n_tokens == 0 and worker.is_alive():  # until it is generating
        threading.Event().wait(0.05)
    interrupt.request()
    worker.join()
    interrupt.clear()
    assert outcome == {"interrupted": True}
    assert model.llm.n_tokens < 2048  # it stopped long before its budget
    reply = model.complete([Message(role="user", content="Say hi.")])
    assert reply.text
