"""scripts/real_questions_part.py: one part's labels from two labellers."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def consensus_of():
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        from real_questions_part import consensus_of
    finally:
        sys.path.remove(str(ROOT / "scripts"))
    return consensus_of


def _entry(text, targets, defensible=(), asks=True):
    return {
        "text": text,
        "targets": list(targets),
        "defensible": list(defensible),
        "asks": asks,
        "note": f"on {text}",
    }


def test_a_target_stays_where_both_labellers_give_it_and_is_defensible_where_one_does(consensus_of):
    first = [_entry("a", ["tidy_list", "naming"]), _entry("b", [], ["bad_input"], asks=False)]
    # the second labeller's file, in another order
    second = [_entry("b", ["bad_input"]), _entry("a", ["tidy_list"], ["envelope"])]
    merged = consensus_of(first, second)
    assert [m["text"] for m in merged] == ["a", "b"]
    assert [m["targets"] for m in merged] == [["tidy_list"], []]
    assert [m["defensible"] for m in merged] == [["envelope", "naming"], ["bad_input"]]
    assert merged[1]["asks"] is True
    assert "second labeller" in merged[0]["note"]
    # where the two agree, the first file's entry is kept as it was
    same = consensus_of([_entry("c", ["yes_no"])], [_entry("c", ["yes_no"])])
    assert same == [_entry("c", ["yes_no"])]


def test_files_of_different_parts_are_refused(consensus_of):
    with pytest.raises(SystemExit, match="different messages"):
        consensus_of([_entry("a", [])], [_entry("b", [])])


def test_a_first_labellers_entry_without_a_note_still_merges(consensus_of):
    # the corpus's earliest parts carry no note
    first = [{k: v for k, v in _entry("a", ["naming"]).items() if k != "note"}]
    merged = consensus_of(first, [_entry("a", [], ["naming"])])
    assert merged[0]["targets"] == [] and merged[0]["defensible"] == ["naming"]
    assert merged[0]["note"] == " | second labeller: on a"
