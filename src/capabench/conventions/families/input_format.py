import json

from capabench.conventions.base import Alternative, Family, Fn, Layer, Layered, register
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
    intents = (
        r"\binput format",
        r"\bformat of the (input|data|numbers|list)",
        r"\bparse",
        r"\bcomma",
        r"\bspace.?separated",
        r"\bjson\b",
        r"how (does|do|will) (the|your) (data|input|numbers|list)",
        r"\bas a string",
        r"what (type|form) (is|are) the (input|numbers)",
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
        return Layered("\n".join([*helpers, code]), Fn("_parsed", ", ".join(ctx.shape.params), ", ".join(ctx.shape.params)),
                       ("import json",) if alt == "json" else ())  # fmt: skip

    def adapt(self, alt, calls, ctx):
        return [Call((_encode(alt, c.args[0]), *c.args[1:]), c.kwargs, c.probe) for c in calls]
