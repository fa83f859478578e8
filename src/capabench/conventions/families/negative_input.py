from capabench.conventions.base import Alternative, Family, Layer, register, same_signature
from capabench.conventions.shape import Call
from capabench.records import Mechanism


@register
class NegativeInput(Family):
    id = "negative_input"
    mechanism = Mechanism.CONSTRAINT
    layer = Layer.VALIDATION
    cues = ("make sure it's safe with odd numbers", "")
    intents = (
        r"\bnegative",
        r"\bbelow zero",
        r"\bminus",
        r"\bless than (zero|0)",
        r"\bsign\b",
        r"\bvalidat",
        r"\bodd numbers",
        r"\bsafe\b",
        r"\bedge case",
    )
    question = "What should happen with a negative number?"
    alternatives = (
        Alternative("raise", "Negative numbers are invalid: raise ValueError.", ("valueerror",)),
        Alternative("none", "For a negative number just return None.", ("return none",)),
        Alternative(
            "absolute", "Treat a negative number as its absolute value.", ("absolute value",)
        ),
    )

    def applies(self, shape):
        firsts = shape.first_args()
        return (
            shape.simple_params
            and bool(firsts)
            and all(type(a) is int for a in firsts)
            and any(a > 0 for a in firsts)
        )

    def wrap(self, alt, inner, ctx):
        first = ctx.shape.params[0]
        reaction = {
            "raise": f'raise ValueError("{first} must not be negative")',
            "none": "return None",
            "absolute": f"{first} = -{first}",
        }[alt]
        return same_signature(
            "_nonnegative", inner, f"if {first} < 0:\n    {reaction}\nreturn {{call}}"
        )

    def adapt(self, alt, calls, ctx):
        # The negative twin of a recorded positive input: its absolute value is known to work.
        template = next(c for c in calls if not c.probe and c.args[0] > 0)
        return [*calls, Call((-template.args[0], *template.args[1:]), template.kwargs, probe=True)]
