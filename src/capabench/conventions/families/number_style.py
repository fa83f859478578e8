from capabench.conventions.base import (
    Alternative,
    Family,
    Layer,
    Vocabulary,
    register,
    same_signature,
)
from capabench.records import Mechanism

_WORDS = """_ONES = "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen".split()
_TENS = "_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()


def _in_words(n):
    if n < 0:
        return "minus " + _in_words(-n)
    if n < 20:
        return _ONES[n]
    if n < 100:
        return _TENS[n // 10] + ("-" + _ONES[n % 10] if n % 10 else "")
    for size, word in ((10 ** 9, "billion"), (10 ** 6, "million"), (1000, "thousand"), (100, "hundred")):
        if n >= size:
            rest = n % size
            return _in_words(n // size) + " " + word + (" " + _in_words(rest) if rest else "")
"""
_ORDINAL = """def _ordinal(n):
    suffix = "th" if 10 <= abs(n) % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(abs(n) % 10, "th")
    return f"{n}{suffix}"
"""
_BODIES = {
    "words": "return _in_words({call})",
    "ordinal": "return _ordinal({call})",
    "padded": 'return f"{{{call}:05d}}"',
}


# how a number is rounded (halves, up or down, floor) is the task's own arithmetic
_NOT_HOW_TO_ROUND = (
    r"^(?!.*\b(?:half\w*|ties?|tie-break\w*|up or down|down or up|away from zero|towards? zero|"
    r"banker\w*|floor\w*|ceil\w*|truncat\w*|inputs?|arguments?|intermediate|before|each step)\b|.*\.5\b)"
    # nor how closely a test compares floats (a tolerance, not how the result is written)
    r"(?!.*\b(?:toleran\w*|approx|isclose|epsilon|close enough)\b)"
)


@register
class NumberStyle(Family):
    id = "number_style"
    mechanism = Mechanism.POLYSEMY
    layer = Layer.OUTPUT
    cues = ("write the number out my way", "I want the number in report style")
    concept = "how the returned number is written (digits, words, an ordinal, padded...)"
    vocabulary = Vocabulary(
        anchors=(
            r"\b\d{4,}\b.{0,25}\b(?:appear|look|written|shown|show up|displayed|rendered|come back)",
            r"\bone thousand\b",
            r"(?<![\d.])\d{1,3}(?:,\d{3})+(?![\d,])",
            r"\bthousands? (?:separator|grouping|commas?)",
            r"\breport style",
            r"\breport format",
            r"\bin (?:english )?words\b",
            r"\bas words\b",
            r"\bspel(?:l|led|t|ling)(?: it| them| the numbers?)? out (?:in|as) (?:english )?words",
            r"\bspel(?:led|t)-out",
            r"\bcomma[- ]grouped",
            r"\b(?:number|integer|int|count|figure|total|amount|sum)\b.{0,20}\b(?:written|formatted|styled|spelled|displayed|presented|rendered|expressed)\b",
            r"\b(?:write|format|style|present|display|render)\w* (?:the |a |each |that )?(?:number|count|integer)s?\b",
            r"\bordinal",
            r"\bzero[- ]?pad",
            r"\bleading zeros",
            r"\bnumerals?\b",
            r"\broman\b",
            r"\bthousands? separator",
            r"\bwrit(?:e|ten|ing) (?:the number |it |them )?out\b(?! to\b| by hand| manually| explicitly| in code| longhand| in full)",
            r"\bmy way\b",
            r"\b\d+(?:st|nd|rd|th)\b",
            r"\bforty-two|\bforty two",
            r"\bfixed[- ]width",
        ),
        aspects=(
            r"\bpad(?:ded|ding)?\b",
            r"\bspel(?:l|led|t|ling)\b",
            r"\bexpress",
            r"\bgroup",
            r"\bformat",
            r"\bstyle",
            r"\blook",
            r"\bwrit(?:e|ten|ing)",
            r"\bpresent",
            r"\bdisplay",
            r"\brender",
            r"\brepresent",
            r"\bdigits",
            r"\bwords?\b",
            r"\bstring",
            r"\btext",
            r"\bshow",
        ),
        subjects=(
            r"\bnumbers?\b",
            r"\binteger",
            r"\bint\b",
            r"\bnumeric",
            r"\bcount\b(?! (?:it|them|this|that|as|the|each|every|all|only|how|from|up|down|to)\b)",
            r"\bfigure",
        ),
        ignore=(
            r"\bnon-(?:number|numeric|integer|int)\b",
            r"\b(?:list|dict|tuple|set|optional|sequence|iterable)\[int\]|\btype hints?\b.{0,40}",
            r"\bspel(?:l|led|t)? out (?:what|how|which|exactly|for me|the (?:rule|meaning))",
            r"\bnumber of (?:arguments|parameters|items|elements|records|calls|words|digits)",
            r"\bhow many digits\b",
            r"\b(?:input|given|passed) (?:integer|number|int)s?\b[^.?!]{0,60}",
        ),
        questions=(
            r"\bhow should (?:the )?(?:returned )?(?:number|result|count|value|score|total)s? be (?:formatted|written|displayed|shown|represented|styled|spelled)\b",
            # (numbers "with leading zeros" handed in are the input's)
            r"\b(?:number|result|count|value)s?\b[^.?!]{0,25}\b(?:in words|as words|spelled out|as an ordinal|ordinal|zero[- ]padded|padded)\b"
            r"|\b(?:result|count|value|output)s?\b[^.?!]{0,25}\bwith leading zeros\b",
            r"\b(?:in words|spelled out|as an ordinal|zero[- ]padded|leading zeros)\b[^.?!]{0,25}\b(?:or|vs)\b[^.?!]{0,15}\b(?:digits|numerals|a number|an integer|plain)\b",
            r"\bformat (?:of )?(?:the )?(?:returned )?(?:number|count|result number)\b",
            # (not zeros the input brings: "how should numbers with leading zeros be handled?")
            r"^(?!.*\b(?:inputs?|arguments?|given|passed|handl\w*|ignor\w*|accept\w*|pars\w*)\b)"
            r".*\b(?:should|do you want|would you like)\b(?:(?!\bcheck\w* for\b)[^.?!]){0,40}\b(?:leading (?:and trailing )?zeros|zero[- ]pad\w*)\b"
            # (not zeros the input holds: "leading zeros in the octal number")
            r"(?! in (?:the |an? )?(?:\w+ )?(?:number|string|input|value|integer|int|digit)s?\b)",
            # whether the returned number is rounded or kept as it is (the corpus rule: a
            # defensible reveal; real models' questions ask it plainly), not how to round
            # (halves, up or down: the task's arithmetic)
            _NOT_HOW_TO_ROUND
            + r".*(?:\bround(?:ed|ing)?\b[^.?!]{0,50}\b(?:or|vs)\b[^.?!]{0,40}\b(?:as is|as-is|unrounded|exact|full precision|original|raw|float)\b"
            r"|\b(?:as is|as-is|unrounded|full precision|exact (?:value|float))\b[^.?!]{0,40}\bor\b[^.?!]{0,30}\bround(?:ed|ing)?\b"
            r"|\b(?:result|output|value|answer|average|mean|number|return\w*)\b[^.?!]{0,30}\bround(?:ed)? to\b[^.?!]{0,20}\b(?:decimal|places?|digits?|integer|whole|nearest)"
            r"|\bround\w*\b[^.?!]{0,30}\bto (?:\w+ ){0,2}(?:decimal|places|significant)"
            r"|\bhow many decimal (?:places|digits)\b"
            r"|\bshould (?:i|we|it|the (?:result|output|returned value|value|answer|average|mean|number)) (?:be )?round(?:ed)?\b)",
        ),
    )
    exemplars = (
        "How should the number be written in your report style?",
        "Do you want the number as digits, spelled out in words, or something else?",
        "Should the result be an ordinal like 3rd?",
        "Should I zero-pad the number?",
        "What does writing the number out your way mean?",
        "Should the count come back as an int or as text?",
        "I'll return the plain integer unless your report style needs something else.",
    )
    question = "What does the number look like in your report style: digits, words, something else?"
    alternatives = (
        Alternative(
            "words",
            'Report style means the number in English words, e.g. "forty-two".',
            ("english words", "forty-two"),
        ),
        Alternative("ordinal", 'Report style means an ordinal, e.g. "42nd".', ("ordinal", "42nd")),
        Alternative(
            "padded",
            'Report style means five digits zero-padded, e.g. "00042".',
            ("zero-padded", "00042"),
        ),
    )

    def describe_result(self, value, text):
        return f"the number {value}" if type(value) is int else text

    def applies(self, shape):
        return shape.all_outputs(int) and all(abs(o) < 10**12 for o in shape.outputs)

    def wrap(self, alt, inner, ctx):
        layered = same_signature("_styled", inner, _BODIES[alt])
        helper = {"words": _WORDS, "ordinal": _ORDINAL, "padded": ""}[alt]
        return type(layered)(
            helper + "\n\n" + layered.code if helper else layered.code, layered.fn, layered.imports
        )
