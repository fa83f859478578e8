from __future__ import annotations

import json
from pathlib import Path

import pytest

from capabench.conventions import REGISTRY
from capabench.models.scripted import ScriptedModel
from capabench.simulate import SimulatedUser, questions, targeted_families
from capabench.simulate.intent import DEFAULT_MATCHER, make_matcher
from capabench.simulate.intent.fidelity import load_bank, measure, users
from capabench.simulate.intent.llm import LLMMatcher
from capabench.simulate.intent.text import invites, questions_of

ALL = sorted(REGISTRY)
BANKS = Path(__file__).parent / "data" / "user_questions"


def test_the_public_bank_is_well_formed():
    for name in ("tune.json", "heldout.json"):
        bank = load_bank(BANKS / name)
        per = {f: sum(f in e.targets for e in bank if len(e.targets) == 1) for f in ALL}
        assert min(per.values()) >= 12, per
        assert sum(not e.targets for e in bank) >= 30
        assert sum(len(e.targets) == 2 for e in bank) >= 12
    parts = sorted(BANKS.glob("*.json"))
    assert len(parts) >= 22
    for path in parts:  # every part: known families; two-family messages ask about families
        for entry in load_bank(path):  # a user can hold together
            if len(entry.targets) == 2:
                a, b = entry.targets
                assert REGISTRY[a].mechanism != REGISTRY[b].mechanism, (path.name, entry.text)
            assert len(entry.targets) <= 2, (path.name, entry.text)


def test_rules_read_the_bank_they_were_written_on():
    """The part of the bank the rules were tuned on: the acceptance bar, as a regression
    guard (the held-out part is measured by benchmarks/user_fidelity.py, not asserted)."""
    fid = measure(make_matcher("rules"), load_bank(BANKS / "tune.json"))
    assert fid.recall >= 0.95 and min(f.recall for f in fid.per_family.values()) >= 0.85, fid.misses
    # The bank labels one family where a question names two of a mechanism ("a logger, a file
    # path, plain stdout?" is log_channel there); the rules count both, as the real-question
    # corpus's rule does, so their false reveals here sit a little over the 0.5% bar.
    assert fid.false_reveal_rate <= 0.01, fid.false
    assert fid.off_target_reveals == 0


@pytest.mark.parametrize("family", ALL)
def test_each_familys_own_question_and_cue_target_it_alone(family):
    f = REGISTRY[family]
    assert targeted_families(f.question, ALL) == [family]
    for cue in f.cues:
        if cue:
            assert targeted_families(f'What exactly do you mean by "{cue}"?', ALL) == [family]


def test_asking_about_everything_reveals_exactly_what_each_user_holds():
    """The asker policy's message (one bullet per family) against every admissible user."""
    message = "Before I start:\n" + "\n".join(f"- {REGISTRY[f].question}" for f in ALL)
    for held in users():
        assert targeted_families(message, list(held)) == list(held)


def test_asking_covers_questions_requests_and_assumptions():
    asking = [
        "Should the list be sorted?",
        "should the list be sorted",
        "Let me know whether the list should be sorted.",
        "I'll assume you want the list sorted unless you say otherwise.",
        "Going with a sorted list; shout if not.",
        "by tidy do u mean sorted",
        "sorted or in original order",
    ]
    for text in asking:
        assert questions(text), text
    statements = [
        "I sorted the list and removed duplicates.",
        "Here is the function.",
        "It returns the sorted list.",
    ]
    for text in statements:
        assert questions(text) == [], text


def test_sentences_survive_abbreviations_code_and_lists():
    text = "Should the result be tidy, e.g. sorted ascending, i.e. smallest first? Thanks."
    assert questions(text) == [
        "Should the result be tidy, e.g. sorted ascending, i.e. smallest first?"
    ]
    assert questions("Is `x.sort()` what you mean? Fine.") == ["Is `x.sort()` what you mean?"]
    listed = "A few things to confirm:\n- the letter case of the text\n- where you watch your logs"
    assert [q.text for q in questions_of(listed)] == [
        "A few things to confirm: the letter case of the text",
        "A few things to confirm: where you watch your logs",
    ]
    message = "I sorted the list and removed duplicates.\n```python\ndef f(x):\n    # should it log?\n    return x\n```"
    assert questions(message) == [] and targeted_families(message, ALL) == []


def test_a_question_that_refers_back_is_read_with_what_it_refers_to():
    message = 'You said to "return it the way we agreed". What was that?'
    assert targeted_families(message, ALL) == ["envelope"]
    assert targeted_families("What was that?", ALL) == []
    plan = "I'll write each result to a JSON file in the working directory. Is that right?"
    assert targeted_families(plan, ALL) == ["result_file"]
    # "that" points at the nearest sentence, not at a statement about the code before it
    nearest = (
        "It handles negative inputs by using absolute values. "
        "You said you'll check the result \"where you always look\". I don't know where that is."
    )
    assert targeted_families(nearest, ALL) == ["result_file"]
    # an invitation reads the nearest sentence first: what the draft does two sentences back
    # is not what it asks about; one that points at both reads both
    logged = (
        "It logs each call at INFO through the logging module. I can't see our earlier chats, "
        "so I don't know the format we settled on. Tell me and I'll adapt it."
    )
    assert targeted_families(logged, ALL) == ["serialized"]
    both = (
        "It works on one record per call, so you can loop over your records. I don't know the "
        "format we settled on. Tell me about both and I'll adapt them."
    )
    assert set(targeted_families(both, ALL)) == {"batch", "serialized"}
    # "correct me on any" points at all of it
    every = "I return json.dumps of the value. And for negative n I raise. Correct me on any."
    assert set(targeted_families(every, ALL)) == {"serialized", "negative_input"}


def test_an_explaining_label_opens_a_statement_not_a_question():
    assert questions("How it works: for each group it keeps a running depth counter.") == []
    assert questions("How it works: is a running counter enough?") != []


def test_statements_ask_nothing_however_they_open():
    # a relative clause is no inverted question; "would otherwise" invites nothing; a change
    # the user could make, or an explanation opened with "What X covers here:", asks nothing
    assert questions("Take the last `k` elements, which are the largest ones.") == []
    assert questions("Choices: a negative number would otherwise put a '-' into it.") == []
    assert questions("If you'd rather have bad records raise, that's a one-line change.") == []
    assert questions("If you'd rather have bad records raise, that's a one-line change; say so.")
    assert questions("Rename it if you like.") == []
    # an edit the user can make themselves is offered, not asked; one asking something back asks
    assert questions("I called it `area`; rename it if you need something else.") == []
    assert questions("You didn't give a name, so rename it if you need to.") == []
    # ... in parentheses too (an offer inside the sentence that states the name)
    assert questions("I named it `is_prime` (rename it if you need something else):") == []
    # however its code is written, and in whatever words the change is offered
    assert questions("If you want the input order kept (`[5, 3, 2]`), use `list(l)`.") == []
    assert questions("If you wanted duplicates kept instead, it's just `[x + 1 for x in l]`.") == []
    # what the draft already covers is said, not asked
    assert questions("If you meant unusual inputs, those are covered too.") == []
    assert questions("If you meant input order, drop the `sorted(...)` call.") == []
    assert questions("If it's not `f(a, b)`, paste the call and I'll adapt it.") != []
    assert questions('What "robust" covers here: floats raise a TypeError.') == []
    # a list headed "worth knowing" is notes, not questions
    notes = "Details worth knowing:\n- Negative numbers: `abs()` removes the sign.\n- Floats raise."
    assert questions(notes) == []


# A small model's reply explains before its code: no verb of a relative clause or of an
# infinitive opens a question, an announced plan's steps are the assistant's, advice for the
# user's own edit asks nothing, nor does a question the reply answers itself, under it
EXPLAINING = [
    "It is a series of numbers where each number is the sum of the two.",
    "To do this, we can compare each element with the next one.",
    "We can do this by taking the cube root of `a`.",
    "Here's a step-by-step approach to achieve this:\n\n"
    "1. Define a function `hex_key` that takes a string `num` as input.\n"
    "2. Return the count.",
    "To clarify the function, here are the key points:\n"
    "1. The function takes two parameters: `l` (a list of numbers) and `t`.\n"
    "2. It returns `True` if all numbers are below `t`.",
    "To implement it, we need to check if the string meets the following criteria:\n"
    "1. The length of the string is at least 3.\n2. No letter appears twice in a row.",
    "However, if you want the function to handle other types of inputs, you can add "
    "some error handling.",
    "Here are the clarifying questions you need answered:\n\n"
    "1. **How should the function handle duplicate elements?**\n"
    "   - The function should return only unique elements.\n",
    "1. **What is the input to the function?**\n"
    "   - The function takes two parameters: a list of strings and a prefix.\n"
    "2. **What is the expected behavior?**\n"
    "   - The function should return an empty list if the input list is empty.\n"
    "   - It keeps only the strings that start with the prefix.",
]
# ... while the same forms still ask where they ask (options under a question, too)
STILL_ASKING = [
    "1. **What does clean mean?** Some options:\n   - no trailing whitespace,\n   - case",
    "Also, should I sort the output",
    "for below_threshold(l, t) do u call it with l and t separately",
    "if the input is None or garbage what should it do",
    "on ur side is it list, or string",
    "Here are the steps:\n1. Should negatives raise?",
    "If you want a different name, you can tell me.",
    "My working hypothesis is lowercase; stop me if you had another rule.",
]


@pytest.mark.parametrize("message", EXPLAINING)
def test_an_explanation_of_the_approach_asks_nothing(message):
    assert questions(message) == []


@pytest.mark.parametrize("message", STILL_ASKING)
def test_the_forms_an_explanation_shares_still_ask_where_they_ask(message):
    assert questions(message) != []


def test_a_list_item_asks_where_it_asks_and_its_heading_is_its_last_sentence():
    message = (
        "The logic is clear: it sums the sorted values. Two things to check:\n"
        "1. **Tidy**: I read it as sorted without duplicates. That drops the -2. Is that right?\n"
        "2. Where you watch your logs."
    )
    asked = questions_of(message)
    # (how the writer reads the request is what the draft does: the question asks about it)
    assert [q.text for q in asked] == [
        "Two things to check: Is that right?",
        "Two things to check: Where you watch your logs.",
    ]
    # "Is that right?" is read with its item, not with the heading's prose or the -2
    assert (
        asked[0].context == "**Tidy**: I read it as sorted without duplicates. That drops the -2."
    )
    assert set(targeted_families(message, ALL)) == {"tidy_list", "log_channel"}


def test_what_the_draft_does_is_put_up_only_by_an_invitation_that_reaches_back_to_it():
    # an invitation about the logs doesn't put up the return type the draft states
    logs = (
        "It returns Python's `True`/`False`. I don't know where you usually check results, "
        "so if you need it printed or logged somewhere, tell me."
    )
    assert "yes_no" not in targeted_families(logs, ALL)
    assert "log_channel" in targeted_families(logs, ALL)
    # one that names nothing, or asks for anything different, does
    bare = "It returns Python's `True`/`False`. Let me know if anything should change."
    assert targeted_families(bare, ALL) == ["yes_no"]
    different = (
        "It returns Python's `True`/`False`. If your logs or anything else should be "
        "different, let me know."
    )
    assert set(targeted_families(different, ALL)) == {"yes_no", "log_channel"}


def test_descriptions_of_the_draft_are_statements_however_they_end():
    # "False otherwise" ends a description; "otherwise, tell me" invites
    assert questions("It returns True if x is even, and False otherwise.") == []
    assert questions("It returns True; otherwise say so.") != []
    # a subject of two alternatives with its verb states what happens
    assert questions("Zero or negative sides also fail the check and return `-1`.") == []
    assert questions('Zero, negative, NaN or infinite sides give `"no"`.') == []
    assert (
        questions("If it ever goes negative, or doesn't end at 0, the brackets don't match.") == []
    )
    assert questions("Non-integers like `2.5` raise a `TypeError` rather than passing.") == []
    assert questions("Raise or return None.") != []
    # what the code assumes is said of the code; what the writer assumes is put up
    assert questions("It assumes a non-negative integer.") == []
    assert questions("I assume a non-negative integer.") != []
    # how the writer read the request is what the draft does: asked only where invited
    assert questions('I read "tidy" as sorted with duplicates removed.') == []
    assert questions('I\'m reading "yes/no" as a boolean (`True`/`False`).') == []
    assert questions('I read "tidy" as sorted. Tell me if anything should differ.') != []
    assert targeted_families('I read "tidy" as sorted. Correct me if not.', ALL) == ["tidy_list"]
    assert questions("Notes: If you'd rather skip bad input, that's easy to change.") == []


@pytest.mark.parametrize("matcher", ["learned", "rules"])
def test_plain_questions_about_the_inputs_edges_reach_their_family(matcher):
    m = make_matcher(matcher)
    asked = {
        "If the input could contain anything other than parentheses, how should that be "
        "handled?": "bad_input",
        "How are notes separated in the input: single spaces?": "input_format",
        "What should happen for `n <= 0`: return something specific, or raise?": "negative_input",
        "Are the numbers in the input list always positive integers?": "negative_input",
        "Can I assume n is non-negative?": "negative_input",
    }
    for question, family in asked.items():
        assert family in m.read(question, ALL).targets(ALL), question
    # the result's sign is not the input's
    assert "negative_input" not in m.read(
        "Can I assume the result is always positive?", ALL
    ).targets(ALL)
    # the output's separators are not the input's
    assert "input_format" not in m.read("How should the output numbers be separated?", ALL).targets(
        ALL
    )


def test_a_call_in_code_is_not_the_word_a_plain_question_asks_with():
    from capabench.simulate.intent.rules import asked_plainly

    choice = "`heapq.nlargest(k, arr)` vs `sorted(arr)[-k:]`: same result; any preference?"
    assert "tidy_list" not in asked_plainly(choice)
    assert "tidy_list" in asked_plainly("Should the result be sorted, or any order?")


@pytest.mark.parametrize(
    "message",
    [
        "I'm assuming the limit is zero, as the function name suggests.",
        "From the function name, I'm assuming the indices are every third one.",
        'Since the function is named `add`, I\'m taking "combine" to mean addition.',
        "Because the function is called `modp`, I'm assuming you want 2^n modulo p.",
    ],
)
def test_the_name_read_as_evidence_of_the_task_asks_nothing_about_naming(message):
    assert "naming" not in targeted_families(message, ALL)


def test_upper_and_lower_case_as_the_same_character_is_matching_not_the_returned_case():
    question = "Should the function consider uppercase and lowercase as the same character?"
    assert "clean_text" not in targeted_families(question, ALL)


def test_the_name_asked_about_is_naming():
    assert "naming" in targeted_families("Should the function be called `add`?", ALL)
    assert "naming" in targeted_families("Is the function name `add` right for you?", ALL)


def test_an_input_outside_the_tasks_own_symbols_is_bad_input():
    legend = "And what should happen with a token that isn't in the legend: raise or skip it?"
    assert targeted_families(legend, ALL) == ["bad_input"]
    assert targeted_families("What should an unknown word give: an error or skip it?", ALL) == [
        "bad_input"
    ]


def test_numbers_of_a_traced_example_ask_nothing_about_negatives():
    message = (
        "Checks: `[1, 2, 3]` → 6, `[-1, -5, 2]` → −4.\n\nIt returns a plain int. "
        'What\'s "your way" of writing the number?'
    )
    assert targeted_families(message, ALL) == ["number_style"]
    traced = "Checks: 1 + (-5) + 2 = -2. What's your way of writing the number?"
    assert targeted_families(traced, ALL) == ["number_style"]
    assert targeted_families("What should happen for n = -2?", ALL) == ["negative_input"]


@pytest.mark.parametrize(
    "question",
    [
        "What should I call the temp list in the middle, `thirds` or `every_third`?",
        "What should I name the branch for this?",
        "snake_case for locals, any lint config I should match?",
        "Does your CI print coverage in the job output?",
        "Should the docstring examples match the printed output exactly?",
        "Should the tests include lists with negative numbers?",
        "mypy reports an invalid type comment on line 3; drop it?",
    ],
)
def test_what_is_said_of_the_code_tests_and_tooling_asks_about_no_convention(question):
    assert targeted_families(question, ALL) == []


def test_a_draft_return_said_before_so_is_not_what_is_asked():
    message = "It returns `True`/`False`, so tell me if it should print or write somewhere instead."
    assert "yes_no" not in targeted_families(message, ALL)
    # an entry point is where the call comes in, not the function's name
    hook = "Should it hook into a specific entry point, a `main()` or a CLI command?"
    assert "naming" not in targeted_families(hook, ALL)


def test_the_same_words_about_the_function_still_ask():
    assert targeted_families("What should I call the function?", ALL) == ["naming"]
    assert targeted_families("snake_case or camelCase for the function?", ALL) == ["naming"]
    assert targeted_families("Should each result be printed to stdout?", ALL) == ["log_channel"]
    assert targeted_families("Can the inputs be negative numbers?", ALL) == ["negative_input"]


def test_a_recap_of_what_was_asked_asks_nothing_new():
    message = (
        "It raises on negative input. Should the result be logged? "
        "Once you confirm the two points above I'll send the finished function."
    )
    recap = questions_of(message)[-1]
    assert recap.text.startswith("Once you confirm") and not recap.elliptical
    assert targeted_families(message, ALL) == ["log_channel"]


def test_items_stating_the_evidence_under_a_question_ask_nothing_themselves():
    message = (
        "Both examples disagree with the usual median, so I want to check before writing it:\n"
        "- `[3, 1, 2, 4, 5]` sorted is `[1, 2, 3, 4, 5]`, so the median is `3`.\n"
        "- The docstring says `2`.\n"
        "- Negative values: the spec is silent."
    )
    items = [q.own for q in questions_of(message) if q.heading]
    assert items == ["Negative values: the spec is silent."]
    # a list of assumptions is put up for correction, statements and all
    assumed = "Assumptions I made:\n- The input is never empty.\n- Negatives are allowed."
    assert len([q for q in questions_of(assumed) if q.heading]) == 2


def test_a_farewell_and_a_labelled_account_of_the_draft_ask_nothing():
    assert questions("Have fun with the project!") == []
    assert questions("Have you got a logger you prefer?") != []
    done = "What I did for robustness: `None`, non-integer items and negatives are all handled."
    assert questions(done) == []


def test_what_the_draft_does_under_a_label_is_put_up_only_for_an_invitation_naming_nothing():
    message = (
        "Choices:\n- It returns a plain string with no quotes, so the text comes back clean.\n"
        "- It logs each result at INFO.\n\n"
        'I don\'t know what "our usual format" is, so tell me what it was.'
    )
    assert [q.put_up for q in questions_of(message)] == [True, True, False]
    assert targeted_families(message, ALL) == ["serialized"]
    # what would otherwise happen is no invitation to correct anything
    assert not invites("Negatives are rejected, since `bin(-5)` would otherwise add a `-`.")
    assert invites("I return None for them; otherwise let me know.")


def test_an_edit_offered_as_needed_is_no_question():
    assert questions("I don't know your log setup, so adjust the logger name as needed.") == []
    assert questions("Adjust the level as you see fit, or tell me which one you use.") != []
    # an edit the user can make, under a label, asks nothing either; asking for it back does
    diy = "Choices and reasoning: If you'd rather have an error for negative input, add a check."
    assert questions(diy) == []
    assert questions("If you want it saved, add a path and tell me which.") != []


@pytest.mark.parametrize(
    "question",
    [
        "Where should the result go?",
        "If you need the result delivered somewhere other than the return value, tell me where.",
    ],
)
def test_where_the_result_goes_asks_about_the_result_file(question):
    # (a question that says what it asks is read in its own words, not with its context)
    assert targeted_families(f"Negative inputs raise a ValueError. {question}", ALL) == [
        "result_file"
    ]
    assert targeted_families(question, ALL) == ["result_file"]


def test_a_list_item_is_read_in_its_own_words_before_its_heading():
    message = (
        "I don't have our earlier conversations, so I don't know what was agreed:\n"
        "- **Logs**: what do you use, `print` or a logger?\n"
        "- Type hints?\n"
        "- The shape of the result."
    )
    # the heading's "agreed" doesn't reach an item that names its own family
    items = make_matcher("rules").read(message, ALL).questions[1:]
    assert [q.targets for q in items] == [("log_channel",), (), ()]


def test_a_wrapper_around_the_call_is_not_one_around_the_result():
    assert "envelope" not in targeted_families(
        "Any type hints, or a wrapper you route it through?", ALL
    )
    signature = "Is `f(a, b)` with two strings right, or is there a wrapper or different signature?"
    assert "envelope" not in make_matcher("rules").read(signature, ALL).targets(ALL)
    assert "envelope" in targeted_families("Should the result come back in a wrapper dict?", ALL)
    # booleans among the inputs are not how the answer is written
    assert "yes_no" not in targeted_families("**Booleans** (`True` is an `int`): reject them?", ALL)


def test_what_the_spec_leaves_open_and_why_labels_are_statements():
    assert questions("**Sign:** the spec doesn't say how to treat the sign.") == []
    assert questions("Why: the smallest such sum is 8, and odd numbers never work.") == []
    assert questions("Why `abs`: in Python, `-17 % 10` is 3.") == []
    assert questions('Why `format(n, "b")` and not `bin(n)`: `bin` adds a prefix.') == []
    assert (
        questions("The spec says start <= end can be assumed, so this only guards bad data.") == []
    )
    # an edit offered to the user invites nothing: what the draft returns stays a statement
    offered = "It returns `True`/`False`. If you want strings, use `'yes' if ok else 'no'`."
    assert questions(offered) == []
    assert questions("It returns `True`/`False`. If you want strings, tell me.") != []
    # nor is a "please run your checks" heading a list of questions, nor a logger's name a
    # function's, nor the file layout of the delivered code where the result goes
    traced = "I traced your examples by hand (please run your checks):\n- `f(2)` gives 4\n- `f(3)` gives 9"
    assert not any("gives" in q for q in questions(traced))
    logger = "A `logging` logger (which name and level?), or a plain `print`?"
    assert "naming" not in targeted_families(logger, ALL)
    layout = (
        "If you agreed on something else (a tuple, or a particular file/module layout), tell me."
    )
    assert "result_file" not in targeted_families(layout, ALL)


def test_lead_ins_and_statements_of_the_draft_are_not_read_with_what_came_before():
    lead_in = "It never goes negative, so it is fine. One question first:"
    assert targeted_families(lead_in, ALL) == []
    count = "Negative inputs raise a ValueError. Two assumptions, since I can't infer them."
    assert targeted_families(count, ALL) == []
    draft = "You asked for the number in report style. It returns a plain `int`."
    assert "number_style" not in targeted_families(draft + " Thoughts?", ["negative_input"])
    assert targeted_families("You said send it back like last time. Tell me and I'll add it.", ALL)
    # a clause stating what the draft returns is not what the sentence asks about
    stated = "This just returns `True`/`False`; if you need it printed, tell me where."
    assert targeted_families(stated, ALL) == ["log_channel"]


def test_function_names_are_not_concept_words():
    assert targeted_families("Is `sort_third` the name you want in your code?", ALL) == ["naming"]
    # "name/signature" asks for the name as well as for the call
    asked = targeted_families("What name/signature does your usual call use?", ALL)
    assert set(asked) == {"naming", "packed_args"}


@pytest.fixture(scope="module")
def session(built):
    bench, _ = built
    return next(
        s
        for s in bench.sessions
        if s.split == "heldout" and {x.family for x in s.slots} == {"naming", "batch"}
    )


def test_answering_policy(session, pool):
    from capabench.profiles import PROFILES_BY_ID

    user = SimulatedUser(session, pool=pool)
    profile = PROFILES_BY_ID[session.profile_id]
    slots = {s.family: s for s in session.slots}
    statement = slots["naming"].statement
    for message in (
        REGISTRY["naming"].question,
        "I'll keep the function name exactly as in the signature unless your codebase names things differently.",
        "I'll name it in camelCase; correct me if your naming convention is different.",
    ):  # a question, a right or a wrong assumption: the statement confirms or corrects
        reply = user.respond(message)
        assert reply.revealed == ["naming"] and reply.text == profile.answer.format(
            statement=statement
        )
    both = user.respond(
        "What should the function be called, and will you call it over all your records at once?"
    )
    assert set(both.revealed) == {"naming", "batch"}
    assert all(slots[f].statement in both.text for f in ("naming", "batch"))
    for message in ("What letter case should the returned text be in?", "Should I add type hints?"):
        reply = user.respond(message)  # a family the user doesn't hold, or nothing they care about
        assert reply.revealed == [] and reply.text == profile.unsure
        assert [q.text for q in reply.unanswered] == [message]


def test_user_never_gives_away_hidden_material(session, pool):
    user = SimulatedUser(session, pool=pool)
    bank = load_bank(BANKS / "tune.json") + load_bank(BANKS / "heldout.json")
    held = {s.family for s in session.slots}
    for entry in bank:
        reply = user.respond(entry.text) if "```" not in entry.text else None
        if reply is None:
            continue
        assert set(reply.revealed) <= held
        assert "CASES" not in reply.text and session.reference not in reply.text
        for family in set(REGISTRY) - held:
            assert all(alt.statement not in reply.text for alt in REGISTRY[family].alternatives)
        for family in held - set(reply.revealed):
            assert all(alt.statement not in reply.text for alt in REGISTRY[family].alternatives)


def test_user_judges_submissions(session, pool):
    user = SimulatedUser(session, pool=pool)
    good = user.respond(f"Here you go:\n```python\n{session.reference}```")
    assert good.verdict is not None and good.verdict.passed and good.revealed == []
    plain = user.respond(f"```python\n{session.original}```\nShould I name it differently?")
    assert plain.verdict is not None and plain.verdict.status in ("failed", "error")
    assert plain.verdict.detail.splitlines()[0][:60] in plain.text
    assert plain.revealed == ["naming"]
    wrong_name = user.respond("```python\ndef something_else(x):\n    return x\n```")
    assert wrong_name.verdict is not None and not wrong_name.verdict.passed
    snippet = user.respond("Would `sorted(xs)` be fine?\n```python\nsorted(xs)\n```")
    assert snippet.verdict is None


def test_a_turn_asks_when_the_user_read_an_asking_sentence_whatever_the_matcher(session, pool):
    """The run counts asks from the user's own reading, turn by turn. The llm matcher hands the
    whole prose of a message to the model even when no sentence asks: that is still no ask."""
    from capabench.simulate import run_session

    code = f"Here is a first version:\n```python\n{session.original}```"
    question = "What should the function be called?"
    llm = LLMMatcher(ScriptedModel(lambda messages: '{"families": ["naming"]}'))
    for matcher in (make_matcher("rules"), llm):
        user = SimulatedUser(session, pool=pool, matcher=matcher)
        submitted = user.respond(code)
        assert not submitted.asked and submitted.reading.asking_sentences == 0
        assert user.respond(question).asked
    assert len(llm.read(code, ["naming"]).questions) == 1  # read, though nothing asked

    class Scripted:
        def __init__(self, replies):
            self.replies = iter(replies)

        def reply(self, turns):
            return next(self.replies)

    assistant = Scripted([question, code, f"{question}\n\n{code}"])
    played = run_session(
        session, assistant, SimulatedUser(session, pool=pool, matcher=llm), budget=3
    )
    assert played.asked == [True, False, True] and played.user_questions == 3


def test_llm_matcher_reads_json_and_falls_back_to_rules_when_it_cant():
    question = "What should the function be called?"
    held = ["naming", "batch"]
    good = LLMMatcher(ScriptedModel(['{"families": ["naming"]}']))
    reading = good.read(question, held)
    assert reading.targets(held) == ["naming"] and reading.matcher == "llm" and not reading.note
    assert good.model.json_calls == 1
    prompt = good.model.calls[0][0].content
    assert REGISTRY["naming"].concept in prompt and REGISTRY["tidy_list"].concept not in prompt
    for answer in ("naming", '{"families": ["tidy_list"]}', '{"families": "naming"}', "[]"):
        bad = LLMMatcher(ScriptedModel([answer]))
        reading = bad.read(question, held)
        assert reading.matcher == "llm->rules" and "unreadable" in reading.note
        assert reading.targets(held) == ["naming"]  # the rules' reading
    assert LLMMatcher(ScriptedModel(['{"families": []}'])).read(question, held).targets(held) == []


def test_unknown_matchers_and_llm_without_a_model_are_refused():
    with pytest.raises(ValueError, match="known: learned, llm, rules, semantic"):
        make_matcher("regex")
    with pytest.raises(ValueError, match="user model"):
        make_matcher("llm")


def test_runs_record_unanswered_questions_and_the_audit_rereads_them(built, pool, tmp_path):
    from typer.testing import CliRunner

    from capabench.benchmark import default_benchmark_path, write_benchmark
    from capabench.cli import app
    from capabench.report import load_runs
    from capabench.report.tables import condition_rows
    from capabench.runner import RunConfig, Runner, select_sessions

    bench, _ = built
    session = select_sessions(bench, 1)[0]
    held = [s.family for s in session.slots]
    script = ["Should I add type hints?", REGISTRY[held[0]].question, "Any other requirements?"] * 3
    (tmp_path / "assistant.json").write_text(json.dumps(script))
    config = RunConfig(
        model=f"scripted:{tmp_path / 'assistant.json'}", conditions=["none"], limit=1, concurrency=1
    )
    (result,) = Runner(config, bench, tmp_path / "run", pool=pool).run()
    assert result.user_questions == 8
    assert [(q.turn, q.text) for q in result.unanswered][:3] == [
        (1, "Should I add type hints?"),
        (3, "Any other requirements?"),
        (4, "Should I add type hints?"),
    ]
    assert len(result.unanswered) == 5 and all(
        q.matcher == DEFAULT_MATCHER for q in result.unanswered
    )
    (row,) = condition_rows(load_runs([tmp_path / "run"]))
    assert row["unanswered questions %"] == 62.5

    # The second opinion: says the first unanswered question targets a held family, then
    # nothing, then gives an unreadable answer.
    answers = [
        json.dumps({"families": [held[1]]}),
        '{"families": []}',
        "no idea",
        '{"families": []}',
        '{"families": []}',
    ]
    (tmp_path / "auditor.json").write_text(json.dumps(answers))
    if not default_benchmark_path(0).exists():  # the command loads the cached default benchmark
        write_benchmark(bench, default_benchmark_path(0))
    out = CliRunner().invoke(
        app,
        [
            "audit-user",
            str(tmp_path / "run"),
            "--user-model",
            f"scripted:{tmp_path / 'auditor.json'}",
            "--no-cache",
        ],
    )
    assert out.exit_code == 0, out.output
    audit = json.loads((tmp_path / "run" / "user-audit.json").read_text())
    (cond,) = audit["conditions"]
    assert (cond["unanswered"], cond["misses"], cond["unreadable"]) == (5, 1, 1)
    assert audit["questions"][0]["found"] == [held[1]] and "simulator misses" in out.output
    missing = CliRunner().invoke(
        app, ["audit-user", str(tmp_path / "nowhere"), "--user-model", "local"]
    )
    assert missing.exit_code != 0 and "not a run directory" in missing.output


GENERIC_QUESTIONS = (
    "What are the expected input and output?",
    "Any other requirements?",
    "What format should the output be in?",
)
OUTPUT_FORMAT = ("envelope", "serialized", "number_style", "yes_no", "clean_text", "tidy_list")


def _user_holding(families: tuple[str, ...], matcher: str) -> SimulatedUser:
    """A user holding each family's first alternative, on a stub task (no code is judged)."""
    from capabench.records import Session, Slot

    slots = tuple(
        Slot(
            family=f,
            mechanism=REGISTRY[f].mechanism,
            alternative=REGISTRY[f].alternatives[0].id,
            statement=REGISTRY[f].alternatives[0].statement,
        )
        for f in families
    )
    session = Session(
        id="s", user_id="u", profile_id="terse-expert", cell=0, index=0, split="heldout",
        task_id="t", base_entry_point="f", entry_point="f", signature="def f(x)", request="r",
        slots=slots, hidden_tests="", reference="", original="",
    )  # fmt: skip
    return SimulatedUser(session, matcher=make_matcher(matcher))


@pytest.mark.parametrize("matcher", ["learned", "rules"])
@pytest.mark.parametrize("family", OUTPUT_FORMAT)
def test_generic_questions_get_use_your_judgement_even_from_an_output_format_user(family, matcher):
    # The corpus rule (tests/data/real_questions/README.md) gives these no target, the output
    # families at most "defensible"; the user answers what is asked, so it says nothing of them.
    from capabench.profiles import PROFILES_BY_ID

    partner = next(
        f for f in ("bad_input", "naming") if REGISTRY[f].mechanism != REGISTRY[family].mechanism
    )
    user = _user_holding((family, partner), matcher)
    unsure = PROFILES_BY_ID["terse-expert"].unsure
    for question in GENERIC_QUESTIONS:
        reply = user.respond(question)
        assert reply.revealed == [] and reply.text == unsure, question
        assert reply.asked  # it is still a question the user read
    # The family's own question is answered: the user says what is asked about.
    assert user.respond(REGISTRY[family].question).revealed == [family]


def test_generic_followed_by_a_named_concept_is_answered():
    user = _user_holding(("serialized", "bad_input"), "learned")
    reply = user.respond("What format should the output be in? A JSON string or the Python object?")
    assert reply.revealed == ["serialized"]


def test_unfenced_code_docstrings_and_recorded_reasoning_ask_nothing():
    pasted = (
        'Here is my draft.\n\ndef f(x):\n    """Otherwise, it returns False.\n    Should it?"""\n'
        "    return abs(x) if x else None\n\n>>> f(-2)\n2\n\nDoes this look right to you?"
    )
    assert questions(pasted) == ["Does this look right to you?"]
    assert targeted_families(pasted, ALL) == []
    # the same words in prose addressed to the user do ask
    assert "negative_input" in targeted_families("Should f take abs() of a negative x?", ALL)
    docstring = '"""Return True if ok.\nShould negative numbers raise?\n"""\nAnything else?'
    assert questions(docstring) == ["Anything else?"]
    reasoning = "The user may want logging of each result? I'll ask.\n</think>\n\nShall I proceed?"
    assert questions(reasoning) == ["Shall I proceed?"]
    assert targeted_families(reasoning, ALL) == []
    # a plain statement about behaviour is not a request
    assert questions("Otherwise, it returns False.") == []
    # a report of checks, an explanation's heading, a question quoted in a statement and a
    # count ask nothing
    report = "Checks:\n- `f(-12)` -> `(1, 1)`\n- `f(0)` -> `(1, 0)`\n\nWhy it's written this way:\n"
    assert questions(report) == []
    quoted = 'So the question is really "is this array a rotation of a sorted array?"'
    assert questions(quoted) == []
    assert questions("Two or more breaks means no rotation can fix it.") == []
    # while a quoted cue in a question, and a list the heading says are questions, still ask
    assert questions('**"Give me clean text back"**: what does "clean" mean here?') != []
    assert questions("A few things to check:\n- the order\n- the case") != []
    # prose that starts like code is still prose
    assert questions("return the raw value or wrapped in a dict?") == [
        "return the raw value or wrapped in a dict?"
    ]


def test_fidelity_counts_a_defensible_reveal_neither_missed_nor_false():
    from capabench.simulate.intent.base import QuestionReading, Reading
    from capabench.simulate.intent.fidelity import BankEntry

    class Reveals:  # reads every message as asking about serialized
        name = "stub"
        session_independent = True

        def read(self, message, families):
            q = QuestionReading(text=message, targets=("serialized",))
            return Reading(matcher=self.name, asking_sentences=1, questions=(q,))

    generic = "What format should the output be in?"
    allowed = measure(Reveals(), [BankEntry(text=generic, defensible=("serialized",))])
    assert allowed.false_reveals == 0 and allowed.off_target_reveals == 0
    assert allowed.defensible_reveals == sum("serialized" in p for p in users())
    unlabelled = measure(Reveals(), [BankEntry(text=generic)])
    assert unlabelled.false_reveals == allowed.defensible_reveals
    assert unlabelled.false_by_family == {"serialized": unlabelled.false_reveals}


@pytest.mark.parametrize("matcher", ["learned", "rules"])
def test_a_familys_words_about_the_other_frame_target_nothing(matcher):
    m = make_matcher(matcher)
    # the sign of the result is not negative input; the user's files to share are not the result's
    for message in (
        "Should the result be positive or negative when b > a?",
        "Please share the files you'd like me to modify.",
        "Could you add the config file to the chat so I can see what it contains?",
        # the case of the examples (the input) is not the returned text's
        "Your examples (`'aba'`, `'zbcd'`) are all lowercase single words, so I can't tell if "
        "mixed-case phrases are in scope.",
    ):
        assert m.read(message, ALL).targets(ALL) == [], message
    # the same words in the family's own frame do
    assert m.read("What should it return for a negative number?", ALL).targets(ALL) == [
        "negative_input"
    ]
    assert m.read("Should I save the result to a file?", ALL).targets(ALL) == ["result_file"]
