from capabench.conventions.base import Alternative, Family, Layer, register, same_signature
from capabench.records import Mechanism

_BODIES = {
    "words": 'return "yes" if {call} else "no"',
    "letters": 'return "Y" if {call} else "N"',
    "digits": "return 1 if {call} else 0",
}


@register
class YesNo(Family):
    id = "yes_no"
    mechanism = Mechanism.POLYSEMY
    layer = Layer.OUTPUT
    cues = ("just give me a plain yes or no", "I only need a yes/no answer")
    intents = (
        r"\byes\b",
        r"\bno\b.*\banswer",
        r"\bbool",
        r"true\b.*false",
        r"\bflag",
        r"\bplain\b",
        r"y/n",
        r"1/0|0/1",
    )
    question = "What exactly should a plain yes or no look like in the return value?"
    alternatives = (
        Alternative("words", 'A plain yes/no is the string "yes" or "no".', ('"yes"',)),
        Alternative("letters", 'A plain yes/no is "Y" or "N".', ('"Y"',)),
        Alternative("digits", "A plain yes/no is the integer 1 or 0.", ("integer 1",)),
    )

    def applies(self, shape):
        return shape.all_outputs(bool)

    def wrap(self, alt, inner, ctx):
        return same_signature("_plain", inner, _BODIES[alt])
