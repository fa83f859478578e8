from capabench.conventions.base import Alternative, Family, Fn, Layer, Layered, register
from capabench.conventions.shape import Call
from capabench.records import Mechanism

_BODIES = {
    "tuples": "return [{inner}(*record) for record in records]",
    "named": "return {{name: {inner}(*record) for name, record in records.items()}}",
    "kwargs": "return [{inner}(**record) for record in records]",
}


@register
class Batch(Family):
    id = "batch"
    mechanism = Mechanism.STRUCTURAL
    layer = Layer.BATCH
    cues = ("I'll run it over my records", "it has to work over all my records")
    intents = (
        r"\bbatch",
        r"\brecords?\b",
        r"one (at a time|call|input|item)",
        r"single (input|item|call|value)",
        r"multiple (inputs|items|calls|values)",
        r"\bmany\b",
        r"\bbulk",
        r"\bvectori",
        r"list of (inputs|arguments|calls)",
    )
    question = "How will you call it over your records: one call per item, or a whole collection at once (in what shape)?"
    alternatives = (
        Alternative(
            "tuples",
            "It gets all my records at once: a list of argument tuples, and it returns the list of results in the same order.",
            ("argument tuples",),
        ),
        Alternative(
            "named",
            "It gets my records as a dict from record name to argument tuple, and returns a dict from the same names to results.",
            ("record name",),
        ),
        Alternative(
            "kwargs",
            "It gets a list of records, each a dict of keyword arguments, and returns the list of results in order.",
            ("keyword arguments",),
        ),
    )

    def applies(self, shape):
        return shape.simple_params and len(shape.params) >= 1

    def wrap(self, alt, inner, ctx):
        code = f"def _batch(records):\n    {_BODIES[alt].format(inner=inner.name)}\n"
        return Layered(code, Fn("_batch", "records", "records"))

    def adapt(self, alt, calls, ctx):
        # Ordinary calls travel as one batch; each probe alone, so one bad record can't mask the rest.
        normal = [c for c in calls if not c.probe]
        groups = [(normal, False)] if normal else []
        groups += [([c], True) for c in calls if c.probe]
        return [Call((self._pack(alt, group, ctx),), {}, probe) for group, probe in groups]

    @staticmethod
    def _pack(alt, calls, ctx):
        if alt == "tuples":
            return [tuple(c.args) for c in calls]
        if alt == "named":
            return {f"record-{i}": tuple(c.args) for i, c in enumerate(calls, 1)}
        return [dict(zip(ctx.shape.params, c.args, strict=True)) for c in calls]
