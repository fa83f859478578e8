import re

from capabench.conventions.base import (
    Alternative,
    Family,
    Layer,
    Vocabulary,
    register,
    same_signature,
)
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
    concept = (
        "how a plain yes/no answer is represented in the return value (its type and literal values)"
    )
    vocabulary = Vocabulary(
        anchors=(
            r"\bverdict",
            r"\b(?:non-)?affirmative\b",
            r"\bpositive (?:or|vs\.?|versus) negative (?:answer|outcome|result)",
            r"\byes\b",
            r"\by/n\b",
            r"\bbool(?:ean)?s?\b",
            r"\btrue\b.{0,20}\bfalse\b",
            r"\bfalse\b.{0,20}\btrue\b",
            r"\btruthy",
            r"\bfalsy",
            r"\bplain (?:answer|yes|no)",
            r"['\"][yn]['\"]\s*(?:/|or|and|,)\s*['\"][yn]['\"]",
            r"\bthe letters? y\b",
        ),
        aspects=(
            r"\b1\s*(?:/|or)\s*0\b|\b0\s*(?:/|or)\s*1\b",
            r"\bplain\b",
            r"\btrue\b",
            r"\bfalse\b",
            r"\bflag\b",
            r"\bverdict",
            r"\b(?:positive|negative) (?:answer|case|result)",
            r"\bmatch(?:es)? or not",
            r"\b(?:represent|look like|express|encode|literal\b)",
        ),
        subjects=(
            r"\banswer",
            r"\bresult",
            r"\breturn",
            r"\boutput",
            r"\bvalue",
            r"\bmean",
            r"\bno\b",
            r"\bcheck",
            r"\bpredicate",
            r"\bcome back",
        ),
        ignore=(
            r"\b(?:suggests?|says?|means?|implies?|looks like) (?:yes|no)\b",
            r"\breturn (?:true|false)\b(?!\s*(?:or|/|and|vs|,))",
            r"\bif (?:yes|no|so|not)\b",
            r"[.?!:]\s+(?:yes|y)\s*(?:/|or)\s*(?:no|n)\s*\?\s*$",
            r"\b(?:confirm|reply|answer|say)\w*\b[^.?!:]{0,25}\b(?:yes|y/n|yes/no)\b",
            r"^\W*(?:yes|y)\s*(?:/|or)\s*(?:no|n)\W*$",
            r"\((?:yes/no|y/n)\)",
            r",\s*yes or no\s*\?",
            r"\byes is (?:enough|fine|ok)\b",
            r"\b(?:quick |simple |just a )?yes(?: or |/)no(?: question)?\s*[:,-]",
            r"\ba (?:simple|quick) yes or no is (?:fine|enough|ok)",
            r",\s*(?:yes|no|right)\s*\?",
            r"\bplain (?:text|python|function|list|dict|string|tuple|value|english|language|code|old|loop|file|ascii|letters?|vowels?|numbers?|ints?|integers?)",
            r"\byes,? (?:i|we|that|this|it)\b(?! should)",
        ),
        questions=(
            r"\b(?:true/false|true or false|boolean|bool)\b[^.?!]{0,40}\b(?:or|vs|versus|instead)\b[^.?!]{0,25}\b(?:yes|no|strings?|y|1|0|ints?|integers?)\b",
            r"\b(?:yes|y)/(?:no|n)\b[^.?!]{0,30}\b(?:or|vs)\b[^.?!]{0,25}\b(?:true|false|boolean|bool)\b",
            r"\breturn(?:s|ing)? (?:a )?(?:boolean|bool)\b",
            r"""\b(?:\"yes\"|'yes'|yes/no|\"y\"|'y') (?:strings?|or|/)""",
        ),
    )
    exemplars = (
        "What should a plain yes or no look like: True/False, 'yes'/'no', 1/0?",
        "Should it return a boolean or a string?",
        "How do you want the yes/no answer represented?",
        "Is True/False fine for the answer?",
        "Do you want 'Y' and 'N' instead of a bool?",
        "Should a match come back as 1 and a non-match as 0?",
        "I'll return a Python bool unless plain means something else for you.",
    )
    question = "What exactly should a plain yes or no look like in the return value?"
    alternatives = (
        Alternative("words", 'A plain yes/no is the string "yes" or "no".', ('"yes"',)),
        Alternative("letters", 'A plain yes/no is "Y" or "N".', ('"Y"',)),
        Alternative("digits", "A plain yes/no is the integer 1 or 0.", ("integer 1",)),
    )

    def reword(self, text):
        return re.sub(
            r"\b(?:True|true|TRUE)\b", "yes", re.sub(r"\b(?:False|false|FALSE)\b", "no", text)
        )

    def describe_result(self, value, text):
        return ("yes" if value else "no") if isinstance(value, bool) else text

    def applies(self, shape):
        return shape.all_outputs(bool)

    def wrap(self, alt, inner, ctx):
        return same_signature("_plain", inner, _BODIES[alt])
