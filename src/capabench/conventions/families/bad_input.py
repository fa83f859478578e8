from capabench.conventions.base import Alternative, Family, Layer, register, same_signature
from capabench.conventions.shape import Call
from capabench.records import Mechanism

_EMPTY = {list: "[]", str: '""', int: "0", float: "0.0", tuple: "()", dict: "{}", bool: "False"}


@register
class BadInput(Family):
    id = "bad_input"
    mechanism = Mechanism.CONSTRAINT
    layer = Layer.VALIDATION
    cues = ("make it robust", "")  # an empty cue: sometimes the user says nothing at all
    intents = (
        r"\binvalid",
        r"\bbad input",
        r"\bnone\b",
        r"\bnull",
        r"\bmissing (input|value|argument)",
        r"\berror",
        r"\bexception",
        r"\braise",
        r"\brobust",
        r"\bvalidat",
        r"\bunexpected",
        r"\bedge case",
    )
    question = "What should happen when the input is missing (None)?"
    alternatives = (
        Alternative("raise", "If the input is None it must raise ValueError.", ("valueerror",)),
        Alternative("none", "If the input is None it must just return None.", ("return none",)),
        Alternative(
            "empty",
            "If the input is None it must return an empty result of the usual type (empty list, empty string, 0, False...).",
            ("empty result",),
        ),
    )

    def applies(self, shape):
        kinds = {type(o) for o in shape.outputs}
        return (
            shape.simple_params
            and len(shape.params) >= 1
            and len(kinds) == 1
            and kinds <= set(_EMPTY)
        )

    def wrap(self, alt, inner, ctx):
        first = ctx.shape.params[0]
        reaction = {
            "raise": f'raise ValueError("{first} must not be None")',
            "none": "return None",
            "empty": f"return {_EMPTY[type(ctx.shape.outputs[0])]}",
        }[alt]
        return same_signature(
            "_checked", inner, f"if {first} is None:\n    {reaction}\nreturn {{call}}"
        )

    def adapt(self, alt, calls, ctx):
        template = next(c for c in calls if not c.probe)
        return [*calls, Call((None, *template.args[1:]), template.kwargs, probe=True)]
