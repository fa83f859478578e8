"""A family's words in another frame: the sign of the result is not negative input, the case
of the input or of a comparison is not the returned text's, the form of the output is not the
form the data arrives in, the user's files to share are not where the result is saved, a
wrapper around the call or the code's delivery is not one around the returned value, the
imports' order is not the returned list's, an error found in the user's logs is not where
results are logged, a result that is not an integer is not input of the wrong type. A text
that speaks of the other frame and not of the family's own names the concept about something
else (issue 27); the rules keep such a family as a candidate, never a target, and the learned
matcher adds nothing in it."""

from __future__ import annotations

import re

from capabench.conventions.named import OTHER_NAMED

_OTHER_FRAME = {
    "negative_input": re.compile(
        r"\b(?:result|output|answer|return value|returned value|difference|sum)s?\b[^.?!]{0,30}"
        r"\b(?:be|is|are|come out|end up)\b[^.?!]{0,20}\b(?:positive|negative)\b"
        r"|\bnegative (?:result|output|answer|return value)s?\b"
        r"|\bnegative\b[^.?!]{0,30}\bresult(?:s|ing)? from\b"
        # the sign of zero ("0 is neither positive nor negative: should it be excluded?")
        r"|\bneither positive nor negative\b"
        r"|\bzero\b[^.?!]{0,25}\b(?:positive or negative|negative or positive)\b"
    ),
    # what comes back not being of its type ("what if the result is not an integer?") is the
    # task's arithmetic, not input of the wrong type
    "bad_input": re.compile(
        r"\b(?:results?|outputs?|return(?:ed)? values?|answers?|sums?|quotients?)\b[^.?!]{0,20}"
        r"\b(?:is|are|isn't|aren't|comes? out|turns? out)\b (?:not |n't )?(?:an? )?(?:integer|int|whole|number|string|float)"
    ),
    "result_file": re.compile(
        r"\b(?:share|add|upload|provide|attach|paste|send|open|edit|modify|change|show)\b[^.?!]{0,40}\bfiles?\b"
        r"|\bfiles?\b[^.?!]{0,30}\b(?:contains?|on your (?:computer|machine|disk)|to (?:the|this) chat)\b"
        # the data comes in a file: "a file with one `n` per line", "rows from a CSV/file"
        r"|\bfiles? with (?:one|each|a)\b[^.?!]{0,20}\bper (?:line|row)\b|\brows (?:from|of|in) (?:a |the )?(?:csv|file)"
        r"|\b(?:take|accept|read|process)\w*\b[^.?!]{0,40}\b(?:a |the )?files?\b"
        # how the code is delivered: "a particular file/module layout", "a separate test file"
        r"|\b(?:file|module|folder|project|code)(?:[/ ](?:module|file|folder))? (?:layout|structure)\b"
        r"|\b(?:separate|single|test) (?:test )?file\b|\bdeliver\w*"
    ),
    # the case of the input, or of a comparison, is not the returned text's
    "clean_text": re.compile(
        r"\b(?:match\w*|compar\w*|sensitiv\w*|insensitiv\w*|ignor\w*|treat\w*|sorts?|sorted|sorting)\b"
        # ("consider uppercase and lowercase as the same character?")
        r"|\b(?:the )?same (?:character|letter|char)s?\b"
        r"|\b(?:is|are|will) (?:the |my |your |an? )?(?:input|given|incoming)?\s*(?:string|text|word|letter)s?"
        r" (?:always |all |ever |only )?(?:in )?(?:lower|upper|title|mixed)"
        # ("does the input string contain only lowercase letters?")
        r"|\b(?:inputs?|given|incoming)\b[^.?!]{0,30}\b(?:contains?|have|has|consists? of|made of)\b[^.?!]{0,20}\b(?:lower|upper|title|mixed)"
        # ("does the string contain at least one lowercase letter?": what it is handed)
        r"|\b(?:does|do|will|can|could|may|might) (?:the |a |an |each |every |any )?(?:\w+ )?(?:strings?|texts?|words?|sentences?)"
        r" (?:ever |always |only )?(?:contains?|have|has|include|hold)\b[^.?!]{0,25}\b(?:lower|upper|title|mixed|capital)"
        # ("your examples are all lowercase single words")
        r"|\b(?:examples?|doctests?|inputs?|arguments?|samples?)\b[^.?!]{0,40}\b(?:is|are|was|were)"
        r" (?:always |all |only )?(?:\w+ )?(?:in )?(?:lower|upper|title|mixed)"
        # ("how should the function handle strings with mixed case letters?")
        r"|\bhandl\w* (?:\w+ )?(?:strings?|texts?|words?|inputs?|letters?|characters?) (?:with|containing|that (?:contain|have)) (?:\w+ )?(?:mixed|upper|lower|capital)"
        # which letters a cipher shifts ("only lowercase letters are shifted")
        r"|\b(?:lower|upper)\w*\b[^.?!]{0,40}\b(?:shift\w*|rotat\w*|encod\w*|decod\w*|cipher\w*)"
        r"|\b(?:shift\w*|rotat\w*|encod\w*|decod\w*|cipher\w*)\b[^.?!]{0,40}\b(?:lower|upper)"
    ),
    # the form of what is returned is not the form the data arrives in
    "input_format": re.compile(r"\b(?:return\w*|output\w*|results?)\b"),
    # booleans among the input's values ("with booleans in the list, should they be ignored?")
    # are not how the answer is written
    "yes_no": re.compile(
        r"\bbool\w*\b[^.?!]{0,40}\b(?:in the (?:input|list|array|data)|exclud\w*|ignor\w*|skipp\w*|as ints?|count(?:ed)? as|treated as|are ints|subclass\w*)\b"
        r"|\b(?:isinstance|exclud\w*|ignor\w*|skip\w*|filter\w*|reject\w*)\b[^.?!]{0,30}\bbool\w*"
        r"|\bbool\w*\b[^.?!]{0,40}\b(?:is an int|are ints|reject\w*|accept\w*)\b"
    ),
    # a helper's, a variable's or a test's name is not the function's ("call the inner helper
    # `_idx`? which name reads better?")
    "naming": re.compile(
        rf"\b(?:call|name|rename|label)\w* (?:the |this |that |my |our |your |an? |each )?"
        rf"(?:nested |local |private |loop )?{OTHER_NAMED}\b|\b{OTHER_NAMED} (?:called|named)\b"
        # the case of the text handed in ("is the input string always in snake case?")
        r"|\b(?:inputs?|strings?|texts?|words?)\b[^.?!]{0,30}\b(?:snake|camel|pascal|kebab)[_ -]?case\b"
        # ("the parameter name `l`: keep it or rename it to `lst`?")
        r"|\b(?:param\w*|arguments?|args?|variables?|vars?|locals?|helpers?) names?\b"
    ),
    # the order of the code's imports or dependencies is not the returned list's
    "tidy_list": re.compile(r"\b(?:imports?|isort|dependencies|requirements)\b"),
    # the user's logs as a place to look for an error, not where each result is logged
    "log_channel": re.compile(
        r"\b(?:errors?|exceptions?|tracebacks?|stack ?traces?|warnings?|failures?|crash\w*)\b"
        r"[^.?!]{0,30}\b(?:in|from) (?:your|the) logs?\b"
        r"|\b(?:paste|share|send|attach)\w*\b[^.?!]{0,30}\b(?:logs?|tracebacks?|stack ?traces?)\b"
    ),
    # a wrapper around the call, or the code's delivery, is not one around the returned value
    "envelope": re.compile(
        r"\b(?:type hints?|docstrings?|doctests?|tests?|test file|class|cli|command line|entry point"
        r"|decorator|script|module|package|code block|deliver\w*|packag\w*|rout\w*|invok\w*|call\w*|signatures?)\b"
    ),
}
_OWN_FRAME = {
    "negative_input": re.compile(
        r"\b(?:input|inputs|argument|arguments|parameter|passed|given|receives?|takes?)\b"
    ),
    "bad_input": re.compile(
        r"\b(?:inputs?|arguments?|parameters?|passed|given|receiv\w*|none|invalid|malformed|wrong type)\b"
    ),
    "result_file": re.compile(
        r"\b(?:result|results|output|outputs|save|saved|write|written|store|dump|export)\b"
    ),
    "clean_text": re.compile(r"\b(?:return\w*|output\w*|results?|come back|give back)\b"),
    "input_format": re.compile(
        r"\b(?:inputs?|arguments?|arriv\w*|passed|given|receiv\w*|reach\w*|comes? in|supplied)\b"
    ),
    "yes_no": re.compile(
        r"\b(?:return\w*|results?|answers?|output\w*|come\w* back|give\w* back)\b"
    ),
    "naming": re.compile(
        r"\b(?:the|this|your|main|public|top-level) (?:function|method)\b|\bdef\b"
    ),
    "tidy_list": re.compile(
        r"\b(?:return\w*|results?|outputs?|lists?|come\w* back|give\w* back)\b"
    ),
    "log_channel": re.compile(
        r"\b(?:results?|outputs?|answers?|values?|each call|show\w* up|appear\w*|report\w*|logged"
        r"|print\w*|logger|logging|level)\b"
    ),
    "envelope": re.compile(
        r"\b(?:return\w*|results?|outputs?|values?|answers?|come\w* back|send\w* back|give\w* back"
        r"|dict\w*|tuple|list|json|ok|status|error)\b"
    ),
}


def other_frame(family: str, text: str) -> bool:
    """Whether a (lowercased) text speaks of the family's concept about something else."""
    return (
        family in _OTHER_FRAME
        and _OTHER_FRAME[family].search(text) is not None
        and _OWN_FRAME[family].search(text) is None
    )


# What "rename it?" renames is what the sentence before named: a parameter or a helper there
# makes the question about its name, not the function's. Only a name is picked out so: the other
# families' frames speak of whole topics ("how you call these") that a short question after them
# may still ask about.
_REFERRED_TO = frozenset({"naming"})


def named_before(family: str, near: str) -> bool:
    """Whether a question that refers back, read with the sentence before it, is about another
    thing's name."""
    return family in _REFERRED_TO and other_frame(family, near)


# A formatted string offered for a number the question asks how to write ("a plain `int`, a
# formatted string like `"1,234"`, or words?") is one of the number's own forms, not a text
# format for the value: two labellers per part named `serialized` there at most as defensible
# (issue 27's eighteenth session). A bare "a string or an int?" still asks both.
_FORMATTED = re.compile(
    r"\bformatted (?:string|str|text)\b|\bpadded\b|\bcomma-separated\b|\bthousands? separators?\b",
    re.I,
)
_SERIALIZED_OWN = re.compile(r"\b(?:json|repr|serializ\w*|literal|settled|usual format)\b", re.I)


def without_number_as_text(
    targets: list[str], plainly: tuple[str, ...], quoted: tuple[str, ...], text: str
) -> tuple[list[str], tuple[str, ...]]:
    """A question's targets and plain families, without `serialized` where the string it
    offers is a formatted number beside `number_style` (not a cue the question quotes)."""
    if not (
        "number_style" in targets
        and "serialized" in targets
        and "serialized" not in quoted
        and _FORMATTED.search(text)
        and not _SERIALIZED_OWN.search(text)
    ):
        return targets, plainly
    return [f for f in targets if f != "serialized"], tuple(f for f in plainly if f != "serialized")
