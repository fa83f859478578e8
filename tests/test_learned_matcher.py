"""The `learned` matcher: a veto over the rules' reading, with weights trained on the bank's
tuned parts only."""

from __future__ import annotations

import dataclasses
import hashlib
import importlib.util
import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

from capabench.conventions import REGISTRY
from capabench.simulate.intent import make_matcher
from capabench.simulate.intent.evidence import (
    TOKEN_VECTORS,
    evidence,
    meaning,
    token_vectors,
    wordpieces,
)
from capabench.simulate.intent.fidelity import BankEntry, load_bank, measure
from capabench.simulate.intent.learned import (
    FamilyWeights,
    LearnedMatcher,
    LearnedWeights,
    load_weights,
    probability,
)
from capabench.simulate.intent.rules import RulesMatcher

ALL = sorted(REGISTRY)
ROOT = Path(__file__).resolve().parents[1]
BANKS = ROOT / "tests" / "data" / "user_questions"
REAL = ROOT / "tests" / "data" / "real_questions"


def test_weights_were_trained_on_the_current_tuned_parts_and_never_on_held_out_ones():
    trained = load_weights().trained_on
    tuned = {p.name: p for p in BANKS.glob("*.json") if not p.stem.startswith("heldout")}
    # the real corpus's tune side (by source model); its held-out models never
    splits = json.loads((REAL / "splits.json").read_text())
    tuned |= {name: REAL / name for name in splits["tune"]}
    assert not set(trained) & set(splits["heldout"])
    assert set(trained) == set(tuned), "retrain: python scripts/train_intent_model.py"
    for name, digest in trained.items():
        assert hashlib.sha256(tuned[name].read_bytes()).hexdigest() == digest, name
    assert set(load_weights().families) == set(ALL)
    vectors = hashlib.sha256(TOKEN_VECTORS.read_bytes()).hexdigest()
    assert load_weights().token_vectors == vectors, "retrain after distilling the token vectors"


def _weights(*, family_ngrams=None, none_ngrams=None, words_ngrams=None) -> LearnedWeights:
    """Hand-made weights: every family's model says yes to whatever the rules target (a
    large weight on the rules' 'targeted'), the none-model and the words-only models say no,
    except for the n-grams given."""
    yes = FamilyWeights(intercept=-1.0, ngrams={}, rules=(10.0, 0.0, 0.0))
    no = FamilyWeights(intercept=-5.0, ngrams={}, rules=(0.0, 0.0, 0.0))
    return LearnedWeights(
        threshold=0.5,
        none_threshold=0.5,
        add_threshold=0.9,
        keep_threshold=0.9,
        regularization=1.0,
        trained_on={},
        families={f: yes.model_copy(update={"ngrams": family_ngrams or {}}) for f in ALL},
        words_only={
            f: no.model_copy(update={"ngrams": (words_ngrams or {}).get(f, {})}) for f in ALL
        },
        none=no.model_copy(update={"ngrams": none_ngrams or {}}),
    )


def test_a_family_model_vetoes_only_what_it_learned_against():
    # (not a plain question about tidy_list: "should the returned list be sorted?" is one,
    # which no model vetoes)
    question = "Should the list come back tidy, and should I run black on the file?"
    rules = make_matcher("rules").read(question, ALL).targets(ALL)
    assert "tidy_list" in rules
    agreeing = LearnedMatcher(_weights()).read(question, ALL)
    assert agreeing.targets(ALL) == rules and not agreeing.note
    vetoing = LearnedMatcher(_weights(family_ngrams={"black": -20.0})).read(question, ["tidy_list"])
    assert vetoing.targets(["tidy_list"]) == [] and vetoing.note == "vetoed: tidy_list"
    # The question stays read (its best candidate kept for the run's fidelity record).
    assert vetoing.questions and vetoing.questions[0].best is not None
    # What the words alone are sure of stays.
    sure = _weights(family_ngrams={"black": -20.0}, words_ngrams={"tidy_list": {"tidy": 10.0}})
    assert LearnedMatcher(sure).read(question, ["tidy_list"]).targets(["tidy_list"]) == [
        "tidy_list"
    ]
    # ... only as sure as `keep_threshold` asks (it may ask more than taking a missed family)
    unsure = sure.model_copy(update={"keep_threshold": 1.5})
    assert LearnedMatcher(unsure).read(question, ["tidy_list"]).targets(["tidy_list"]) == []
    # ... unless the family's model all but rejects it (`lean_threshold`)
    leaning = sure.model_copy(update={"lean_threshold": 0.3})
    assert LearnedMatcher(leaning).read(question, ["tidy_list"]).targets(["tidy_list"]) == []


def test_a_familys_own_bar_only_ever_raises_the_shared_one():
    """`family_thresholds` / `add_thresholds` (set out of fold by the trainer) ask more of one
    family's model than the shared bar does; a lower one changes nothing."""
    question = "Should the list come back tidy, and should I run black on the file?"
    tidy = ["tidy_list"]
    kept = _weights()  # the family's model gives 0.9999 to what the rules target
    assert LearnedMatcher(kept).read(question, tidy).targets(tidy) == tidy
    higher = kept.model_copy(update={"family_thresholds": {"tidy_list": 1.0}})
    assert LearnedMatcher(higher).read(question, tidy).targets(tidy) == []
    other = kept.model_copy(update={"family_thresholds": {"clean_text": 1.0}})
    assert LearnedMatcher(other).read(question, tidy).targets(tidy) == tidy
    vetoed = _weights(family_ngrams={"black": -9.5})  # 0.38, under the shared 0.5
    lower = vetoed.model_copy(update={"family_thresholds": {"tidy_list": 0.1}})
    assert LearnedMatcher(lower).read(question, tidy).targets(tidy) == []
    # the same for a family the words-only model takes (0.993 against a shared 0.9)
    missed = "How are these fns named on your side?"
    adding = _weights(words_ngrams={"naming": {"fns": 10.0}})
    assert LearnedMatcher(adding).read(missed, ALL).targets(ALL) == ["naming"]
    for bar, read in ((0.999, []), (0.5, ["naming"])):
        own = adding.model_copy(update={"add_thresholds": {"naming": bar}})
        assert LearnedMatcher(own).read(missed, ALL).targets(ALL) == read


def test_a_plain_question_stays_and_a_plain_statement_is_judged():
    # both are plain about tidy_list; a family model all but sure neither asks ("returned"
    # weighed -20) vetoes only the one without a question mark
    asked, stated = (
        "Should the returned list be sorted?",
        "Let me know if the returned list should be sorted.",
    )
    sceptical = _weights(family_ngrams={"returned": -20.0}).model_copy(
        update={"statement_threshold": 0.3}
    )
    assert LearnedMatcher(sceptical).read(asked, ALL).targets(ALL) == ["tidy_list"]
    assert LearnedMatcher(sceptical).read(stated, ALL).targets(ALL) == []
    # at threshold 0 (older weights) a statement in plain words stays as a question does
    lenient = sceptical.model_copy(update={"statement_threshold": 0.0})
    assert LearnedMatcher(lenient).read(stated, ALL).targets(ALL) == ["tidy_list"]


def test_the_none_model_vetoes_every_family_of_a_message():
    question = "Quick check: should I format the file with black before I finish?"
    assert make_matcher("rules").read(question, ALL).targets(ALL)  # a near miss for the rules
    weights = _weights(none_ngrams={"black": 20.0})
    assert LearnedMatcher(weights).read(question, ALL).targets(ALL) == []
    # Not a message without the none-model's words.
    plain = "Should the returned list be sorted?"
    assert LearnedMatcher(weights).read(plain, ALL).targets(ALL) == ["tidy_list"]


def test_a_words_only_model_takes_what_the_rules_missed_in_a_free_mechanism():
    question = "How are these fns named on your side?"
    assert make_matcher("rules").read(question, ALL).targets(ALL) == []
    weights = _weights(words_ngrams={"naming": {"fns": 10.0}})
    reading = LearnedMatcher(weights).read(question, ["naming", "batch"])
    assert reading.targets(["naming", "batch"]) == ["naming"]
    # Not when none of the family's words is asked ("named" is naming's, "known" nobody's).
    unnamed = LearnedMatcher(weights).read("How are these fns known on your side?", ALL)
    assert unnamed.targets(ALL) == []
    # Not when the rules already read the mechanism's other family in the message.
    both = "Should the input arrive as a CSV string? And how are these fns named on your side?"
    assert "input_format" in make_matcher("rules").read(both, ALL).targets(ALL)
    assert "naming" not in LearnedMatcher(weights).read(both, ALL).targets(ALL)
    # Nor when nothing in the message asks.
    assert LearnedMatcher(weights).read("Here are the fns.", ALL).targets(ALL) == []


def test_the_best_guess_when_something_is_asked_but_nothing_kept():
    question = "Which of these words should stay in, the answer or the name?"
    assert make_matcher("rules").read(question, ALL).targets(ALL) == []
    weights = _weights(words_ngrams={"number_style": {"stay": 6.0}, "naming": {"stay": 5.5}})
    guessing = weights.model_copy(update={"asked_threshold": 0.1, "best_threshold": 0.5})
    assert LearnedMatcher(guessing).read(question, ["number_style", "batch"]).targets(ALL) == [
        "number_style"
    ]
    # Only the best family, and only one the user holds is answered.
    assert LearnedMatcher(guessing).read(question, ["naming", "batch"]).targets(ALL) == []
    # Not when the none-model says nothing is asked, nor below best_threshold, nor by default.
    nothing = _weights(none_ngrams={"stay": 10.0}, words_ngrams={"number_style": {"stay": 6.0}})
    nothing = nothing.model_copy(update={"asked_threshold": 0.1, "best_threshold": 0.5})
    assert LearnedMatcher(nothing).read(question, ALL).targets(ALL) == []
    unsure = guessing.model_copy(update={"best_threshold": 0.99})
    assert LearnedMatcher(unsure).read(question, ALL).targets(ALL) == []
    assert LearnedMatcher(weights).read(question, ALL).targets(ALL) == []


def test_a_generic_question_beside_others_gives_the_words_only_models_nothing():
    weights = _weights(words_ngrams={"input_format": {"expected": 6.0}})
    guessing = weights.model_copy(update={"asked_threshold": 0.1, "best_threshold": 0.5})
    specific = "Which layout is expected when you call it? And what if the list is empty?"
    assert make_matcher("rules").read(specific, ALL).targets(ALL) == []
    assert LearnedMatcher(guessing).read(specific, ALL).targets(ALL) == ["input_format"]
    generic = "What is the expected input? And what if the list is empty?"
    assert LearnedMatcher(guessing).read(generic, ALL).targets(ALL) == []


def test_code_in_the_message_is_read_as_code_words():
    message = (
        'Which of these returns should stay?\n\n```python\nreturn "yes" if ok else "no"'
        "\nreturn {'result': ok}\n```\nOr keep `bool(ok)`?"
    )
    ev = evidence(message)
    assert {"c:str:yes", "c:str:result", "c:{", "c:bool", "c:return"} <= ev.ngrams
    assert "yes" not in ev.ngrams  # the prose's words stay apart from the code's
    weights = _weights(words_ngrams={"yes_no": {"c:str:yes": 10.0}})
    assert LearnedMatcher(weights).read(message, ["yes_no"]).targets(ALL) == ["yes_no"]


def test_the_meaning_vector_is_minilms_wordpieces_summed_in_integers():
    index, vectors = token_vectors()
    pieces = {i: t for t, i in index.items()}
    split = [pieces[i] for i in wordpieces("Journaling outputs, e.g. to stdout?", index)]
    assert split[:2] == ["journal", "##ing"] and "outputs" in split and split[-1] == "?"
    assert "".join(split[-4:-1]).replace("#", "") == "stdout"
    summed, norm = meaning("Journaling outputs?")
    ids = wordpieces("Journaling outputs?", index)
    assert summed == tuple(int(v) for v in vectors[ids].sum(0)) and all(
        type(v) is int for v in summed
    )
    assert norm == pytest.approx(sum(v * v for v in summed) ** 0.5)
    assert meaning("") == ((0,) * vectors.shape[1], 0.0)


def test_meaning_weights_move_a_models_probability():
    ev = evidence("Where should each result be logged?")
    direction = tuple(v / ev.norm for v in ev.meaning)
    plain = FamilyWeights(intercept=0.0, ngrams={}, rules=(0.0, 0.0, 0.0))
    toward = plain.model_copy(update={"meaning": tuple(5.0 * v for v in direction)})
    assert probability(plain, ev.ngrams, ev=ev) == 0.5
    assert probability(toward, ev.ngrams, ev=ev) == pytest.approx(1 / (1 + math.exp(-5.0)))
    away = plain.model_copy(update={"meaning": tuple(-5.0 * v for v in direction)})
    assert probability(away, ev.ngrams, ev=ev) < 0.01
    # however far a message lies from the boundary
    assert probability(plain.model_copy(update={"intercept": -1000.0}), ev.ngrams) == 0.0
    assert probability(plain.model_copy(update={"intercept": 1000.0}), ev.ngrams) == 1.0


def test_the_shipped_model_on_the_part_it_was_tuned_on():
    """A regression guard like the rules' (held-out figures: benchmarks/user_fidelity.py)."""
    fid = measure(make_matcher("learned"), load_bank(BANKS / "tune.json"))
    assert fid.recall >= 0.95 and min(f.recall for f in fid.per_family.values()) >= 0.85, fid.misses
    assert fid.false_reveal_rate <= 0.005, fid.false
    assert fid.off_target_reveals == 0


def test_evidence_reads_what_the_rules_read():
    ev = evidence("Should the returned list be sorted? `sort_third` is the name.")
    assert "sorted" in ev.ngrams and "the returned" in ev.ngrams
    # identifiers are not words; in code they are code words, which training drops unless
    # they are Python's own names
    assert "c:sort_third" in ev.ngrams
    assert not any("sort_third" in g for g in ev.ngrams if not g.startswith("c:"))
    assert ev.rules["tidy_list"][0] == 1.0 and ev.rules["naming"][0] == 0.0
    assert ev.overall[0] == 1.0


def test_evidence_says_how_the_rules_questions_reach_a_family():
    """(only read with what it refers back to, only put up, 1 / the fewest families one of its
    questions targets, a question mark): a short invitation landing on what came before, or a
    question shared by two families, is weaker evidence for each."""
    both = evidence("Should the list be sorted, and should I log each call?")
    assert both.rules["tidy_list"][3:] == (0.0, 0.0, 0.5, 1.0)
    bare = evidence("It returns `True`/`False`. Let me know if it should change.")
    assert bare.rules["yes_no"][3:] == (1.0, 0.0, 1.0, 0.0)
    assert bare.rules["naming"][3:] == (0.0, 0.0, 0.0, 0.0)
    draft = "I went with a sorted list without duplicates. "
    put_up = evidence(draft + "If your logs or anything else should differ, tell me.")
    assert put_up.rules["tidy_list"][3:5] == (0.0, 1.0)
    assert put_up.rules["log_channel"][3:5] == (0.0, 0.0)
    # an invitation about the logs alone ("somewhere different": other than the logs' place)
    # puts up nothing the draft did
    logs_only = evidence(draft + "If your logs should go somewhere different, tell me.")
    assert logs_only.rules["tidy_list"][0] == 0.0 and logs_only.rules["log_channel"][0] == 1.0


@pytest.mark.skipif(importlib.util.find_spec("sklearn") is None, reason="needs scikit-learn")
def test_the_words_only_models_never_read_a_statement_the_rules_set_aside():
    # the invitation asks about the format (the sentence before it), not the draft's logging:
    # not in its own sentence, nor as what it refers back to
    message = (
        "It logs each call at INFO through the logging module. I don't know the format we "
        "settled on. Tell me and I'll adapt it."
    )
    ev = evidence(message)
    assert "format we" in ev.prose and "logs" not in ev.prose and "logs" not in ev.asking
    assert "logs" in ev.ngrams  # the family and none-models still read the whole message
    assert make_matcher("learned").read(message, ALL).targets(ALL) == ["serialized"]


def test_training_writes_weights_the_matcher_reads(tmp_path):
    """The training script end to end on one part (the full retrain that gives the shipped
    file: `python scripts/train_intent_model.py --check`)."""
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        from train_intent_model import _task_name, thresholds, train
    finally:
        sys.path.remove(str(ROOT / "scripts"))
    bank = load_bank(BANKS / "tune.json")
    assert _task_name("c:sort_third") and not _task_name("c:sorted") and not _task_name("c:str:x")
    # one wording, labelled one way by a real assistant's message and the other way by the
    # bank's: the real message weighs more
    odd = "Should it zorbly frobnicate the result?"
    entries = [
        *bank,
        BankEntry(text=odd, targets=("tidy_list",)),
        BankEntry(text=odd, targets=("clean_text",)),
    ]
    evidences = [evidence(e.text) for e in entries]

    def lead(real: list[bool]) -> float:
        """How much more the wording weighs for tidy_list than for clean_text."""
        weights = train(entries, evidences, [False] * len(bank) + real, c=3.0)
        return weights.words_only["tidy_list"].ngrams.get(
            "zorbly frobnicate", 0.0
        ) - weights.words_only["clean_text"].ngrams.get("zorbly frobnicate", 0.0)

    assert lead([True, False]) > lead([False, False]) > lead([False, True])
    weights = train(bank, [evidence(e.text) for e in bank], [False] * len(bank), c=3.0)
    assert not any(_task_name(g) for w in weights.words_only.values() for g in w.ngrams)
    weights = weights.model_copy(update=thresholds("0.3:0.3:0.9:0.1:0.5"))
    assert weights.best_threshold == 0.5
    path = tmp_path / "weights.json"
    path.write_text(weights.model_dump_json())
    fid = measure(LearnedMatcher(load_weights(path)), bank)
    assert fid.recall >= 0.95 and fid.off_target_reveals == 0 and fid.false_reveal_rate <= 0.005


def test_calibration_raises_a_familys_bar_only_where_what_it_takes_away_was_unasked():
    """The trainer's out-of-fold bars on five parts of the tune bank, a third of whose
    questions the rules read outside plain words come again labelled as asking nothing: when a
    lost target costs nothing, a bar goes up; when it costs a thousand unasked reveals, none."""
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        from train_intent_model import BARS, out_of_fold, raise_bars, thresholds
    finally:
        sys.path.remove(str(ROOT / "scripts"))
    bank = load_bank(BANKS / "tune.json")

    def outside_plain_words(entry: BankEntry) -> bool:
        x = evidence(entry.text)
        plain = {f for q in x.reading.questions for f in q.plainly}
        return any(t and f in entry.targets and f not in plain for f, (t, *_) in x.rules.items())

    noisy = [BankEntry(text=e.text, targets=()) for e in bank if outside_plain_words(e)][::3]
    entries = bank + noisy
    parts = {f"p{k}": entries[k::5] for k in range(5)}
    ev = {n: [evidence(e.text) for e in part] for n, part in parts.items()}
    shared = thresholds("0.8:0.4:0.95:0.1:0.5:0.99:0.99:0.3:0.3")
    oof = out_of_fold(parts, dict.fromkeys(parts, True), ev, 3.0, shared)
    assert len(oof) == len(entries)
    free = raise_bars(oof, miss_cost=0.0, min_unasked=1)
    assert free["family_thresholds"] or free["add_thresholds"]
    assert all(bar in BARS[field] for field, bars in free.items() for bar in bars.values())

    def unasked(bars: dict) -> int:
        return sum(
            f not in e.targets and f not in e.defensible
            for w, e, x in oof
            for f in LearnedMatcher(w.model_copy(update=bars)).read_evidence(x)[0].targets(ALL)
        )

    assert unasked(free) < unasked({})
    # ... a bar resting on one unasked message (as here) stays where it was by default
    nothing_raised = {field: {} for field in BARS}
    assert raise_bars(oof, miss_cost=0.0) == nothing_raised
    dear = raise_bars(oof, miss_cost=1000.0, min_unasked=1)
    assert dear == nothing_raised


def test_training_refuses_a_part_it_does_not_know(tmp_path):
    """A misspelt or held-out part name is said, before any evidence is read."""
    out = tmp_path / "weights.json"
    script = str(ROOT / "scripts" / "train_intent_model.py")
    for name in ("tunee", "heldout1"):
        run = subprocess.run(
            [sys.executable, script, "--parts", f"tune,{name}", "--out", str(out)],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert run.returncode == 1 and f"no such tuned part: {name}" in run.stderr
    # ... and so is a mistyped threshold, or one too many
    for given in ("0.8:0,4", ":".join(["0.5"] * 20)):
        run = subprocess.run(
            [sys.executable, script, "--thresholds", given, "--out", str(out)],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert run.returncode == 1 and "thresholds" in run.stderr and "Traceback" not in run.stderr
    assert not out.exists()


def test_the_cli_default_is_the_packages_default_matcher():
    from capabench.cli.options import PlayOptions
    from capabench.simulate.intent import DEFAULT_MATCHER

    default = {f.name: f.default for f in dataclasses.fields(PlayOptions)}
    assert default["user_matcher"] == DEFAULT_MATCHER == "learned"


@pytest.mark.parametrize("name", ["learned", "rules"])
def test_a_message_is_read_once_and_each_session_gets_its_own_families(name):
    """A session-independent matcher keeps its reading over every family: a later session
    holding other families gets what a new matcher would read for them, without a re-read."""
    question = "Should the list come back sorted, and which name do you want for the function?"
    kept = make_matcher(name)
    first = kept.read(question, ["tidy_list", "batch"])
    calls = kept._every_family.cache_info().misses
    for families in (["naming", "yes_no"], ["tidy_list", "naming"], ["batch", "bad_input"]):
        assert kept.read(question, families) == make_matcher(name).read(question, families)
    assert kept._every_family.cache_info().misses == calls
    assert first.targets(["tidy_list", "batch"]) == ["tidy_list"]
    assert kept.read(question, ["naming", "yes_no"]).targets(ALL) == ["naming"]


def test_weights_for_rules_inputs_the_matcher_lacks_are_refused():
    """A weights file trained with more rules inputs than the matcher gives is an error, not
    a matcher that silently ignores them."""
    from pydantic import ValidationError

    data = load_weights().model_dump()
    LearnedWeights.model_validate(data)
    data["families"]["tidy_list"]["rules"] = [*data["families"]["tidy_list"]["rules"], 1.0]
    with pytest.raises(ValidationError, match="more rules inputs"):
        LearnedWeights.model_validate(data)


def test_a_family_model_all_but_certain_overrules_the_none_model():
    """The none-model vetoes every rules target of a message, but one its family's model is
    at least `overrule_threshold` sure of and its words-only model gives at least
    `lean_threshold`."""
    question = "Any preference on how the list comes back, ascending maybe?"
    assert RulesMatcher().read(question, ALL).targets(ALL) == ["tidy_list"]
    shipped = load_weights()
    certain = {
        "none": shipped.none.model_copy(update={"intercept": 50.0}),  # "asks nothing"
        "families": {
            **shipped.families,
            "tidy_list": shipped.families["tidy_list"].model_copy(update={"intercept": 50.0}),
        },
        "words_only": {
            **shipped.words_only,  # the words alone lean a little its way
            "tidy_list": shipped.words_only["tidy_list"].model_copy(
                update={"intercept": 0.0, "ngrams": {}, "meaning": ()}
            ),
        },
        "add_threshold": 2.0,  # the words-only models are never sure
        "keep_threshold": 2.0,
    }
    weights = shipped.model_copy(update=certain)
    overruled = LearnedMatcher(
        weights.model_copy(update={"overrule_threshold": 0.99, "lean_threshold": 0.3})
    )
    assert overruled.read(question, ALL).targets(ALL) == ["tidy_list"]
    for vetoing in ({"overrule_threshold": 2.0}, {"lean_threshold": 0.6}):
        vetoed = LearnedMatcher(weights.model_copy(update={"overrule_threshold": 0.99, **vetoing}))
        assert vetoed.read(question, ALL).targets(ALL) == []
