import json

from capabench.conventions.base import (
    Alternative,
    Family,
    Layer,
    Vocabulary,
    register,
    same_signature,
)
from capabench.records import Mechanism


@register
class Serialized(Family):
    id = "serialized"
    mechanism = Mechanism.CONVERSATIONAL
    layer = Layer.ENVELOPE
    cues = ("send it in the format we settled on", "give it back in our usual format")
    concept = "the text format the returned value is serialized to"
    vocabulary = Vocabulary(
        anchors=(
            r"\b(?:turn|turned|convert|converted)\w* (?:it |them |the result )?(?:in)?to (?:a )?(?:text|string|json)\b",
            r"\bserializ",
            r"\brepr\b",
            r"\bjson\.dumps|\bdumps\b",
            r"\bencod(?:e|ed|ing)\b",
            r"\bsettle(?:d)?\b",
            r"\busual format",
            r"\bour (?:usual |agreed )?format",
            r"\bstringif",
            r"\bstring (?:form|representation|version)",
            r"\bliteral text",
            r"\bpython literal",
            r"\bjson (?:string|text|back|output)",
        ),
        aspects=(
            r"\bjson\b",
            r"\bstring\b",
            r"\bstr\b",
            r"\btext\b",
            r"\bformat",
            r"\byaml\b",
            r"\bpickle",
        ),
        subjects=(
            r"\breturn",
            r"\bresult",
            r"\boutput",
            r"\bback\b",
            r"\bsend",
            r"\bgive",
            r"\bhand",
            r"\bproduce",
            r"\bemit",
        ),
        ignore=(
            r"\b(?:string|text)\b.{0,40}\b(?:passed|given|received|gets passed|comes in)",
            r"\b(?:input|argument|incoming|arrive|parse|comes? in|passed in)\w*\b.{0,30}\b(?:json|string|text|format|str)\b",
            r"\b(?:json|string|text|format|str)\b.{0,20}\b(?:input|argument|arrive|parse)",
            r"\bformat of the (?:input|data|numbers|list)",
            r"\b(?:number|report|date|log)[- ](?:format|style)",
            r"\bformat(?:ted|ting)? (?:the |a )?(?:number|log|line|message|code)",
        ),
    )
    exemplars = (
        "Which format did we settle on for the result?",
        "Should the result come back as JSON text or as a Python value?",
        "Do you want the output serialized, and how?",
        "Should I return repr() of the value?",
        "What text format should the return value use?",
        "Should it return a string instead of the raw object?",
        "I'll return the Python object itself unless our usual format is a string.",
    )
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
