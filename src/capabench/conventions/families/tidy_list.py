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
    "asc_unique": "return sorted(set({call}))",
    "desc": "return sorted({call}, reverse=True)",
    "unique_in_order": "return list(dict.fromkeys({call}))",
}


@register
class TidyList(Family):
    id = "tidy_list"
    mechanism = Mechanism.POLYSEMY
    layer = Layer.OUTPUT
    cues = ("give it back tidy", "and keep the result tidy")
    intents = (
        r"\bsort",
        r"\border(ed|ing)?\b",
        r"duplicat",
        r"\bdedup",
        r"\bunique",
        r"\btidy",
        r"ascend",
        r"descend",
        r"\brepeat",
    )
    question = "When you say tidy, do you want the list sorted (which way?) and duplicates removed?"
    alternatives = (
        Alternative(
            "asc_unique",
            "By tidy I mean sorted ascending with duplicates removed.",
            ("ascending", "duplicates removed"),
        ),
        Alternative(
            "desc", "By tidy I mean sorted in descending order, duplicates kept.", ("descending",)
        ),
        Alternative(
            "unique_in_order",
            "By tidy I mean duplicates dropped, keeping the order they first appear in.",
            ("first appear",),
        ),
    )

    def applies(self, shape):
        if not shape.all_outputs(list):
            return False
        transforms = {
            "asc_unique": lambda out: sorted(set(out)),
            "desc": lambda out: sorted(out, reverse=True),
            "unique_in_order": lambda out: list(dict.fromkeys(out)),
        }
        try:
            return tells_apart(shape.outputs, transforms)
        except TypeError:  # unhashable or unorderable elements
            return False

    def wrap(self, alt, inner, ctx):
        return same_signature("_tidy", inner, _BODIES[alt])
