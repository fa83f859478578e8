from __future__ import annotations

import pytest

from capabench.conventions import REGISTRY
from capabench.simulate import questions, targeted_families

ALL = sorted(REGISTRY)

PARAPHRASES = {
    "tidy_list": [
        "Should the list be sorted?",
        "Do you want duplicates removed from the result?",
        "In what order should the elements come back?",
        "What do you mean by tidy?",
        "Ascending or descending?",
        "Should I keep repeated values or make them unique?",
    ],
    "clean_text": [
        "What letter case should the result use?",
        "Should the output be uppercase or lowercase?",
        "What counts as clean text for you?",
        "Do you want the words capitalized?",
        "Should I normalize the string somehow?",
        "Is Title Case what you want?",
    ],
    "yes_no": [
        "What should a yes or no look like?",
        "Do you want a bool, or something else for the answer?",
        "Should it return True/False or strings?",
        "How do you represent a plain yes/no?",
        "Is 1/0 fine for the flag?",
        "What should the boolean result be?",
    ],
    "number_style": [
        "How should the number look in the report?",
        "Do you want the number spelled out?",
        "Should I write the number in words?",
        "Is an ordinal like 3rd what you want?",
        "Should the digits be zero-padded?",
        "What number format does your report style use?",
    ],
    "batch": [
        "Will you call it once per record or with all records at once?",
        "Should it handle a batch of inputs?",
        "What shape do your records come in?",
        "Do you pass a single input or multiple inputs?",
        "Should it process the items in bulk?",
        "Is it called one item at a time?",
    ],
    "packed_args": [
        "How do you pass the arguments?",
        "What should the signature look like?",
        "Do the parameters arrive separately or as a tuple?",
        "Should I unpack a bundle of values?",
        "How will you call it, with positional arguments?",
        "Are the params passed in as one dict?",
    ],
    "naming": [
        "What should I name the function?",
        "Is there a naming convention I should follow?",
        "Do your functions use a prefix?",
        "camelCase or snake_case?",
        "What should the entry point be called?",
        "What should we call it?",
    ],
    "input_format": [
        "What is the input format?",
        "How does the data arrive: as a list or as a string?",
        "Do I need to parse the numbers from text?",
        "Are the numbers comma-separated?",
        "Is the input JSON?",
        "What form are the numbers in when they reach the function?",
    ],
    "log_channel": [
        "Where do you look at the logs?",
        "Should it print something to stderr?",
        "Do you want logging output?",
        "Where will you see the result?",
        "Should it write to stdout or the console?",
        "Which logger should I use?",
    ],
    "result_file": [
        "Should the result be saved to a file?",
        "Where do you look for the result?",
        "Do you want it written to disk?",
        "Should I store the output somewhere?",
        "Should the result persist after the call?",
        "Which file should it write?",
    ],
    "envelope": [
        "What should the function return exactly?",
        "What return format did we agree on?",
        "Should I wrap the result in something?",
        "Do you want a status field in the return value?",
        "What shape should the result object have?",
        "Should there be a success flag?",
    ],
    "serialized": [
        "Which format did we settle on?",
        "Should the result be serialized?",
        "Do you want JSON back?",
        "Should I return the repr of the value?",
        "Should it return a string?",
        "How should the result be encoded?",
    ],
    "bad_input": [
        "What should happen with invalid input?",
        "What if the input is None?",
        "Should it raise an exception on bad input?",
        "How robust does it need to be?",
        "Do I need to validate the arguments?",
        "What about missing values?",
    ],
    "negative_input": [
        "What about negative numbers?",
        "What if the number is below zero?",
        "Should a minus sign be handled?",
        "What happens when n is less than 0?",
        "Do I need to validate the input range?",
        "Should I guard against negative values?",
    ],
}

OFF_TARGET = [
    "Anything else?",
    "Is there anything else I should know?",
    "Should I add type hints?",
    "Do you want comments in the code?",
    "Can I use recursion here?",
    "Is performance important?",
    "Which Python version are you on?",
    "Should I include a docstring?",
    "Any other requirements?",
    "Can I use the standard library?",
]


@pytest.mark.parametrize("family", sorted(PARAPHRASES))
def test_clear_questions_reveal_their_family(family):
    assert set(PARAPHRASES) == set(REGISTRY)
    for question in PARAPHRASES[family]:
        assert family in targeted_families(question, ALL), question


@pytest.mark.parametrize("family", sorted(PARAPHRASES))
def test_questions_reveal_only_what_the_session_holds(family):
    others = [f for f in ALL if f != family and REGISTRY[f].mechanism != REGISTRY[family].mechanism]
    # In a session, a question about `family` must not reveal an unrelated family held by the user.
    leaks = {q: targeted_families(q, others) for q in PARAPHRASES[family]}
    assert sum(bool(v) for v in leaks.values()) <= 2, leaks


@pytest.mark.parametrize("question", OFF_TARGET)
def test_off_target_questions_reveal_nothing(question):
    assert targeted_families(question, ALL) == []


def test_statements_in_prose_are_not_questions():
    message = "I sorted the list and removed duplicates.\n```python\ndef f(x):\n    # should it log?\n    return x\n```"
    assert questions(message) == []
    assert targeted_families(message, ALL) == []
    assert questions("1. What should I name it?\n2. Should I log it") == [
        "What should I name it?",
        "Should I log it",
    ]


@pytest.fixture(scope="module")
def session(built):
    bench, _ = built
    return next(
        s
        for s in bench.sessions
        if s.split == "heldout" and {"naming", "batch"} & {x.family for x in s.slots}
    )


def test_user_answers_with_the_statement_in_its_voice(session, pool):
    from capabench.profiles import PROFILES_BY_ID
    from capabench.simulate import SimulatedUser

    user = SimulatedUser(session, pool=pool)
    profile = PROFILES_BY_ID[session.profile_id]
    for slot in session.slots:
        reply = user.respond(REGISTRY[slot.family].question)
        assert reply.revealed == [slot.family] and reply.verdict is None
        assert slot.statement in reply.text and reply.text == profile.answer.format(
            statement=slot.statement
        )
    vague = user.respond("Anything else before I start?")
    assert vague.revealed == [] and vague.text == profile.unsure


def test_user_never_gives_away_hidden_material(session, pool):
    from capabench.simulate import SimulatedUser

    user = SimulatedUser(session, pool=pool)
    texts = [user.respond(q).text for family in PARAPHRASES for q in PARAPHRASES[family]]
    held = {s.family for s in session.slots}
    for text in texts:
        assert "CASES" not in text and "_same" not in text and session.reference not in text
        for family in set(REGISTRY) - held:
            assert all(alt.statement not in text for alt in REGISTRY[family].alternatives)


def test_user_judges_submissions(session, pool):
    from capabench.simulate import SimulatedUser

    user = SimulatedUser(session, pool=pool)
    good = user.respond(f"Here you go:\n```python\n{session.reference}```")
    assert good.verdict is not None and good.verdict.passed and good.revealed == []
    plain = user.respond(f"```python\n{session.original}```\nShould I name it differently?")
    assert plain.verdict is not None and plain.verdict.status in ("failed", "error")
    detail = plain.verdict.detail.splitlines()[0][:100]
    assert detail[:60] in plain.text
    if "naming" in {s.family for s in session.slots}:
        assert plain.revealed == ["naming"]
    wrong_name = user.respond("```python\ndef something_else(x):\n    return x\n```")
    assert wrong_name.verdict is not None and not wrong_name.verdict.passed
    snippet = user.respond("Would `sorted(xs)` be fine?\n```python\nsorted(xs)\n```")
    assert snippet.verdict is None
