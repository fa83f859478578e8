import json

from capabench.conventions.base import Alternative, Family, Layer, register, same_signature
from capabench.records import Mechanism


@register
class Serialized(Family):
    id = "serialized"
    mechanism = Mechanism.CONVERSATIONAL
    layer = Layer.ENVELOPE
    cues = ("send it in the format we settled on", "give it back in our usual format")
    intents = (
        r"\bserial", r"\brepr\b", r"\bsettle", r"\bencod", r"\bwhich format\b",
        r"\b(result|output|return|back)\b.{0,30}\b(string|text|format|json)\b",
        r"\b(string|text|format|json)\b.{0,30}\b(result|output|return|back)\b",
    )  # fmt: skip
    question = "Which format did we settle on for the result?"
    alternatives = (
        Alternative(
            "json", "We settled on JSON text: return json.dumps of the value.", ("json.dumps",)
        ),
        Alternative(
            "repr", "We settled on Python literal text: return repr() of the value.", ("repr(",)
        ),
    )

    def applies(self, shape):
        # The two must differ on some output (they agree on ints and lists of ints).
        return shape.json_outputs() and any(json.dumps(out) != repr(out) for out in shape.outputs)

    def wrap(self, alt, inner, ctx):
        if alt == "json":
            return same_signature(
                "_serialized", inner, "return json.dumps({call})", ("import json",)
            )
        return same_signature("_serialized", inner, "return repr({call})")
