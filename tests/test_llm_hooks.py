"""The optional LLM stages, driven by scripted models: what they produce is used only when
it keeps the rules, and the validators run on the result."""

from __future__ import annotations

import json

import pytest

from capabench.build.builder import Models, _with_consistent_trace, build_cell
from capabench.build.consistency import inconsistencies
from capabench.build.design import design
from capabench.build.information import Decided
from capabench.build.request import choose_cues, controlled, render_request, rewrite_request
from capabench.conventions import REGISTRY
from capabench.judge.spy import spy_tasks
from capabench.models import ScriptedModel, make_model
from capabench.simulate import SimulatedUser
from capabench.tasks import load_humaneval


@pytest.fixture(scope="module")
def session(built):
    return next(s for s in built[0].sessions if s.split == "history" and s.index == 0)


def test_make_model_resolves_specs(tmp_path):
    script = tmp_path / "r.json"
    script.write_text(json.dumps(["one", "two"]))
    model = make_model(f"scripted:{script}")
    assert [model.complete([]).text for _ in range(2)] == ["one", "two"]
    with pytest.raises(RuntimeError, match="only 2 replies"):
        model.complete([])
    with pytest.raises(ValueError, match="unknown model 'nope/x'"):
        make_model("nope/x")


def test_rewrite_is_kept_only_when_it_follows_the_information_control(session, pool):
    import random

    from capabench.profiles import PROFILES_BY_ID

    task = next(t for t in load_humaneval() if t.id == session.task_id)
    profile = PROFILES_BY_ID[session.profile_id]
    cues = choose_cues(session.slots, random.Random(0))
    template = render_request(controlled(task, session.slots, pool), profile, cues)

    def rewrite(text, model=None):
        model = model or ScriptedModel([text])
        return rewrite_request(
            model, template, task, profile, session.slots, cues, session.hidden_tests
        )

    good = f"yo, write {task.entry_point} for me. " + " ".join(cues)
    recorder = ScriptedModel([good])
    assert rewrite(good, recorder) == good + "\n"
    sent = recorder.calls[0][
        0
    ].content  # the generator is told every alternative to keep quiet about
    assert all(
        alt.statement in sent for s in session.slots for alt in REGISTRY[s.family].alternatives
    )
    assert rewrite(good + " " + session.slots[0].statement) is None  # leaks a statement
    if not Decided.of(session.slots).name:  # a name the conventions don't decide must stay
        assert rewrite("write the thing. " + " ".join(cues)) is None
    if cues:
        assert rewrite(f"write {task.entry_point}.") is None  # drops the user's cue


def test_generator_model_rewrites_requests_and_validators_still_pass(pool):
    shapes, _ = spy_tasks(load_humaneval(), pool)

    def rewrite(messages):
        request = messages[0].content.split("The request:\n", 1)[1]
        return "Rewritten by the generator.\n" + request

    generator = ScriptedModel(rewrite, name="scripted-generator")
    profile_id, pair = design(0)[0]
    _, _, sessions, _ = build_cell(
        0, profile_id, pair, shapes, 0, pool, Models(generator=generator)
    )
    assert len(sessions) == 10 and all(
        s.request.startswith("Rewritten by the generator.") for s in sessions
    )
    assert len(generator.calls) >= 10

    def contradicting(messages):  # an example nobody's reference gives
        return rewrite(messages) + "\n>>> f(12345)\n'not the answer'\n"

    _, _, kept, _ = build_cell(
        0, profile_id, pair, shapes, 0, pool, Models(generator=ScriptedModel(contradicting))
    )
    assert kept and not any(s.request.startswith("Rewritten by the generator.") for s in kept)


def test_user_model_phrasing_is_kept_only_when_faithful(session, pool):
    slot = session.slots[0]
    alt = REGISTRY[slot.family].alternative(slot.alternative)
    question = REGISTRY[slot.family].question
    faithful = ScriptedModel(lambda m: "So, in my own words: " + slot.statement)
    reply = SimulatedUser(session, pool=pool, expression_model=faithful).respond(question)
    assert reply.text.startswith("So, in my own words") and reply.revealed == [slot.family]
    lossy = ScriptedModel(lambda m: "Something vague.")
    reply = SimulatedUser(session, pool=pool, expression_model=lossy).respond(question)
    assert slot.statement in reply.text and alt.secrets  # fell back to the template
    other = session.slots[1]
    tattling = ScriptedModel(lambda m: slot.statement + " " + other.statement)
    reply = SimulatedUser(session, pool=pool, expression_model=tattling).respond(question)
    assert other.statement not in reply.text
    silent = ScriptedModel(lambda m: pytest.fail("non-answers are not rephrased"))
    SimulatedUser(session, pool=pool, expression_model=silent).respond("Anything else?")


def test_assistant_model_plays_history_dialogues_and_falls_back(session, pool):
    fresh = session.model_copy(update={"trace": ()})
    questions = " ".join(REGISTRY[s.family].question for s in fresh.slots)

    def capable(messages):
        asked = sum(m.role == "assistant" for m in messages)
        return questions if asked == 0 else f"```python\n{fresh.reference}```"

    traced = _with_consistent_trace(
        fresh, None, pool, Models(assistant=ScriptedModel(capable, name="llm"))
    )
    assert traced.trace[1].text == questions and traced.trace[-2].verdict == "passed"
    assert inconsistencies(traced, None) == []
    hopeless = ScriptedModel(lambda m: "I would rather not write code today.")
    traced = _with_consistent_trace(fresh, None, pool, Models(assistant=hopeless))
    assert len(hopeless.calls) == 8  # the whole budget, then a scripted strategy took over
    assert traced.trace[-2].verdict == "passed" and "I would rather not" not in traced.trace[1].text
