from capabench.conventions.base import (
    Alternative,
    Family,
    Layer,
    Vocabulary,
    register,
    same_signature,
)
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
    concept = "the structure the return value is wrapped in (an agreed container around the value)"
    vocabulary = Vocabulary(
        anchors=(
            r"\bwe discussed",
            r"\blast time",
            r"\bagree on",
            r"\bagreed",
            r"\bnested (?:under|in|inside)\b",
            r"\binside (?:some |a |an )?(?:dict|object|wrapper|container|structure)",
            r"\benvelop",
            r"\benvelope",
            r"\b(?:un)?wrap(?:s|ped|per|ping)?\b",
            r"\blike we said",
            r"\bas we said",
            r"\bwhat we said",
            r"\bthe way we\b",
            r"\bstatus (?:field|flag|key|code|value)",
            r"\b(?:success|ok|error) (?:flag|field|key|slot|marker)",
            r"\bok\b.{0,12}\bresult\b",
            r"\bresult object",
            r"\bresponse (?:object|shape|structure)",
            r"\bmetadata",
            r"\b\(\s*(?:value|result|v)\s*,\s*(?:error|err|none)\s*\)",
            r"\b(?:result|value)[- ]error (?:pair|tuple)",
            r"\bbare (?:value|result)",
            r"\bsend (?:it )?back like",
        ),
        aspects=(
            r"\bjust the (?:raw )?(?:value|result)",
            r"\bcontainer",
            r"\bshape",
            r"\bstructure",
            r"\bdict(?:ionary)?\b",
            r"\btuple",
            r"\bpair\b",
            r"\bobject\b",
            r"\bkeys?\b",
            r"\braw\b",
            r"\bas[- ]is\b",
            r"\bsurround",
            r"\bwhat exactly",
            r"\bextra\b",
        ),
        subjects=(
            r"\b(?:come|send|give|hand)s? (?:it |them )?back",
            r"\breturn",
            r"\bresult",
            r"\boutput",
            r"\bcome back",
            r"\bsend back",
            r"\bgive back",
            r"\bhand back",
            r"\bresponse",
        ),
        ignore=(
            r"\bas[- ]is\b(?=[^.?!]{0,30}\b(?:order|sort\w*|arrang\w*|dedup\w*|duplicat\w*))|\b(?:order|sort\w*|arrang\w*|round\w*)\b[^.?!]{0,50}\bas[- ]is\b",
            r"\b(?:parenthes\w*|brackets?|lists?|structures?|depth|levels?|calls?)\b[^.?!]{0,20}\bnested\b|\bnested (?:in|inside) (?:real |the |an? )?(?:inputs?|strings?|lists?|expressions?|loops?|functions?)\b",
            r"\bwrap(?:s|ping)? around\b(?!\s+(?:the |a |an |it |each )?(?:result|value|output|return|answer))",
            r"\bnested (?:inside|in|within) (?:the |a |an )?(?:main |outer |enclosing |parent )?(?:function|module|class|loop|scope|def)\b",
            r"\b(?:first|closest|last|next|each|every|two|matching) pairs?\b|\bpairs? (?:of|tie|that)\b",
            r"\bwrap(?:s|ping)? (?:this |things |it |everything )?up\b",
            r"(?:\blast time,? )?\b(?:we|you and i) (?:agreed|discussed|settled|decided|said)\b (?:on |to )?(?:use |using )?(?:the |a |an )?(?:math|approach|algorithm|definition|semantics|tests?|testing|pytest|fixtures?|style|naming|names?|types?|type hints|docstrings?|edge cases?|complexity|librar(?:y|ies)|dependencies|version|python|pattern|tooling|linter|formatter)\b|\bagree(?:d)? on (?:the |a )?(?:math|approach|algorithm|definition|semantics|tests?|testing|pytest|fixtures?|style|naming|names?|types?|type hints|docstrings?|edge cases?|complexity|librar(?:y|ies)|dependencies|version|python|pattern|tooling|linter|formatter)\b",
            r"\bwrap\w* (?:it |this |the line |the code |lines? |long lines )?(?:over|across|onto|to|at) (?:several|multiple|two|\d+|the next|\d+ characters) (?:lines?|columns|chars)",
            r"\bwrap\w* (?:[\w'-]+ ){0,3}?(?:in|into) (?:a |an )?(?:class|module|helper|try|main|decorator|lambda|script|cli|package)\b",
            r"\bbatch wrapper",
            # a wrapper the function is called through is how it's called, not what it returns
            r"\b(?:through|via|using|from|with) (?:a |an |the |some |your )?(?:(?!no\b)\w+ )?wrapper\b(?! (?:object|dict|type|structure))"
            r"|\bwrapper\b(?:,| or| and|/)\s*(?:a |an |the )?(?:\w+ )?(?:test harness|harness|entry[- ]?point|script|command[- ]line|cli|main)\b"
            r"|\bwrap\w* it\b[^.?!]{0,30}\b(?:entry[- ]?point|harness|command[- ]line|call)\b"
            # beside the function's name, signature or caller ("a different name or
            # signature, or a wrapper (e.g. reading from stdin)")
            r"|\b(?:name|signature|call(?:s|ed|ing)?|stdin|command[- ]line|entry[- ]?point)\b[^.?!]{0,60}\bwrapper\b(?! (?:object|dict|type|structure))"
            r"|\bwrapper\b[^.?!]{0,30}\b(?:reading from|stdin|command[- ]line)\b",
            r"\bwrap\w* (?:in|into) (?:one|a single) (?:value|object|parameter|argument|tuple|dict|container)",
            r"\bwrapper (?:function|class|script|module)\b|\bwrapper around (?:the |a |an )?(?:function|call|api|library|loop|cli)\b",
            r"\bwrap(?:ped|ping)? (?:the |both |all )?(?:inputs|arguments|args|parameters|params)",
            r"\btuple of (?:arguments|args|parameters|params|inputs)",
            r"\bdict (?:of|from) (?:parameter|argument|record|name)",
            r"\b(?:argument|parameter|input|record)s? (?:as|in) (?:a |one )?(?:dict|tuple)",
            r"\btext wrap",
            r"\bline wrap",
        ),
        questions=(
            r"\bwrap(?:ped|per)?\b[^.?!()]{0,20}\b(?:the )?(?:results?|return value|output|value)\b",
            r"\b(?:results?|response|return) (?:object|envelope|wrapper|container|dict with)\b",
            r"\b(?:status|ok|success|error) (?:flag|key|field|code)\b[^.?!]{0,40}\b(?:return|result|output|dict)",
            r"\b(?:value|result), ?(?:error|err)\b",
        ),
    )
    exemplars = (
        "What was the return shape we agreed on: the bare value, or wrapped somehow?",
        "Should the result be wrapped in a dict with a status?",
        "Do you want the value back as-is, or inside some container?",
        "How did we agree the result should be returned?",
        "Should it return a (value, error) pair?",
        "What keys should the returned dict have?",
        "I'll return the bare value unless we agreed on a wrapper.",
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

    def describe_result(self, value, text):
        return f"{text}, returned the way we agreed"

    def wrap(self, alt, inner, ctx):
        return same_signature("_enveloped", inner, _BODIES[alt])
