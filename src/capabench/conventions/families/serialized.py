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

# What is serialized for the input, or stored to a file or disk, is other families' concern.
_NOT_STORED = r"^(?!.*\b(?:inputs?|arguments?|passed|reach\w*|arriv\w*|receiv\w*|given|files?|disk|dump\w*|sav\w+|written|stor\w+|writ\w+|persist\w*)\b)"
# A string offered as what comes back is this family's ("a plain `int`, or a string?" asks
# whether the result is text, as the real corpus's labellers read it; the number's or the
# yes/no's own family may be asked beside it), unless the sentence is about the input or bad
# input ("None or a string instead of a list?"), number words or the text's case.
_STRING_OFFER = (
    r"^(?!.*\b(?:inputs?|arguments?|passed|passes|reach\w*|arriv\w*|receiv\w*|given|gets|handed|supplie\w*|called with|parse\w*|"
    r"instead|isn't|not a|none|wrong|junk|garbage|dump\w*|builtin|"
    r"words?|spelled|ordinal|case|capitali\w*|lower\w*|upper\w*|join)\b)"
)


@register
class Serialized(Family):
    id = "serialized"
    mechanism = Mechanism.CONVERSATIONAL
    layer = Layer.ENVELOPE
    cues = ("send it in the format we settled on", "give it back in our usual format")
    concept = "the text format the returned value is serialized to"
    vocabulary = Vocabulary(
        anchors=(
            r"\bformat\b[^.?!]{0,25}\b(?:we|you and i) (?:settled?|agreed)\b|\bsettled? on (?:a |the |our )?(?:usual )?format|\bunserializ",
            r"\b(?:turn|turned|convert|converted)\w* (?:it |them |the result )?(?:in)?to (?:a )?(?:text|string|json)\b",
            r"\bserializ",
            r"\brepr\b",
            r"\bjson\.dumps|\bdumps\b",
            r"\bencod(?:e|ed|ing)\b",
            r"\busual format",
            r"\bour (?:usual |agreed )?format",
            r"\bstringif",
            r"\bliteral text",
            r"\bpython literal",
            r"\bjson (?:string|text|back|output)",
            r"\bstring (?:form|representation|version)",
        ),
        aspects=(
            r"\bsettled?\b",
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
            r"\bliteral (?:text|strings?) ['\"]?(?:yes|no|true|false|y|n)\b",
            r"\bstored?\b[^.?!]{0,30}\b(?:json|csv|text|format)\b|\b(?:on[- ]disk|file) (?:format|form)\b",
            r"\bempty (?:string|str)\b",
            r"(?:\blast time,? )?\b(?:we|you and i) (?:agreed|discussed|settled|decided|said)\b (?:on |to )?(?:use |using )?(?:the |a |an )?(?:math|approach|algorithm|definition|semantics|tests?|testing|pytest|fixtures?|style|naming|names?|types?|type hints|docstrings?|edge cases?|complexity|librar(?:y|ies)|dependencies|version|python|pattern|tooling|linter|formatter)\b|\bagree(?:d)? on (?:the |a )?(?:math|approach|algorithm|definition|semantics|tests?|testing|pytest|fixtures?|style|naming|names?|types?|type hints|docstrings?|edge cases?|complexity|librar(?:y|ies)|dependencies|version|python|pattern|tooling|linter|formatter)\b",
            r"\b(?:yes|no|true|false|bool\w*|answer|verdict|number|integer|int|count)\b.{0,25}\bencod\w*",
            # beside decoding, encoding is the task's own cipher ("the decoder has to be its
            # exact inverse, and I don't want to assume the encoding")
            r"\bencod\w*(?=.*\bdecod)|\bdecod\w*.*\bencod\w*",
            r"\bformat\w* (?:\w+ ){0,3}(?:number|integer|int|count|figure)s?\b|\b(?:int|integer|number|count)\b.{0,25}\bformat\w*",
            r"\bcom(?:e|es|ing) in\b.{0,80}\b(?:json|string|text|format|str)\b",
            r"\b(?:string|text)\b.{0,40}\b(?:passed|given|received|gets passed|comes in)",
            r"\b(?:input|argument|incoming|arrive|parse|comes? in|passed in)\w*\b.{0,30}\b(?:json|string|text|format|str)\b",
            r"\b(?:json|string|text|format|str)\b.{0,20}\b(?:input|argument|arrive|parse)",
            r"\bformat of the (?:input|data|numbers|list)",
            r"\b(?:number|report|date|log)[- ](?:format|style)",
            r"\bformat(?:ted|ting)? (?:the |a )?(?:number|log|line|message|code)",
        ),
        questions=(
            _NOT_STORED + r".*\breturn\w*\b[^.?!]{0,30}\b(?:json|serialized?|repr)\b",
            _NOT_STORED
            + r".*\b(?:json|serialized?|repr)\b[^.?!]{0,20}\b(?:string|text)\b[^.?!]{0,20}\breturn",
            r"\breturn (?:a |the )?(?:\w+ )?(?:string|text) or (?:a |the |an )?(?:actual )?(?:object|list|dict|value|number|python)\b",
            r"^(?!.*\b(?:inputs?|arguments?|passed|given)\b).*\b(?:string|text) representation\b",
            # "a plain list like [1, 2], or something else, such as a string?": a string offered
            # as another form of what comes back, alone or in a fragment of its own
            _STRING_OFFER
            + r"(?=.*\b(?:return\w*|give\w* back|come\w* back|get back|send\w* back|hand\w* back|output|something else|something different|different (?:format|shape|form))\b)"
            r".*(?:\bor\b|,|\(|\bsuch as\b|\be\.g\.)[^.?!]{0,60}\b(?:an?|as an?|as|into an?) (?:plain |python |single |formatted |json )?(?:string|str)\b(?! (?:of|that|with|containing|where|indicating|saying|describing|explaining)\b)",
            _STRING_OFFER
            + r"(?:or )?an? (?:plain |python |json )?(?:string|str)(?:,| or\b)[^.?!]{0,40}\b(?:an?|something)\b",
            _STRING_OFFER
            + r".*\breturn\w*\b[^.?!]{0,40}\bas (?:an? )?(?:plain |python |json )?(?:string|str)\b[^.?!]{0,10}\bor (?:as )?(?:an? |the )?(?:\w+ )?(?:integer|int|number|list|object|value|tuple|dict|float|bool\w*)\b",
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

    def describe_result(self, value, text):
        return f"{text}, in the format we settled on"

    def applies(self, shape):
        # The two must differ on some output (they agree on ints and lists of ints).
        return shape.json_outputs() and any(json.dumps(out) != repr(out) for out in shape.outputs)

    def wrap(self, alt, inner, ctx):
        if alt == "json":
            return same_signature(
                "_serialized", inner, "return json.dumps({call})", ("import json",)
            )
        return same_signature("_serialized", inner, "return repr({call})")
