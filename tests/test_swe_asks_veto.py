"""The ask classifier v3: v2's verdicts, its asks checked by a learned veto (swe/asks/veto.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from capabench.swe.asks.detection import classifier
from capabench.swe.asks.veto import WEIGHTS, VetoWeights, features

CORPUS = Path(__file__).parent / "data" / "ask_messages"
MEASURED = {"heldout", "heldout2", "heldout5", "heldout7"}  # held-out parts only ever measured
V2, V3 = classifier("v2"), classifier("v3")


def test_the_veto_never_saw_a_held_out_part():
    trained_on = VetoWeights.load().trained_on
    assert trained_on, "the weights name the parts they were trained on"
    assert not {Path(name).stem for name in trained_on} & MEASURED
    assert all((CORPUS / name).exists() for name in trained_on)


def test_v3_is_the_default_and_v2_stays_available_by_name():
    assert classifier().version == "v3" and V2.version == "v2"


def test_the_veto_only_removes_asks_over_the_development_parts():
    removed = {True: 0, False: 0}  # by the message's label
    for part in sorted(CORPUS.glob("*.json")):
        if part.stem in MEASURED:
            continue
        for m in json.loads(part.read_text()):
            before = V2.classify(m["text"], edited=m["edited"])
            after = V3.classify(m["text"], edited=m["edited"])
            assert not after.asked or before.asked
            assert after.categories == before.categories  # v2's reading is kept
            removed[m["ask"]] += before.asked and not after.asked
    # on the parts it was trained on, v3 keeps nearly all of v2's real asks and removes
    # more false ones than real ones
    assert removed[True] <= 5 and removed[False] > removed[True]


def test_an_optional_question_after_finished_work_is_vetoed():
    text = (
        "Fixed the off-by-one in `paginate()` and added a regression test; all 48 tests pass. "
        "Is the page size of 50 what you expected?"
    )
    assert V2.classify(text, edited=True).asked
    found = V3.classify(text, edited=True)
    assert not found.asked and found.note.startswith("vetoed")


@pytest.mark.parametrize(
    ("text", "edited"),
    [
        (
            "Which database should I target, Postgres or SQLite? I'll hold off until you decide.",
            False,
        ),
        (
            "Two options: (A) keep the cache per process, (B) share it in Redis. Which do you prefer?",
            False,
        ),
        ("I'll need the staging credentials before I can run the migration.", False),
        (
            "Started on the parser, but the spec is unclear: should empty lines end a record? "
            "I'm blocked until you tell me.",
            True,
        ),
    ],
)
def test_plain_asks_stand(text, edited):
    assert V2.classify(text, edited=edited).asked and V3.classify(text, edited=edited).asked


def test_a_message_v2_does_not_count_as_asking_is_never_read_by_the_veto():
    text = "Done: renamed the setting and updated the docs; tests pass."
    found = V3.classify(text, edited=True)
    assert not found.asked and found.note == ""


def test_features_read_the_final_paragraph_the_asking_units_and_v2s_signals():
    text = "Looked at the config loader.\n\nShould I keep the old key as an alias?"
    grams = features(text, V2.classify(text))
    assert {"f:alias", "q:keep the", "w:config", "act:question", "gate:zero_edit"} <= grams
    assert "f:config" not in grams  # the first paragraph is not the ending


def test_inference_is_a_sum_of_weights():
    weights = VetoWeights(
        intercept=-1.0, weights={"a": 2.0, "b": 0.5}, threshold=0.5, trained_on={}
    )
    assert weights.probability(frozenset({"a", "c"})) == pytest.approx(1 / (1 + 2.718281828**-1))
    assert weights.probability(frozenset()) < 0.5
    assert WEIGHTS.exists()
