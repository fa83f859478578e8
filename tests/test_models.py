from __future__ import annotations

import threading
import time

import pytest

from capabench.models import (
    JSON_OBJECT,
    InfraError,
    Message,
    ModelOptions,
    ReplyOptions,
    make_model,
)
from capabench.models.cache import ResponseCache, request_key
from capabench.models.errors import retry_after_seconds
from capabench.models.pricing import cost, load_prices
from capabench.models.retry import RetryPolicy
from capabench.records import Turn
from capabench.testing.fake_openai import FakeOpenAI

HELLO = [Message(role="system", content="be brief"), Message(role="user", content="say hi")]


def _options(server, sleeps, **kw):
    policy = RetryPolicy(attempts=4, base_s=0.01, cap_s=0.05, sleep=sleeps.append)
    return ModelOptions(base_url=server.base_url, timeout_s=1.0, retry=policy, **kw)


def test_openai_client_against_a_local_server():
    with FakeOpenAI(lambda messages: f"hi ({len(messages)} messages)") as server:
        model = make_model("openai/fake-model", _options(server, []))
        completion = model.complete(HELLO)
    assert completion.text == "hi (2 messages)"
    assert (
        completion.input_tokens == 4
        and completion.output_tokens == 3
        and completion.model == "openai/fake-model"
    )
    assert (
        server.requests[0]["model"] == "fake-model"
        and server.requests[0]["messages"][0]["role"] == "system"
    )


@pytest.mark.parametrize("fault", ["429", "500", "timeout", "drop", "malformed"])
def test_infrastructure_faults_are_retried(fault):
    sleeps: list[float] = []
    with FakeOpenAI(lambda m: "ok") as server:
        server.faults.extend([fault, fault])
        completion = make_model("openai/m", _options(server, sleeps)).complete(HELLO)
    assert completion.text == "ok"
    assert len(sleeps) == 2 and len(server.requests) == 3
    if fault == "429":
        assert all(s >= 2.0 for s in sleeps)  # Retry-After: 2 beats the tiny backoff


def test_persistent_faults_end_as_infrastructure_errors():
    with FakeOpenAI(lambda m: "ok") as server:
        server.faults.extend(["500"] * 10)
        with pytest.raises(InfraError, match="HTTP 500") as info:
            make_model("openai/m", _options(server, [])).complete(HELLO)
    assert info.value.status == 500 and len(server.requests) == 4


def test_client_errors_are_not_retried():
    with FakeOpenAI(lambda m: "ok") as server:
        model = make_model(
            "openai/m", ModelOptions(base_url=server.base_url + "/nope", timeout_s=1.0)
        )
        with pytest.raises(InfraError) as info:
            model.complete(HELLO)
    assert info.value.retryable is False and info.value.status == 404 and len(server.requests) == 1


def test_json_mode_reaches_the_endpoint_and_keys_the_cache_apart(tmp_path):
    with FakeOpenAI(lambda m: '{"a": 1}') as server:
        model = make_model("openai/m", _options(server, [], cache=str(tmp_path / "c.sqlite")))
        plain = model.complete(HELLO)
        as_json = model.complete(HELLO, JSON_OBJECT)
    assert "response_format" not in server.requests[0]
    assert server.requests[1]["response_format"] == {"type": "json_object"}
    assert not plain.cached and not as_json.cached  # not the plain answer served from cache


def test_cache_answers_the_same_request_once(tmp_path):
    with FakeOpenAI(lambda m: "cached answer") as server:
        options = _options(server, [], cache=str(tmp_path / "cache.sqlite"))
        first = make_model("openai/m", options).complete(HELLO)
        second = make_model("openai/m", options).complete(HELLO)
        other = make_model("openai/m", options).complete(
            [Message(role="user", content="different")]
        )
    assert len(server.requests) == 2
    assert first.text == second.text == "cached answer" and second.cached and not first.cached
    assert other.text == "cached answer" and not other.cached
    cache = ResponseCache(tmp_path / "cache.sqlite")
    assert (
        cache.get(request_key("openai/m", HELLO, {"temperature": 0.0, "max_tokens": 2048}))
        is not None
    )


def test_concurrency_is_limited_per_endpoint():
    active, peak = [0], [0]
    lock = threading.Lock()

    def answer(messages):
        with lock:
            active[0] += 1
            peak[0] = max(peak[0], active[0])
        time.sleep(0.05)
        with lock:
            active[0] -= 1
        return "ok"

    def burst(models) -> int:
        peak[0] = 0
        threads = [
            threading.Thread(target=m.complete, args=(HELLO,)) for m in models for _ in range(6)
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        return peak[0]

    with FakeOpenAI(answer) as server:

        def client(concurrency: int):
            return make_model(
                "openai/m", ModelOptions(base_url=server.base_url, concurrency=concurrency)
            )

        # An earlier client of the same endpoint with a larger limit must not widen a later one.
        assert burst([client(8), client(8)]) > 3
        # Two objects, one endpoint, one limit: one shared budget.
        assert burst([client(3), client(3)]) == 3


def test_retry_after_parsing_and_prices():
    assert retry_after_seconds({"retry-after": "3"}) == 3.0
    assert retry_after_seconds({"retry-after-ms": "250"}) == 0.25
    assert retry_after_seconds({}) is None
    assert cost("openai/gpt-4o-mini-2024", 1_000_000, 1_000_000) == pytest.approx(0.75)
    assert cost("baseline/oracle", 10, 10) == 0.0 and cost("mystery/model", 1, 1) is None


def test_unknown_and_incomplete_specs():
    with pytest.raises(ValueError, match="unknown model"):
        make_model("gemini/x")
    with pytest.raises(ValueError, match="name the model"):
        make_model("openai")


@pytest.mark.parametrize("fault", [None, "429", "500", "malformed"])
def test_anthropic_client_against_a_local_server(fault):
    sleeps: list[float] = []
    with FakeOpenAI(lambda messages: f"{messages[0]['role']}: {messages[0]['content']}") as server:
        if fault:
            server.faults.append(fault)
        options = ModelOptions(
            base_url=server.base_url.removesuffix("/v1"),
            timeout_s=2.0,
            retry=RetryPolicy(attempts=3, base_s=0.01, cap_s=0.02, sleep=sleeps.append),
        )
        completion = make_model("anthropic/fake-claude", options).complete(HELLO)
    assert completion.text == "system: be brief" and completion.model == "anthropic/fake-claude"
    assert completion.input_tokens == 4 and len(sleeps) == (1 if fault else 0)
    assert server.requests[-1]["system"] == "be brief" and server.requests[-1]["messages"] == [
        {"role": "user", "content": "say hi"}
    ]


def test_anthropic_requests_carry_the_temperature():
    with FakeOpenAI(lambda messages: "ok") as server:
        make_model(
            "anthropic/c", ModelOptions(base_url=server.base_url.removesuffix("/v1"))
        ).complete(HELLO)
    assert server.requests[0]["temperature"] == 0.0


def test_price_files_extend_the_table_and_bad_ones_say_why(tmp_path):
    good = tmp_path / "prices.json"
    good.write_text('{"openai/my-model": [1, 3], "openai/gpt-4o": [0, 0]}')
    prices = load_prices(good)
    assert cost("openai/my-model-v2", 10**6, 10**6, prices) == pytest.approx(4.0)
    assert cost("openai/gpt-4o", 10**6, 10**6, prices) == 0.0
    assert cost("openai/unknown", 1, 1, prices) is None
    for text, why in [
        ("[1, 2]", "expected"),
        ('{"m": [1]}', "'m'"),
        ('{"m": [-1, 2]}', "negative"),
        ("{", "can't read"),
    ]:
        good.write_text(text)
        with pytest.raises(ValueError, match=why):
            load_prices(good)


def test_stop_sequences_and_schemas_reach_the_endpoint_and_the_cache_key(tmp_path):
    """A reply constrained by a schema or ended by a stop string: both travel in the request
    and are part of the cached request (the same messages without them are another request)."""
    from capabench.simulate.model_assistant import CODE_END, STOPS, ModelAssistant

    schema = {
        "type": "object",
        "properties": {"action": {"type": "string"}},
        "required": ["action"],
    }
    with FakeOpenAI(lambda messages: "Here:\n```python\ndef f():\n    return 1") as server:
        options = _options(server, [], cache=str(tmp_path / "cache.sqlite"))
        model = make_model("openai/m", options)
        model.complete(HELLO, ReplyOptions(schema=schema))
        model.complete(HELLO, ReplyOptions(stop=(CODE_END,)))
        model.complete(HELLO)
        model.complete(HELLO, ReplyOptions(stop=(CODE_END,)))  # cached
        assistant = ModelAssistant(model, stop_after_code=True)
        reply = assistant.reply([Turn(role="user", text="Write f.")])
    first, second, third = server.requests[:3]
    assert first["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "reply", "schema": schema},
    }
    assert second["stop"] == [CODE_END] and "stop" not in third and len(server.requests) == 4
    assert reply.endswith("return 1\n```")  # the stop string left out, the code block closed again
    assert server.requests[-1]["stop"] == list(STOPS)
