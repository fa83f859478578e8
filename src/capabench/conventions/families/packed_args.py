from capabench.conventions.base import Alternative, Family, Fn, Layer, Layered, Vocabulary, register
from capabench.conventions.shape import Call
from capabench.records import Mechanism


@register
class PackedArgs(Family):
    id = "packed_args"
    mechanism = Mechanism.STRUCTURAL
    layer = Layer.BATCH
    cues = ("hook it up to my usual call", "it has to fit how I always call these")
    concept = "how the user passes the arguments: separately as in the signature, or bundled into one value (which kind)"
    vocabulary = Vocabulary(
        anchors=(
            r"\bcall(?:ed|ing)? (?:it|this|them) with\b[^.?!]{0,40}\b(?:separately|individually|one by one|as one|together|tuple|dict|bundled)\b",
            r"\w\(\w+(?:,\s*\w+)+\)\s*(?:or|vs\.?|versus)\s*\w\(\w+\)|\w\(\w+\)\s*(?:or|vs\.?|versus)\s*\w\(\w+(?:,\s*\w+)+\)",
            r"\b(?:the )?(?:two|both|three|all) (?:values|arguments|args|params|parameters|inputs)\b[^.?!]{0,40}\b(?:one|single|a) (?:list|tuple|dict|object|value|container)\b",
            r"\b(?:arguments|args|parameters|params)\b[^.?!]{0,40}\b(?:one by one|separately|individually|inside one|in one|together|bundled)\b",
            r"\bhow you (?:always |usually |normally |typically )?call (?:it|this|them|the function)\b",
            r"\b(?:passed|pass|given|supplied) (?:in )?(?:separately|individually|one by one|as separate)\b",
            r"\bcall it as \w+\(",
            r"\w\(\((?:\w+,\s*)+\w+\)\)",
            r"\w\(\{",
            r"\(\*\*?\w+\)",
            r"\bcall(?:er|ing code)s? (?:feeds|passes|hands|gives|supplies|spreads) (?:in |over )?(?:the |both |two |those |these |its |all )?(?:values|arguments|args|parameters|params|inputs)",
            r"\bspreads? (?:the values|them|the arguments) out",
            r"\busual call",
            r"\b(?:call|invoke) (?:it|this|them|these|the function) differently\b",
            r"\bhow (?:i|you|we) (?:always|usually|normally|typically) call",
            r"\bcall site",
            r"\bcalling (?:convention|pattern|style)",
            r"\bhow (?:do|will|would|does|did|are|is) (?:you|they|we|i|your code|callers?|it|this|the function)\b.{0,25}\b(?:call(?:ed|ing)?|invok\w*)\b",
            r"\bunpack",
            r"\bbundl",
            r"\bpositional",
            r"\bkeyword (?:arg|argument|param)",
            r"\b\*\*?kwargs|\b\*args",
            r"\b(?:individual|distinct|multiple) (?:arguments|args|parameters|params)\b",
            r"\bone (?:combined|packed) (?:value|object|argument)",
            r"\bseparate (?:arguments|args|parameters|params|values)",
            r"\bpacked\b",
            r"\bsplat",
            r"\b(?:single|one) (?:tuple|dict|dictionary|object|argument|parameter|param|arg|bundle|struct)\b",
            r"\bhooks? (?:it )?up\b",
        ),
        aspects=(
            r"\binvocation",
            r"\bsignature\b",
            r"\barguments?\b",
            r"\bargs?\b",
            r"\bparam(?:eter)?s?\b",
            r"\binputs\b",
        ),
        subjects=(
            r"\bpass",
            r"\bbundle",
            r"\bseparate",
            r"\btogether",
            r"\btuple",
            r"\bdict",
            r"\bsingle\b",
            r"\bone\b",
            r"\bshape\b",
            r"\bform\b",
            r"\bgroup",
            r"\bwrap",
            r"\bsupply",
            r"\bprovide",
            r"\bcall",
            r"\bhand",
            r"\bgive",
        ),
        ignore=(
            r"\bunpack (?:the )?(?:answer|result|return|output|value)\b",
            r"\bfirst (?:parameter|param|argument|arg)\b",
            r"\bunpack (?:that|this|it|what you mean|a (?:bit|little))\b|\bunpack\w* each\b",
            r"\bwhat should (?:i|we) call\b",
            r"(?<!how you )(?<!how u )(?<!how they )(?<!how we )(?<!how i )\bcall (?:it|this|the function|them)\b(?! with)(?=.{0,30}(?:name|\?|$))",
            r"\b(?:is|are|if|when) (?:the )?(?:argument|input|parameter|arg)s? (?:is |are )?(?:none|null|missing|negative|empty|invalid)",
        ),
        questions=(
            r"\b(?:separate|separately|individual|individually|positional)\b[^.?!]{0,30}\b(?:or|vs|versus)\b[^.?!]{0,30}\b(?:tuple|dict|dictionary|bundle|(?:single|one) (?:tuple|dict|object|argument|value|parameter|thing|pair|structure))\b",
            r"\b(?:tuple|dict|dictionary|bundle|single object)\b[^.?!]{0,30}\b(?:or|vs|versus)\b[^.?!]{0,30}\b(?:separate|separately|individual|individually|positional)\b",
            r"^(?!.*\b(?:return\w*|output|printed)\b).*\b(?:a|one|single) (?:tuple|dict|dictionary|bundle)\b[^.?!]{0,15}\b(?:of|with|holding|containing) (?:the |all )?(?:arguments|parameters|args|inputs)\b",
            r"\b(?:arguments|parameters|args)\b[^.?!]{0,20}\b(?:packed|bundled|passed together|as a tuple|as a dict)\b",
        ),
    )
    exemplars = (
        "How do you usually call it: with separate arguments, or with everything bundled into one value?",
        "Do you pass the parameters as one tuple, one dict, or individually?",
        "What does your usual call look like?",
        "Should the function take a single argument holding all the inputs?",
        "Do you call it with keyword arguments or positionally?",
        "How will your code invoke this function?",
        "I'll keep the signature as written, with separate arguments, unless your usual call differs.",
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
