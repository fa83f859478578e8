import json

from capabench.conventions.base import Alternative, Family, Fn, Layer, Layered, Vocabulary, register
from capabench.conventions.shape import Call
from capabench.records import Mechanism

_PARSE = {
    "comma": "[_number(part) for part in {p}.split(',') if part.strip()]",
    "space": "[_number(part) for part in {p}.split()]",
    "json": "json.loads({p})",
}
_NUMBER = "def _number(text):\n    text = text.strip()\n    return int(text) if text.lstrip('-').isdigit() else float(text)\n"


def _encode(alt, values):
    if alt == "json":
        return json.dumps(values)
    return ("," if alt == "comma" else " ").join(repr(v) for v in values)


@register
class InputFormat(Family):
    id = "input_format"
    mechanism = Mechanism.HABITUAL
    layer = Layer.INPUT
    cues = ()
    concept = "in what form the data actually reaches the function (a real list, or text to parse, and which text)"
    vocabulary = Vocabulary(
        anchors=(
            r"\bby the time (?:it|they|the \w+) (?:gets?|reach\w*|arriv\w*)",
            r"\b(?:reach|reaches|arrive at|arrives at|get to|gets to|com(?:e|es|ing) (?:in)?to) (?:the |your |my |this )?function\b",
            r"\bform (?:does|do|will) (?:\w+ )?(?:take|come in|arrive)",
            r"[\'\"](?!\d{1,3}(?:,\d{3})+[\'\"])\[?\d+(?:\s*,\s*\d+){2,}\]?[\'\"]",
            r"[\'\"]\d+(?:\s+\d+){2,}[\'\"]",
            r"\bstdin\b",
            r"\bline (?:from|of) (?:a file|stdin|text)",
            r"\binput format",
            r"\bformat of the (?:input|data|numbers|list|values|argument)",
            r"\bpars(?:e|ed|ing)\b",
            r"\b(?:comma|space|whitespace|tab|newline|semicolon)[- ]?(?:separated|delimited)(?! (?:tokens|words|thousands|digits|groups)\b)",
            r"\bdelimit",
            r"\bhow (?:do|does|will|would|are|is) (?:the |your |my )?(?:data|input|numbers|list|values|argument|items)\b.{0,25}\b(?:arrive|come|get|reach|look|given|passed|supplied|provided|read|fed|stored)",
            r"\ba list or (?:a )?(?:string|text)",
            r"\b(?:string|text) or (?:a )?list",
            r"\braw (?:text|string|input|data)",
            r"\b(?:your|the) (?:data|input|numbers|values) (?:look|looks|arrive|arrives|come|comes)\b",
            r"\bwhere (?:do|does|will) (?:the |your )?(?:numbers|data|values|input) come from",
        ),
        aspects=(
            r"\bsplit",
            r"\b(?:hand|feed|give)s? in\b",
            r"\b(?:python|real|actual|proper|native) list\b",
            r"\bcsv\b",
            r"\bjson\b",
            r"\bstrings?\b",
            r"\btext\b",
            r"\bstr\b",
            r"\bformat",
            r"\bform\b",
            r"\btype",
            r"\bshape",
            r"\barriv",
            r"\bcome in",
            r"\bcomes? as\b",
            r"\bgiven as\b",
            r"\bpassed (?:in )?as\b",
            r"\bencoded",
            r"\bserializ",
        ),
        subjects=(
            r"\binput",
            r"\bdata\b",
            r"\bnumbers\b",
            r"\bthe list\b",
            r"\bargument",
            r"\bparameter",
            r"\bincoming",
            r"\breceiv",
            r"\bfeed",
            r"\bread from",
            r"\bsource",
            r"\bfirst (?:arg|param)",
            r"\bvalues\b",
            r"\b[a-z]\b(?= (?:is|be|arrive|come))",
        ),
        ignore=(
            # whether the values come sorted is about the data, not the form it arrives in (the
            # whole clause, before any other pattern takes a piece of it)
            r"[^.?!\n]*\bsorted\b[^.?!]{0,20}\bwhen (?:it|they) (?:comes?|arrives?)(?: in)?\b",
            r"\binput order\b|\b(?:original|insertion) order\b",
            r"\bdocstring(?: example)?\b[^.?!]{0,40}\b(?:json|string|argument)\b",
            r"\bparse (?:a |the )?files?\b",
            r"\b(?:fixture|test|loader|config)\w*\b[^.?!]{0,40}\bpars\w*\b|\bdoctest\b[^.?!]{0,60}\b(?:json|string)\b|\b(?:json|string)\b[^.?!]{0,60}\bdoctest\b",
            r"\bcomma[- ]separated (?:thousands|digits|groups)\b",
            r"\b(?:return|output|result|give back|hand back)\w*\b[^.?!]{0,60}['\"]\[?\d+(?:\s*,\s*\d+){2,}\]?['\"]",
            r"\b(?:the |an? )?input (?:text|string) (?:may|might|can|could|will|contains?|has|includes?)\b",
            r"\b(?:records?|rows?|items?|calls?|parameters|params|args|arguments) (?:will |would |should |do |does |can )?(?:reach|arrive|get to|come to|gets to)",
            r"\b(?:return|output|result)\w*\b.{0,40}\b(?:json|string|text|format|str)\b",
            r"\b(?:json|string|text|format|str)\b.{0,30}\b(?:return|output|result|back)\b",
            r"\bparse (?:error|tree)",
            r"\binput (?:is )?(?:none|null|missing|invalid|negative)",
            # whether the values come sorted is about the data, not its form
            r"\b(?:is|are)\b[^.?!]{0,30}\b(?:already|always|pre-?)\s*(?:sorted|ordered|deduplicated|unique)\b",
        ),
        questions=(
            r"^(?!.*\b(?:tuple|separately|positional|dict|generator|many|once per|per call|invocation)\b).*\b(?:what|which|in what) (?:form|format|shape|type)\b[^.?!]{0,25}\b(?:inputs?|data|numbers|arguments?|values) (?:come|arrive|be|is|are|passed|given|provided|look)",
            r"\b(?:inputs?|data|numbers|arguments?|values)\b[^.?!]{0,30}\b(?:passed|given|provided|arrive|come in|supplied|received)\b[^.?!]{0,20}\bas (?:a |an )?(?:list|string|json|text|array|comma|space|str)\b",
            r"\b(?:comma|space|whitespace|tab|newline)[- ]?(?:separated|delimited)\b[^.?!]{0,30}\b(?:inputs?|string|data|numbers)\b",
            r"\bformat of (?:the )?(?:inputs?|data|numbers|arguments?|dates?)\b",
            # the delimiter: "how are notes separated in the input?"
            r"\bhow (?:are|is|will|would|do|does) (?:the |your |my )?(?:\w+ ){0,2}(?:separated|delimited)\b"
            r"|\bhow (?:the )?(?:\w+ ){0,2}(?:are|is) (?:separated|delimited)\b",
            r"\b(?:inputs?|data|dates?) format\b",
            # "How are the elements in the array represented?", "How are the GPAs provided?"
            r"^(?!.*\b(?:tuple|separately|positional|dict|generator|many|once per|per call|invocation)\b)"
            r"\W*how (?:are|is|will) (?:the |my |your )?(?:elements?|items?|entries|\w+s) (?:in (?:the )?(?:input|array|list) )?(?:be )?(?:provided|represented|passed(?: in)?|supplied)\b",
            # "Is the year provided as an integer?", "How is the array passed to the function?"
            r"^(?!.*\b(?:results?|outputs?|returned|return value)\b)"
            r"\W*(?:is|are) (?:the |an? )?\w+ (?:provided|given|passed|supplied) as (?:an? )?(?:integer|int|string|str|float|list|tuple|number)s?\b",
            r"\W*how (?:is|will) (?:the |an? )?(?:input |given )?(?:array|list|string|tuple|matrix|data|number|integer|value|dictionary|dict|text)"
            r" (?:be )?(?:passed|provided|supplied|given)(?: (?:in|to (?:the )?function))?\s*\?",
            r"^(?!.*\b(?:tuple|separately|positional|dict|generator|many|once per|per call|invocation|call site|the call)\b).*\bhow (?:will|are|do|does|is) (?:the |my |your )?(?:inputs?|data|numbers|values|arguments?)\b[^.?!]{0,20}\b(?:passed|given|provided|arrive|come|supplied|look|formatted)\b",
        ),
    )
    exemplars = (
        "In what form do the numbers reach the function: a Python list, or text I need to parse?",
        "Is the input an actual list, or a string like '1,2,3'?",
        "How does your data arrive, comma-separated, space-separated, JSON?",
        "Do I need to parse the input first?",
        "What does the raw input look like when you call it?",
        "Will the numbers come in as a string?",
        "I'll assume the input is already a Python list of numbers; tell me if it comes in as text.",
    )
    question = "In what form do the numbers reach the function: a Python list, or some text I need to parse?"
    conflicts = frozenset({"bad_input", "negative_input"})
    alternatives = (
        Alternative(
            "comma",
            'My numbers always arrive as one comma-separated string, like "1,2,3".',
            ("comma-separated",),
        ),
        Alternative(
            "space",
            'My numbers always arrive as one space-separated string, like "1 2 3".',
            ("space-separated",),
        ),
        Alternative(
            "json",
            'My numbers always arrive as a JSON array in a string, like "[1, 2, 3]".',
            ("json array",),
        ),
    )

    def describe_input(self, value):
        if not isinstance(value, list):
            return None
        if not value:
            return "no numbers"
        words = [repr(v) for v in value]
        head = ", ".join(words[:-1]) + " and " if len(words) > 1 else ""
        return "the numbers " + head + words[-1]

    def applies(self, shape):
        firsts = shape.first_args()
        numbers = (int, float)
        return (
            shape.simple_params
            and bool(firsts)
            and all(
                type(a) is list
                and all(type(x) in numbers and x == x and abs(x) != float("inf") for x in a)
                for a in firsts
            )
        )

    def wrap(self, alt, inner, ctx):
        first, *rest = ctx.shape.params
        parsed = _PARSE[alt].format(p=first)
        forward = ", ".join([parsed, *rest])
        code = f"def _parsed({', '.join(ctx.shape.params)}):\n    return {inner.name}({forward})\n"
        helpers = () if alt == "json" else (_NUMBER,)
        return Layered(
            "\n".join([*helpers, code]),
            Fn("_parsed", ", ".join(ctx.shape.params), ", ".join(ctx.shape.params)),
            ("import json",) if alt == "json" else (),
        )

    def adapt(self, alt, calls, ctx):
        return [Call((_encode(alt, c.args[0]), *c.args[1:]), c.kwargs, c.probe) for c in calls]
