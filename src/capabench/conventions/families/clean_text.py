from capabench.conventions.base import (
    Alternative,
    Family,
    Layer,
    register,
    same_signature,
    tells_apart,
)
from capabench.records import Mechanism

_BODIES = {
    "lower": "return {call}.lower()",
    "upper": "return {call}.upper()",
    "title": "return {call}.title()",
}


@register
class CleanText(Family):
    id = "clean_text"
    mechanism = Mechanism.POLYSEMY
    layer = Layer.OUTPUT
    cues = ("give me clean text back", "the text should come back clean")
    intents = (
        r"\bcase\b",
        r"\bupper",
        r"\blower",
        r"capitali",
        r"\bclean",
        r"normali[sz]",
        r"\btitle",
        r"letters",
    )
    question = "What does clean text mean for you: which letter case should the result be in?"
    alternatives = (
        Alternative("upper", "Clean text means all UPPERCASE.", ("uppercase",)),
        Alternative(
            "title", "Clean text means Title Case, every word capitalized.", ("title case",)
        ),
    )

    def applies(self, shape):
        transforms = {"upper": str.upper, "title": str.title}
        return shape.all_outputs(str) and tells_apart(shape.outputs, transforms)

    def wrap(self, alt, inner, ctx):
        return same_signature("_clean", inner, _BODIES[alt])
