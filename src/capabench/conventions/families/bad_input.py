from capabench.conventions.base import (
    Alternative,
    Family,
    Layer,
    Vocabulary,
    register,
    same_signature,
)
from capabench.conventions.shape import Call
from capabench.records import Mechanism

_EMPTY = {list: "[]", str: '""', int: "0", float: "0.0", tuple: "()", dict: "{}", bool: "False"}


# a question about what comes back ("what if the sum is less than 1?") is not about the input
_NOT_OF_THE_RESULT = r"^(?!.*\b(?:results?|outputs?|returned|return value|answer|sums?)\b)"


@register
class BadInput(Family):
    id = "bad_input"
    mechanism = Mechanism.CONSTRAINT
    layer = Layer.VALIDATION
    cues = ("make it robust", "")  # an empty cue: sometimes the user says nothing at all
    concept = "what the function must do when its input is missing (None) or invalid"
    vocabulary = Vocabulary(
        anchors=(
            r"\b(?:like|such as|e\.g\.?) (?:[\w' ]{0,20} or )?none\b",
            r"\bnon-(?:number|numeric|string|str|list|int|integer|float|dict)s?\b",
            r"\b(?:something|anything|input|value|argument|it) (?:that )?(?:isn't|is not|that's not) (?:a |an )?(?:list|string|str|number|int|integer|float|dict)\b",
            r"\b(?:like|such as) none\b",
            r"\b(?:in place of|instead of) an? (?:number|int|integer|string|list)\b|\bwhere an? (?:int|number|string|list|float) (?:belongs|is expected|should be)",
            r"\brobust",
            r"\b(?:input|argument|value|arg|data)s? (?:is|are) (?:missing|absent|not given|not provided)\b",
            r"\bmissing \(none\)|\(none\)",
            r"\binvalid",
            # "a token that isn't in the legend", "an unknown word"
            r"\b(?:token|word|character|char|symbol|letter|note|key|entry|value)s? (?:that )?(?:isn't|is not|aren't|are not|that's not|not) (?:in|one of|among|listed in|covered by|found in|part of) (?:the )?(?:legend|table|mapping|map|allowed|valid|known|vocabulary|alphabet|\w+ (?:notes|symbols|characters|letters|words|tokens))\b",
            r"\b(?:unknown|unrecogni[sz]ed|unsupported|unexpected) (?:token|word|character|char|symbol|letter|note|key|entry|value)s?\b",
            r"\bbad (?:input|data|value|argument)",
            r"\bnull\b",
            r"\bmissing (?:input|value|argument|data|arg)",
            r"\bmalformed",
            r"\bgarbage",
            r"\bvalidat",
            r"\bdefensive",
            r"\bsanit",
            r"\bguard (?:against|clause)",
            r"\bfail (?:gracefully|loudly|fast|silently)",
            r"\berror handling",
            r"\bwrong (?:type|input)",
            r"\bnonetype",
            r"\b(?:is|be|are|gets?|given|passed|receives?|of|pass(?:es)?|hand it|feed it) none\b",
            r"\bnone (?:input|value|argument|is passed)",
            r"\bif (?:the input|it|the argument|x|the value) is (?:none|missing)",
        ),
        aspects=(
            r"\bnone\b",
            r"\berrors?\b",
            r"\bexceptions?\b",
            r"\braise",
            r"\bthrow",
            r"\bedge cases?",
            r"\bcrash",
            r"\bunexpected",
            r"\bno input",
            r"\bnothing\b",
        ),
        subjects=(
            r"\binput",
            r"\bargument",
            r"\bparam",
            r"\bmissing",
            r"\bbad\b",
            r"\bgiven\b",
            r"\bpass(?:es|ed)\b",
            r"\bnone\b",
            r"\bhandle",
            r"\bbreak",
        ),
        ignore=(
            r"\b(?:test helper|fixture|test setup|my test|the test)\b[^.?!]{0,60}\b(?:raise\w*|exception\w*|error)\b|\bmean absolute deviation\b",
            r"\b(?:value|result|v)\s*,\s*none\b",
            # what a type checker or linter says of the code ("an invalid type comment")
            r"\binvalid (?:type )?(?:comment|hint|annotation|syntax|escape|token|indentation)s?\b",
            r"\bnone of\b",
            r"\berror (?:slot|field|key)",
            r"\bsecond slot",
            r"\bnegative",
            r"\bbelow zero",
            r"\bempty (?:list|string|result) (?:as|for) (?:the )?(?:result|output)",
            # the task's own answer ("the docstring says the answer is None when there is none")
            r"\b(?:answer|result|output|return value|expected value)s? (?:is|are|would be|should be|will be|becomes?) none\b",
        ),
        questions=(
            r"\b(?:invalid|malformed|bad|wrong[- ]type|non-?numeric|unexpected|unsupported|out[- ]of[- ]range|illegal|garbage|missing|null|none) (?:inputs?|arguments?|args?|values?|data|types?(?! (?:comment|hint|annotation|check)s?\b)|parameters?|records?)\b",
            # unusual inputs, unless the only ones meant are negative (negative_input's)
            r"^(?!(?!.*\b(?:zero|0|floats?|decimals?|strings?|none|above|outside|non-?integers?)\b).*\bnegatives?\b)"
            r".*\bunusual (?:inputs?|arguments?|values?|data|numbers?)\b",
            # an input outside what the task allows: "numbers above 1000 (outside the stated range)?"
            r"^(?!.*\b(?:results?|outputs?|returned|return value|answer)s? (?:is|are|falls?|goes|lies)\b)"
            r".*\b(?:outside|out of|beyond|exceed\w*|not (?:with)?in) (?:the )?(?:stated |given |allowed |valid |documented |specified |expected )?(?:range|constraints?|bounds|limits?|domain)\b",
            r"\b(?:if|when|where) (?:the |an? )?(?:inputs?|arguments?|values?|list|string|data|parameters?)(?: values?)?\b[^.?!]{0,20}\b(?:is|are|happens to be) (?:none|null|missing|invalid|not valid|not (?:a|an) \w+|of the wrong type|malformed)\b",
            # "what if the inputs are not integers?", "if either `x` or `y` is not an integer"
            r"^(?!.*\b(?:results?|outputs?|returned|return value|answers?|sums?|averages?|means?|products?)\b)"
            r".*\b(?:if|when|where)\b[^.?!]{0,30}\b(?:is|are) not (?:an? )?(?:valid |positive |non-negative |whole )?(?:integer|int|number|string|str|list|float|numeric)s?\b",
            r"\b(?:input|argument) (?:validation|checking|checks)\b",
            # "how does it handle different types of input?"
            r"\b(?:handl\w*|accept\w*|deal\w* with|cop\w* with) (?:different|other|various|mixed|unexpected|wrong|any) (?:data )?types? of (?:inputs?|arguments?|values?|data)\b",
            # "a requirement for handling edge cases or errors?" (not another system's errors)
            r"^(?!.*\b(?:api|network|server|database|connection|request|http|file|disk|download)s?\b)"
            r".*\bhandl\w* (?:\w+ ){0,3}(?:errors?|exceptions?)\b|\b(?:errors?|exceptions?) (?:that |which )?(?:should|must|need to) be (?:caught|handled)\b",
            # "should we raise an error if the tuples have different lengths?"
            _NOT_OF_THE_RESULT
            + r".*\b(?:raise|throw)\w* (?:an? )?(?:\w+ )?(?:error|exception)s? (?:if|when)\b",
            # a missing argument: "what if the delimiter is not provided?"
            r"^(?!.*\b(?:results?|outputs?|returned|return value|answer|format|requirements?)\b)"
            r".*\b(?:if|when|where)\b[^.?!]{0,70}\b(?:(?:is|are) (?:missing|absent|not (?:given|provided|passed|supplied))"
            r"|(?:do|does|did) not (?:provide|pass|give|supply))\b",
            # an input the task rules out: "a list with fewer than two elements" where two are
            # needed, "an input that is not less than 100" where the task says it is, "n is
            # less than 1" where it is to be positive
            r"^(?!.*\b(?:groups?|chunks?|blocks?|windows?|leftovers?|results?|outputs?)\b)"
            r".*\b(?:fewer|less) than (?:two|three|four|[2-4]) (?:elements?|items?|numbers|values|entries|integers|strings|words|characters|digits)\b"
            r"|\bnumber of \w+ (?:is|are) (?:fewer|less|smaller) than (?:two|three|four|[2-4])\b",
            _NOT_OF_THE_RESULT
            + r".*\b(?:inputs?|arguments?|values?|numbers?|n|k|x|it)\b (?:is|are)"
            r" (?:not (?:less|greater|smaller|larger|bigger|more) than|(?:less|smaller) than (?:1|one)\b)"
            # (any argument in a case asked about: "where the step is less than 1")
            # (an identifier the text names in code is read as a gap: "if `n` is less than 1")
            r"|\b(?:if|when|where)(?: (?:the |an? )?(?!(?:lengths?|sizes?|counts?|number|total|results?|outputs?|sums?|differences?)\b)\w+|\s{2,})"
            r"\s*(?:is|are) (?:less|smaller) than (?:1|one)\b",
            # characters or items the task doesn't allow: "if the input could contain anything
            # other than parentheses, how should that be handled?"
            r"\b(?:inputs?|strings?|lists?|data|arguments?|text|numbers?)\b[^.?!]{0,20}\b(?:contains?|contain|containing|has|have|having|includes?|including|holds?|with)\b[^.?!]{0,10}\b(?:anything|something|characters?|items?|values?|digits?|letters?|symbols?) (?:other than|else than|besides|apart from)\b",
            # "should a `base` outside 2-9 raise a ValueError?"
            r"^(?!.*\b(?:results?|outputs?|returned|return value)\b).*\b(?:outside|out of)\b(?:[^.?!]|\.\d){0,30}\b(?:raise|reject)\w*\b",
            r"\bhandle (?:invalid|bad|wrong|malformed)\b",
            # "is there a need to check if the input is an integer?", "handle division by zero?"
            r"\b(?:check|verify|validate|ensure)\w* (?:if |whether |that )?(?:the |each |all )?(?:inputs?|arguments?|values?|elements?|n|x)\b"
            r"[^.?!]{0,15}\b(?:is|are) (?:an? )?(?:valid |positive )?(?:integer|int|number|string|list|float|numeric)s?\b",
            r"\bhandl\w* (?:a |the )?(?:division|dividing) by zero\b",
            # input of another kind than the task's: floats where integers are meant,
            # "non-tuple inputs", "mixed data types"
            r"^(?!.*\b(?:results?|outputs?|returned|return value|precision|comparisons?|accuracy|tests?|toleran\w+|isclose|approx)\b)"
            r".*(?:\b(?:handle|accept|support)\w*\b[^.?!]{0,20}|\bwhat (?:if|about|happens if)\b[^.?!]{0,30}\b(?:is|are) (?:an? )?)"
            r"\b(?:floating[- ]point|floats?|decimals?|non-integers?)\b",
            r"\b(?:handl\w*|what if|contains?|containing|accept\w*)\b[^.?!]{0,30}\b(?:non-(?:tuple|list|string|integer|int|numeric|number|dict|dictionary)s?"
            r"|mixed (?:data )?types)\b",
            # what to do with inputs of another type: "floats or strings: raise, or accept?"
            r"^(?!.*\b(?:results?|outputs?|returned|return value)\b).*(?<!return an empty )(?<!returns an empty )(?<!return empty )\b(?:floats?|decimals?|non-integers?|non-integral|strings?|booleans?)\b(?:[^.?!]|\.\d){0,60}\b(?:raise|reject)(?:ing|ed)?\b"
            r"|\b(?:accept|reject)\w* (?:floats?|decimals?|non-integers?|booleans?|numeric strings?)\b",
            # "what should happen to a record that isn't a string?": an input of the wrong type
            r"^(?!.*\b(?:results?|outputs?|returned|return value|answer)\b).*\bhappens?\b[^.?!]{0,40}\b(?:that|which|if it|if they|when it|when they) (?:isn't|is not|aren't|are not) (?:a |an )?(?:valid )?(?:string|str|int|integer|number|list|float|dict|tuple|numeric)s?\b",
        ),
    )
    exemplars = (
        "What should happen when the input is None?",
        "Should it raise on invalid input, or return something?",
        "How robust does it need to be against missing values?",
        "Do I need to validate the arguments?",
        "What if someone passes None?",
        "Should bad input raise a ValueError?",
        "I'll let it raise if the input is None unless you want it handled.",
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

    def governs(self, args):
        return bool(args) and args[0] is None

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
        reaction = reaction.replace("{", "{{").replace("}", "}}")  # `return {}` is code, no field
        return same_signature(
            "_checked", inner, f"if {first} is None:\n    {reaction}\nreturn {{call}}"
        )

    def adapt(self, alt, calls, ctx):
        template = next(c for c in calls if not c.probe)
        return [*calls, Call((None, *template.args[1:]), template.kwargs, probe=True)]
