"""Questions about the user's own words (simulate/intent/cues.py)."""

from __future__ import annotations

import pytest

from capabench.conventions import REGISTRY
from capabench.simulate.intent import make_matcher
from capabench.simulate.intent.cues import quoted_cues


@pytest.mark.parametrize(
    ("sentence", "families"),
    [
        ('**"Where I always look"**: should it also be written to a file?', ("result_file",)),
        ('What did you mean by "send it back like we said last time"?', ("envelope",)),
        ("What is “the format we settled on”?", ("serialized",)),
        ("Is 'report style' words or digits?", ("number_style",)),
        ('By "clean text", do you mean stripped of whitespace?', ("clean_text",)),
        # a single quoted word, common words, or an unquoted piece: not a quote of a cue
        ('What does "clean" mean here?', ()),
        ('Should the "result" be a list?', ()),
        ("Should it be in the format we used before?", ()),
        ("I don't have our notes, so I don't know what it's like.", ()),
    ],
)
def test_a_quoted_piece_of_a_cue_names_its_family(sentence, families):
    assert quoted_cues(sentence) == families


@pytest.mark.parametrize("family", sorted(f for f in REGISTRY if any(REGISTRY[f].cues)))
def test_every_cue_quoted_whole_names_its_family(family):
    cue = next(c for c in REGISTRY[family].cues if c)
    assert family in quoted_cues(f"What do you mean by {cue}?")


@pytest.mark.parametrize("name", ["rules", "learned"])
def test_a_question_about_the_users_words_reaches_the_family_under_every_matcher(name):
    # the words of the question name no concept of the family: only the quote does
    message = '**"Send it back like we said last time"**: which one was that?'
    assert "envelope" in make_matcher(name).read(message, ["envelope", "batch"]).targets(
        ["envelope", "batch"]
    )
    # and a user who doesn't hold the family hears nothing of it
    assert not make_matcher(name).read(message, ["batch", "naming"]).targets(["batch", "naming"])
