"""Plain questions about a family's concept reach it under every matcher (issue 27: the
learned veto dropped "Can the inputs be negative?"), in the family's own frame only; and the
literal gate that speeds the rules up reads every text exactly as the whole alternation."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from capabench.conventions import REGISTRY
from capabench.simulate.intent import make_matcher
from capabench.simulate.intent.generic import generic
from capabench.simulate.intent.literals import (
    Alternation,
    LiteralIndex,
    occurring,
    required_literals,
)
from capabench.simulate.intent.rules import asked_plainly, plain

ALL = sorted(REGISTRY)
BANK = Path(__file__).parent / "data" / "user_questions" / "tune.json"

PLAIN = [
    ("Can the inputs be negative?", "negative_input"),
    ("What should happen if n is negative?", "negative_input"),
    ("Will n be a non-negative integer?", "negative_input"),
    ("what should the fn be named?", "naming"),
    ("Can I assume non-negative integers?", "negative_input"),
    ("Which name is correct, the one in the docstring or the one in the examples?", "naming"),
    ("What should I call the function?", "naming"),
    ("What should the function do with invalid inputs?", "bad_input"),
    ("Do you want me to print the result or return it?", "log_channel"),
    ("Should the output list contain distinct elements?", "tidy_list"),
    ("Should the returned list be in ascending or descending order?", "tidy_list"),
    ("Should the returned string be in upper case or title case?", "clean_text"),
    ("Should it return True/False or the strings yes/no?", "yes_no"),
    ("Should I save the results to a file?", "result_file"),
    ("Should the returned number be written in words?", "number_style"),
    ("What is the format of the input data?", "input_format"),
    ("Are the arguments passed separately or as one tuple?", "packed_args"),
    ("Should I wrap the result in a dict with a status key?", "envelope"),
    (
        "Should it return a plain list like [3, 5], or something else, such as a string?",
        "serialized",
    ),
    ("What do your records look like?", "batch"),
    ("If someone passes floats or strings, should it raise a TypeError?", "bad_input"),
    ("Decimals such as 2.5: raise, or round them down?", "bad_input"),
    ("And should the function have a particular name?", "naming"),
    ("What do you want the decoder function to be called?", "naming"),
    ("Should the function be renamed?", "naming"),
    ("Do you want me to rename the function?", "naming"),
    ("If you call it with a different name, tell me and I'll wire it up.", "naming"),
    ("What should happen to a value that isn't a number?", "bad_input"),
    ("Should the output contain unique elements only?", "tidy_list"),
    # whether the returned number is rounded: defensible by the corpus rule, and what real
    # models' plain questions about the result ask (issue 27's reviewers' classes)
    ("Should the average be rounded to the nearest integer, or returned as is?", "number_style"),
    ("How many decimal places should the result have?", "number_style"),
    ("Do you want me to round the result to 2 decimal places?", "number_style"),
    ("What should happen if the inputs are not integers?", "bad_input"),
    ("What should happen if either `x` or `y` is not an integer?", "bad_input"),
    ("Is the number x a positive integer?", "negative_input"),
    ("Are all the sides positive?", "negative_input"),
    ("Should the function include leading and trailing zeros?", "number_style"),
    ("Is `n` always a positive integer?", "negative_input"),
    ("Is it expected that all coefficients will be non-negative?", "negative_input"),
    ("Can the input list contain negative GPAs?", "negative_input"),
    ("How are the elements in the array represented?", "input_format"),
    ("How are the GPAs provided?", "input_format"),
    (
        "Should the function return the elements in the same order as they appear in the input?",
        "tidy_list",
    ),
    # input the task rules out (two elements needed, a bound the task states)
    ("How should the function handle lists with fewer than two elements?", "bad_input"),
    ("What should it return if the input list has less than 3 items?", "bad_input"),
    ("How should the function handle cases where the input is not less than 100?", "bad_input"),
    (
        "What should happen if the list has one element and the second argument is not given?",
        "bad_input",
    ),
    ("What if the input has symbols other than brackets?", "bad_input"),
    ("Are the integers in the input list positive integers?", "negative_input"),
    ("Can you confirm the lengths of the sides are all positive?", "negative_input"),
    ("Should it handle strings containing characters other than 1s and 0s?", "bad_input"),
    ("Is there a specific requirement for handling edge cases or errors?", "bad_input"),
    ("How should it handle cases where a is not within the specified range?", "bad_input"),
    # what to do with duplicates decides whether the returned list keeps them
    (
        "How does the function handle cases where the input list contains duplicate elements?",
        "tidy_list",
    ),
    ("What is the expected behavior if the input contains duplicate elements?", "tidy_list"),
    # MBPP questions (issue 27's seventeenth session, the tune half)
    ("Is the radius given as a positive floating-point number?", "negative_input"),
    ("Is the input number greater than 1?", "negative_input"),
    ("How should the function handle non-positive radius values?", "negative_input"),
    ("Is there a need to check if the input is an integer?", "bad_input"),
    ("Is there a requirement to handle division by zero?", "bad_input"),
    ("How do you handle cases where the number of sides is less than 3?", "bad_input"),
    ("Is the function returning a boolean value?", "yes_no"),
    ("How is the array passed to the function?", "input_format"),
    ("Is there a specific requirement for sorting the result?", "tidy_list"),
    ("Is there a specific ordering of the elements in the output?", "tidy_list"),
    ("Should the function return unique pairs?", "tidy_list"),
    ("Does the function consider duplicate values in the list?", "tidy_list"),
    ("Should we raise an error if the tuples have different lengths?", "bad_input"),
    ("What if the user does not provide any values for radius and height?", "bad_input"),
    ("Are there any exceptions that should be caught and handled?", "bad_input"),
    ("What if the input is a floating point number?", "bad_input"),
    ("Is the year provided as an integer?", "input_format"),
    # the real tune halves' vetoed true reveals (issue 27's eighteenth session)
    ("Should the function only consider positive integers for n?", "negative_input"),
    ("Is there a requirement to maintain the order of the elements in the list?", "tidy_list"),
    ("Should the order of the elements be preserved?", "tidy_list"),
    ("What if the input list contains multiple identical elements?", "tidy_list"),
    ("What if a number appears more than once in the list?", "tidy_list"),
]

# An input that is not a positive integer may be negative or not an integer at all.
PLAIN_TWO = [
    (
        "How should the function handle cases where the input is not a positive integer?",
        ["bad_input", "negative_input"],
    ),
    (
        "How do you handle the case where the input values are not valid (e.g. negative lengths)?",
        ["bad_input", "negative_input"],
    ),
    # n < 1 where the task wants a positive n: ruled out, and negative numbers among it
    (
        "How should the function handle cases where n is less than 1?",
        ["bad_input", "negative_input"],
    ),
    # an argument named in code ("`n`") is read as a gap, not dropped with its clause
    (
        "How should the function behave if `n` is less than 1?",
        ["bad_input", "negative_input"],
    ),
    # any argument, not only `n`
    (
        "How does the function handle cases where the step is less than 1?",
        ["bad_input", "negative_input"],
    ),
]

# A string offered beside a number, a bool or a print asks whether the result is text, as
# beside a list (the real corpus's labellers, issue 27's ninth session), and the other
# option asks its own family: a user holds one of them and hears about it.
PLAIN_WITH_ANOTHER = [
    ("Should the count come back as a plain int, or as a string?", ["number_style", "serialized"]),
    ("A plain `int` return, a string, or something printed?", ["log_channel", "serialized"]),
    ("Should it return True/False, or a string such as 'True'?", ["serialized", "yes_no"]),
]

# Plain questions whose words also speak of a sibling concept: "unusual" and "range" are
# also how odd values, negatives in particular, are asked about (negative_input's aspects).
PLAIN_BESIDE = [
    ("Or do you mean unusual inputs, like zero or huge numbers?", "bad_input"),
    ("What should it do for values outside the stated range?", "bad_input"),
    # "types of input" is also the form it arrives in, for the rules' words
    ("How does the function handle different types of input?", "bad_input"),
    # input of another kind than the task's (the rules' words also hear the input's form)
    ("Should it handle floating-point inputs?", "bad_input"),
    ("How should the function handle non-tuple inputs?", "bad_input"),
    ("What should happen if the input tuples contain mixed data types?", "bad_input"),
]

# A formatted string offered for a number the question asks how to write is one of the
# number's own forms (two labellers per part named the text format there at most as
# defensible)
NUMBER_AS_TEXT = [
    'Should the count come back as a plain int, or as a formatted string like `"1,234"`?',
    'A plain `int` (e.g. `1`), a formatted string such as `"Count: 1"`, or something else?',
    'Do you want e.g. a formatted string like `"1,234"`, a padded width, or something else?',
]


@pytest.mark.parametrize("matcher", ["rules", "learned"])
@pytest.mark.parametrize("question", NUMBER_AS_TEXT)
def test_a_string_offered_for_a_number_asks_how_the_number_is_written(matcher, question):
    assert make_matcher(matcher).read(question, ALL).targets(ALL) == ["number_style"]


# A family's words in another frame: about the result, the input's state, another name.
OTHER_FRAME = [
    ("Can the result be negative?", "negative_input"),
    # another system's errors are not the input's
    ("How should the function handle network errors from the API?", "bad_input"),
    ("Is the input list already sorted?", "tidy_list"),
    ("Should the comparison be case-insensitive?", "clean_text"),
    ("Does your team have a naming scheme for git branches?", "naming"),
    ("Is the function called once per record?", "naming"),
    ("Should the JSON be written to a file?", "serialized"),
    # a string in the input, in bad input, a number spelled out: their own families ask
    ("Will the input be a list, or a string?", "serialized"),
    ("If someone passes None or a string instead of a list, should it raise?", "serialized"),
    ("Should the count come back as digits, or spelled out in words as a string?", "serialized"),
    # unusual values that are only negative ones are negative_input's
    ("By unusual values I take it you mean negatives?", "bad_input"),
    ("Can the result fall outside the range 0-100?", "bad_input"),
    (
        "Should the result be printed, saved to a file (which name/location?), or returned?",
        "naming",
    ),
    ("Will you call it separately for each pair, or send all of them in one call?", "packed_args"),
    # a file's or a logger's name is not the function's
    ("Tell me if you keep outputs somewhere else or under a different name.", "naming"),
    ("Where should each outcome go: stdout, or a logger with a specific name?", "naming"),
    ("What should happen if the result isn't a string?", "bad_input"),
    (
        "Should the CI run pytest with -v so every test name is printed, or keep the quiet output?",
        "log_channel",
    ),
]


@pytest.mark.parametrize("matcher", ["rules", "learned"])
@pytest.mark.parametrize(("question", "family"), PLAIN)
def test_a_plain_question_reaches_its_family(matcher, question, family):
    assert family in asked_plainly(question)
    assert make_matcher(matcher).read(question, ALL).targets(ALL) == [family]


@pytest.mark.parametrize("matcher", ["rules", "learned"])
@pytest.mark.parametrize(("question", "family"), PLAIN_BESIDE)
def test_a_plain_question_reaches_its_family_beside_a_sibling(matcher, question, family):
    assert family in asked_plainly(question)
    assert family in make_matcher(matcher).read(question, ALL).targets(ALL)


@pytest.mark.parametrize("matcher", ["rules", "learned"])
@pytest.mark.parametrize(("question", "families"), PLAIN_WITH_ANOTHER)
def test_a_string_offered_beside_another_form_asks_both(matcher, question, families):
    assert "serialized" in asked_plainly(question)
    assert make_matcher(matcher).read(question, ALL).targets(ALL) == families


@pytest.mark.parametrize("matcher", ["rules", "learned"])
@pytest.mark.parametrize(("question", "families"), PLAIN_TWO)
def test_a_plain_question_about_two_concepts_reaches_both(matcher, question, families):
    assert "bad_input" in asked_plainly(question)
    assert make_matcher(matcher).read(question, ALL).targets(ALL) == families


@pytest.mark.parametrize("matcher", ["rules", "learned"])
def test_a_string_named_before_the_other_form_asks_serialized(matcher):
    question = "Should it return the result as a string or a binary integer?"
    assert "serialized" in asked_plainly(question)
    assert "serialized" in make_matcher(matcher).read(question, ALL).targets(ALL)


@pytest.mark.parametrize(("question", "family"), OTHER_FRAME)
def test_a_familys_words_in_another_frame_are_no_plain_question_about_it(question, family):
    assert family not in asked_plainly(question)


def test_a_plain_question_reaches_its_family_beside_a_sibling_the_words_found():
    # "a dict" speaks of the envelope, "a string" asks the text format: a user holds one of
    # the two (one mechanism) and hears about the one held
    question = "If we agreed on something else (a dict, a string, a tuple), tell me."
    found = make_matcher("rules").read(question, ALL).targets(ALL)
    assert {"envelope", "serialized"} <= set(found)


@pytest.mark.parametrize(
    "question",
    [
        "What should the function return?",
        # a need to understand the whole input and output asks for them as a whole
        "To clarify the problem, I need to understand the input and output formats.",
        "What is the expected input format for the function?",
        "Which format should the output be in?",
    ],
)
def test_a_generic_question_stays_generic(question):
    assert generic(question)
    assert make_matcher("learned").read(question, ALL).targets(ALL) == []


def test_which_of_alternatives_named_before_is_no_generic_question():
    assert not generic("Which should the function return?")


@pytest.mark.parametrize(
    ("pattern", "needed"),
    [
        (r"\bsav(?:e|ed|ing)\b", {"sav"}),
        (r"\b(?:upper|lower)ed\b", {"upper", "lower"}),  # the longer of two choices
        (r"\bwhere(?:'s| is)? the (?:spot|place)\b", {"where"}),
        (r"(?:a|bc)d?", {"a", "bc"}),
        (r"x*", None),
        (r"(?i)\bsave\b", None),  # any case: no literal to look for
        (r"(?i:sav)e\b", {"e"}),
    ],
)
def test_required_literals(pattern, needed):
    assert required_literals(pattern) == (frozenset(needed) if needed else None)


def test_the_gated_alternation_reads_the_bank_as_the_whole_alternation_does():
    texts = [plain(e["text"]) for e in json.loads(BANK.read_text())]
    for family in ALL:
        v = REGISTRY[family].vocabulary
        for patterns in (v.anchors, v.aspects, v.ignore, v.questions):
            if not patterns:
                continue
            gated = Alternation(patterns)
            whole = re.compile("|".join(f"(?:{p})" for p in patterns))
            for text in texts:
                occur = occurring(gated.literals, text)
                narrowed = gated.narrowed(occur)
                if narrowed is None:
                    assert whole.search(text) is None
                else:  # the same matches, where they are
                    found = [(m.span(), m.group(0)) for m in narrowed.finditer(text)]
                    assert found == [(m.span(), m.group(0)) for m in whole.finditer(text)]
                    assert narrowed.sub(" ", text) == whole.sub(" ", text)
                    first, expected = narrowed.search(text), whole.search(text)
                    assert (first and first.span()) == (expected and expected.span())


def test_the_literal_index_finds_what_a_search_per_literal_finds():
    literals = frozenset(
        lit
        for family in ALL
        for patterns in vars(REGISTRY[family].vocabulary).values()
        if patterns
        for lit in Alternation(patterns).literals
    )
    index = LiteralIndex(literals)
    for entry in json.loads(BANK.read_text()):
        text = plain(entry["text"])
        assert index.occurring(text) == occurring(literals, text)
    assert index.occurring("") == occurring(literals, "")


# A family's words about something else: the rules read no target there.
NOT_ASKED = [
    # the sign of zero is the task's rule, not negative input
    (
        "In `get_positive`, 0 is neither positive nor negative and the example drops it. "
        "Is that deliberate, i.e. should 0 be excluded?",
        "negative_input",
    ),
    # which letters a cipher shifts is the task's, not the returned text's case
    ("Which characters does it shift: only lowercase, or uppercase as well?", "clean_text"),
    ("Should uppercase letters be shifted too?", "clean_text"),
    # booleans among the input's values are not how the answer is written
    ("With booleans in the list (True/False are ints), should they be ignored?", "yes_no"),
    ("If you want booleans excluded, should I use isinstance(x, bool)?", "yes_no"),
    # a wrapper the function is called through is how it is called
    ("Do you call it through a specific wrapper, script entry point or command line?", "envelope"),
    (
        "If it needs a different name or signature, or a wrapper (e.g. reading from stdin), tell me.",
        "envelope",
    ),
    # a case in a sort order is the order's, not the returned text's
    ("Python sorts uppercase before lowercase: is that the order you want?", "clean_text"),
    # beside decoding, encoding is the task's own cipher
    ("The decoder has to be its exact inverse, so which encoding did you use?", "serialized"),
    # how to round (halves, up or down, intermediate values) is the task's arithmetic
    ("When the value is halfway between two integers, should it round up?", "number_style"),
    ("The rounding rule is unclear: should 14.5 round to 15 or 14?", "number_style"),
    ("Should I round the intermediate values?", "number_style"),
    ("Should the input numbers be rounded before summing?", "number_style"),
    # an odd count is not the cue's odd numbers; the case of strings handed in is the input's
    ("How should the function handle lists with an odd number of elements?", "negative_input"),
    ("How should the function handle strings with mixed case letters?", "clean_text"),
    # how many digits an input has; whether a result is positive
    ("How many digits are in the integer `x`?", "number_style"),
    ("Is the sum always positive?", "negative_input"),
    ("What if the result is not an integer?", "bad_input"),
    ("How does the input integer represent the total number of fruits?", "number_style"),
    ("How is the result represented?", "input_format"),
    # what a type checker says of the code is not invalid input
    ("mypy reports an invalid type comment on line 3; drop it?", "bad_input"),
    # an empty string offered as the result is no input of the wrong type
    ("What should happen for a negative `n`: return an empty string, or raise?", "bad_input"),
    # the last group of a chunked string is the task's own
    ("What happens to a final group with fewer than three characters?", "bad_input"),
    # whether the values come sorted is about the data, not the form it arrives in
    ("Is the input list already sorted when it comes in?", "input_format"),
    # the case of the examples handed in is the input's, not the returned text's
    ("Your examples are all single lowercase words, so I can't tell.", "clean_text"),
    # whether there are duplicates, not what to do with them; a length, not a value
    ("Can the list contain duplicates?", "tidy_list"),
    ("What if the length of the list is less than 1?", "negative_input"),
    # a matrix's rows, numbers handed in with leading zeros, the case of the text handed in,
    # zero's sign, the digits of a returned number, what a check returns when it finds one
    ("How many rows are in the matrix?", "batch"),
    ("Is the input string always in snake case format?", "naming"),
    ("Is 0 positive for our purposes?", "negative_input"),
    # the input's case, a sign the arithmetic produces, the task's own odd numbers
    ("Does the input string contain only lowercase letters?", "clean_text"),
    ("Should we handle negative values that might result from subtraction?", "negative_input"),
    ("What is the list you want to remove odd numbers from?", "negative_input"),
    ("Is the difference between two elements always positive?", "negative_input"),
    # a non-empty string; floats in the tests' comparisons
    ("Is the length of the string greater than 0?", "negative_input"),
    ("Is that consistent with how your other tests handle floats?", "bad_input"),
    # the user's logs as the place an error showed up, the imports' order, a parameter's name
    ("Did you see an error in your logs when the old version failed?", "log_channel"),
    ("Could you paste the stack trace from your logs?", "log_channel"),
    (
        "Do you want the imports sorted isort-style, or left in the order they're in now?",
        "tidy_list",
    ),
    ("Should I keep the parameter name `l`, or rename it to `lst`?", "naming"),
    # how closely a test compares floats, not how the result is written
    (
        "In the tests I'll compare with pytest.approx. How many decimal digits of agreement "
        "count as close enough, or is the default tolerance fine?",
        "number_style",
    ),
    # the case with no negatives is the task's
    ("Can you handle arrays with no negative numbers?", "negative_input"),
    # the case of the text handed in
    ("Does the string contain at least one lowercase letter?", "clean_text"),
    # a value that goes negative during the work; the sign of zero; a non-integer's example
    ("Should it return True as soon as the running balance goes negative?", "negative_input"),
    ("Keep the assert that the depth never drops below zero mid-scan?", "negative_input"),
    ("A balance of exactly 0 doesn't count as below zero, right?", "negative_input"),
    ("Should you consider zero as positive or negative?", "negative_input"),
    ("Non-integers such as `-1.5` or `2.0`: ignore them, or count them?", "negative_input"),
    # the sorted result named in a question about the log
    ("And what should be logged: the input and the sorted result?", "tidy_list"),
    # None as the task's own answer, not a missing input
    (
        "The docstring says the answer is None when there's no second distinct value. "
        "So with [1, 1, 2] the answer is 2, correct?",
        "bad_input",
    ),
]

# The same, where the rules' words still score the family and it's no plain question: the
# learned matcher's veto has it.
NOT_ASKED_VETOED = [
    ("What about numbers with leading zeros?", "number_style"),
    ("How should numbers with leading zeros be handled?", "number_style"),
    ("Should the function ignore leading zeros in the integers?", "number_style"),
    # a descriptor of the input in a question about something else
    (
        "Is it called once per array (each record a list of non-negative ints), or once "
        "with all of them?",
        "negative_input",
    ),
    ("What should the function do if the list contains only positive numbers?", "negative_input"),
    (
        "Is there a requirement to maintain the order of the digits in the resulting number?",
        "tidy_list",
    ),
    ("What should the function return if a duplicate is found?", "tidy_list"),
    # whether the values come sorted, not the form they arrive in (what the models would add)
    ("is input list already sorted when it come in? then i can use bisect, faster", "input_format"),
    # a tie, not what comes back
    (
        "What happens if the list contains duplicate values with the same maximum frequency?",
        "tidy_list",
    ),
]


@pytest.mark.parametrize("matcher", ["rules", "learned"])
@pytest.mark.parametrize(("question", "family"), NOT_ASKED)
def test_a_familys_words_about_something_else_target_nothing(matcher, question, family):
    assert family not in make_matcher(matcher).read(question, ALL).targets(ALL)


@pytest.mark.parametrize(("question", "family"), NOT_ASKED_VETOED)
def test_a_familys_words_about_something_else_are_no_plain_question(question, family):
    assert family not in asked_plainly(question)
    assert family not in make_matcher("learned").read(question, ALL).targets(ALL)


@pytest.mark.parametrize(
    "message",
    [
        "Mind if I call the inner helper `_third_indices` instead of `f`? Picture yourself "
        "reading this in six months: which name would tell you more at a glance?",
        "Can I rename the loop variable to `idx`? Which name do you prefer?",
        "The stub calls its parameter name `l`, which PEP 8 warns about. Keep it, or rename it?",
    ],
)
def test_a_plain_question_that_refers_back_asks_in_the_frame_it_refers_to(message):
    # the name asked about is the helper's, the variable's or the parameter's, not the function's
    analysis = make_matcher("rules").analyse(message, ALL)
    assert all("naming" not in q.plainly for q in analysis.reading.questions)
    assert "naming" not in make_matcher("rules").read(message, ALL).targets(ALL)
    assert "naming" not in make_matcher("learned").read(message, ALL).targets(ALL)


def test_a_short_rename_question_after_the_functions_name_asks_about_it():
    message = "I kept the function name `sort_third` from your stub. Keep it, or rename it?"
    for matcher in ("rules", "learned"):
        assert "naming" in make_matcher(matcher).read(message, ALL).targets(ALL)


@pytest.mark.parametrize("matcher", ["rules", "learned"])
def test_a_negative_index_handed_in_is_negative_input_and_negative_indexing_is_not(matcher):
    # what the function does with a negative index it is given is its input's sign; the
    # draft's own negative indexing is how it is written
    m = make_matcher(matcher)
    assert "negative_input" in m.read(
        "How does the function handle negative indices?", ALL
    ).targets(ALL)
    drafted = "I used negative indexing to take the last element; is that alright?"
    assert "negative_input" not in m.read(drafted, ALL).targets(ALL)


@pytest.mark.parametrize("matcher", ["rules", "learned"])
def test_an_input_that_drops_below_zero_is_negative_input_and_a_running_value_is_not(matcher):
    m = make_matcher(matcher)
    assert "negative_input" in m.read("What should happen when n drops below zero?", ALL).targets(
        ALL
    )
    balance = "Should it return True as soon as the running balance goes negative?"
    assert "negative_input" not in m.read(balance, ALL).targets(ALL)


@pytest.mark.parametrize(
    "question",
    [
        "Which should I follow: `[2, 5, 7]` or `[7, 5, 2]`?",
        "For `[5, 3, 5]` and `[5, 3]`, do you want back `[3, 5]`, `[5, 3]`, or `[5, 3, 5]`?",
        "If it gets ['a', 3, 3, 1], do u want [3, 3, 1] back, or [1, 3]",
    ],
)
def test_the_same_items_offered_reordered_or_deduplicated_ask_about_the_returned_lists_order(
    question,
):
    assert "tidy_list" in asked_plainly(question)


@pytest.mark.parametrize(
    "question",
    [
        "Should `sort_third([5, 6, 3])` give `[3, 6, 5]`?",  # an input and what it gives
        "Do you want `[1, 2]` or `[3, 4]`?",  # other items
        "Should it return `[True, False]` or `[False, True]`?",  # booleans are no items
    ],
)
def test_lists_that_are_not_one_lists_items_reordered_ask_nothing_of_the_order(question):
    assert "tidy_list" not in asked_plainly(question)


def test_a_message_of_many_lists_compares_each_with_its_neighbours_only():
    many = "[5, 6] or [7, 8], " * 2000
    assert "tidy_list" not in asked_plainly(f"[1, 2], {many} or [2, 1]?")  # 4,000 lists apart
    assert "tidy_list" in asked_plainly(f"{many} [1, 2] or [2, 1]?")
