from capabench.conventions.base import Alternative, Family, Fn, Layer, Layered, register
from capabench.conventions.shape import Call
from capabench.records import Mechanism


@register
class PackedArgs(Family):
    id = "packed_args"
    mechanism = Mechanism.STRUCTURAL
    layer = Layer.BATCH
    cues = ("hook it up to my usual call", "it has to fit how I always call these")
    intents = (
        r"\bargument",
        r"\bparam",
        r"\bsignature",
        r"\btuple",
        r"\bbundle",
        r"\bpass(ed|ing)?\b.*\b(in|to)\b",
        r"how (do|will|would) you call",
        r"\bunpack",
        r"\bpositional",
    )
    question = "How do you call it: separate arguments, or everything bundled into one value?"
    alternatives = (
        Alternative(
            "tuple",
            "I always pass one bundle: a single tuple holding all the arguments in order.",
            ("single tuple",),
        ),
        Alternative(
            "dict",
            "I always pass one bundle: a single dict from parameter name to value.",
            ("parameter name to value",),
        ),
    )

    def applies(self, shape):
        return shape.simple_params and len(shape.params) >= 2

    def wrap(self, alt, inner, ctx):
        body = (
            f"return {inner.name}(*bundle)" if alt == "tuple" else f"return {inner.name}(**bundle)"
        )
        return Layered(f"def _unbundle(bundle):\n    {body}\n", Fn("_unbundle", "bundle", "bundle"))

    def adapt(self, alt, calls, ctx):
        if alt == "tuple":
            return [Call((tuple(c.args),), {}, c.probe) for c in calls]
        return [
            Call((dict(zip(ctx.shape.params, c.args, strict=True)),), {}, c.probe) for c in calls
        ]
