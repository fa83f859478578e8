from capabench.conventions.base import Alternative, Family, Layer, register, same_signature
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


@register
class NumberStyle(Family):
    id = "number_style"
    mechanism = Mechanism.POLYSEMY
    layer = Layer.OUTPUT
    cues = ("write the number out my way", "I want the number in report style")
    intents = (
        r"\bnumber (style|format)",
        r"\bin words",
        r"\bspell",
        r"\bordinal",
        r"\bpad",
        r"\bdigits",
        r"\breport style",
        r"\bwrite (the number|it) out",
        r"how should (the|a) number look",
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

    def applies(self, shape):
        return shape.all_outputs(int) and all(abs(o) < 10**12 for o in shape.outputs)

    def wrap(self, alt, inner, ctx):
        layered = same_signature("_styled", inner, _BODIES[alt])
        helper = {"words": _WORDS, "ordinal": _ORDINAL, "padded": ""}[alt]
        return type(layered)(
            helper + "\n\n" + layered.code if helper else layered.code, layered.fn, layered.imports
        )
