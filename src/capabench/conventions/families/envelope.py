from capabench.conventions.base import Alternative, Family, Layer, register, same_signature
from capabench.records import Mechanism

_BODIES = {
    "ok_dict": 'return {{"ok": True, "result": {call}}}',
    "pair": "return ({call}, None)",
    "status_dict": 'return {{"status": "ok", "data": {call}}}',
}


@register
class Envelope(Family):
    id = "envelope"
    mechanism = Mechanism.CONVERSATIONAL
    layer = Layer.ENVELOPE
    cues = ("return it the way we agreed", "send it back like we said last time")
    intents = (
        r"\breturn (value|type|format|shape)",
        r"\bwrap",
        r"\benvelope",
        r"\bagreed\b",
        r"\bshape\b",
        r"what (should|do you want) (it|the function) (to )?return",
        r"\bstatus",
        r"\bsuccess flag",
        r"\bresult (object|structure)",
    )
    question = "What was the return shape we agreed on: the bare value, or wrapped somehow?"
    alternatives = (
        Alternative("ok_dict", 'We agreed on a dict: {"ok": True, "result": <value>}.', ('"ok"',)),
        Alternative(
            "pair",
            "We agreed on a pair: (<value>, None), the second slot being the error.",
            ("(<value>, none)", "pair"),
        ),
        Alternative(
            "status_dict", 'We agreed on a dict: {"status": "ok", "data": <value>}.', ('"status"',)
        ),
    )

    def wrap(self, alt, inner, ctx):
        return same_signature("_enveloped", inner, _BODIES[alt])
