"""The final-message ask classifier: its fixture corpus, its layers, and reclassification."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from capabench.swe.ask_detection import CONFIG, Classifier, classifier, prose, reclassify
from capabench.swe.store import RunSummary, SweStore

CORPUS = json.loads((Path(__file__).parent / "data" / "ask_messages.json").read_text())


@pytest.mark.parametrize("case", CORPUS, ids=[f"{i}-{c['label']}" for i, c in enumerate(CORPUS)])
def test_classifier_scores_its_fixture_corpus(case):
    assert classifier().classify(case["text"], edited=case["edited"]).asked is case["label"]


def test_corpus_exercises_every_layer():
    clf = classifier()
    fired, blocked, gated = set(), set(), 0
    for case in CORPUS:
        d = clf.classify(case["text"], edited=case["edited"])
        fired |= set(d.categories)
        blocked |= set(d.blocked)
        gated += d.questions_with_edits
    assert fired == {"question", "info_request", "option_list"}
    assert {"tag_question", "offer_more_help", "rhetorical"} <= blocked
    assert gated >= 2  # edited turns whose text asked anyway: recorded, not counted
    assert sum(c["label"] for c in CORPUS) >= 15 and sum(not c["label"] for c in CORPUS) >= 15


def test_code_inline_code_and_quotes_are_not_prose():
    text = "Done.\n```py\nx = a ? b : c\n```\nUses `re.match(r'a?')`.\n> Should it be X?\nThanks."
    assert "?" not in prose(text)
    assert not classifier().classify(text).asked


def _store_with_finals(tmp_path, clf):
    store = SweStore(tmp_path / "swe")
    events = [{"kind": "final", "text": c["text"], "edited": c["edited"],
               "detection": clf.classify(c["text"], edited=c["edited"]).model_dump()} for c in CORPUS]  # fmt: skip
    summary = RunSummary(run_id="r1", instance_id="i", condition="ambiguous", model="gpt-x", runner="codex-cli",
                         runner_version="t", repo="o/r", base_commit="0" * 40, prompt_sha256="0" * 64,
                         started="2026-01-01T00:00:00", duration_s=1.0, stop_reason="completed", asked=True,
                         asks=[], turns=len(events), input_tokens=0, output_tokens=0, tools=[])  # fmt: skip
    store.write_once(
        store.path("sessions", "r1") / "events.jsonl", "".join(json.dumps(e) + "\n" for e in events)
    )
    store.write_once(store.path("runs", "r1"), summary.model_dump_json())
    return store


def test_reclassify_reproduces_stored_verdicts_and_finds_changes(tmp_path):
    store = _store_with_finals(tmp_path, classifier())
    same = reclassify(store)
    assert (same.runs, same.messages, same.disagreements) == (1, len(CORPUS), [])
    assert same.firing["question"] >= 10 and same.firing["tag_question"] >= 1
    # A config without the tag-question blocker disagrees exactly on the tag question.
    config = json.loads(CONFIG.read_text())
    del config["blockers"]["tag_question"]
    config["version"] = 99
    edited = tmp_path / "ask.json"
    edited.write_text(json.dumps(config))
    changed = reclassify(store, Classifier.load(edited))
    assert changed.version == "v99" and len(changed.disagreements) == 1
    assert "right?" in changed.disagreements[0]["text"] and changed.disagreements[0]["now"] is True
