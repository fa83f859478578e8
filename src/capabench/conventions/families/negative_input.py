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

# a question about the result's sign ("is the sum always positive?") is not about the input
_NOT_OF_THE_RESULT = (
    r"^(?!.*\b(?:results?|outputs?|answers?|sums?|differences?|returns?|products?|averages?)\b)"
)


@register
class NegativeInput(Family):
    id = "negative_input"
    mechanism = Mechanism.CONSTRAINT
    layer = Layer.VALIDATION
    cues = ("make sure it's safe with odd numbers", "")
    concept = "what the function must do when given a negative number"
    vocabulary = Vocabulary(
        anchors=(
            r"\bneg\b",
            r"\bnegative",
            r"\bbelow zero",
            r"\bless than (?:zero|0)\b",
            r"<=?\s*0\b",
            r"\bminus",
            r"\bsigned\b",
            r"\bsign\b",
            r"\bnon-?negative",
            r"\bpositive (?:only|numbers|integers|ints|values|inputs)",
            r"\bonly positive",
            r"\bnon-?positive",
            r"\bsafe with odd",
            r"\babsolute value",
            r"\babs\(",
            r"\bunder zero",
            r"(?<![\w.])-\d+\b",
            r"\bodd numbers",
            r"\bnatural numbers?",
        ),
        aspects=(
            r"\bsafe\b",
            r"\bodd\b",
            r"\bweird",
            r"\bstrange",
            r"\bunusual",
            r"\bout[- ]of[- ]range",
            r"\brange\b",
            r"\bvalidat",
            r"\bedge cases?",
        ),
        subjects=(
            r"\bnumbers?\b",
            r"\bvalues?\b",
            r"\binput",
            r"\binteger",
            r"\bint\b",
            r"\bn\b",
            r"\bargument",
        ),
        ignore=(
            # a quoted run of numbers ("1, -2, 3"); an apostrophe inside a word ("can't") opens no quote
            r"(?<![a-z])[\"'][^\"'\n]*\d[\s,]+-?\d[^\"'\n]*[\"'](?![a-z])",
            # a value that goes negative changes during the work: not the input's sign ("return
            # True as soon as the balance goes negative", "if the depth ever drops below zero")
            r"(?<![\s(][a-z] )(?<!^[a-z] )(?<!\binput )(?<!\binputs )(?<!\bargument )(?<!\barguments )"
            r"\b(?:dips?|dipped|drops?|dropped|goes|going|gone|went|falls?|fell|falling|becomes?|became|"
            r"turns?|turned|gets|got|ends? up|ended up|counts? as|counted as) (?:negative|(?:under|below) (?:zero|0))\b"
            r"|\bknown range\b",
            # what to do when every value is positive is the task's case, not whether one may not be
            r"\b(?:if|when)\b[^.?!]{0,40}\bonly (?:positive|non-?negative)\b",
            # a negative literal offered as an example of a non-integer ("floats such as `-1.5`")
            r"\b(?:non-?integers?|non-?integral|floats?|decimals?|fractions?|non-?numeric\w*|non-?whole)\b"
            r"[^.?!]{0,20}\b(?:such as|like|e\.g\.,?|for example,?)\W{0,3}[−-]\d+(?:\.\d+)?",
            # (how the function handles a negative index it is given is its input's sign)
            r"\bnegative (?:lookahead|lookbehind|zero|infinity)\b"
            r"|(?<!\bhandle )(?<!\bhandles )(?<!\bhandling )\bnegative (?:index|indices|indexing)\b",
            r"\bnegative (?:tests?|test cases?|cases? for (?:the )?tests?|examples?|paths?)\b",
            # what the tests or the docs show, not what the function does with it
            r"\b(?:tests?|test cases?|doctests?|(?:doctest |docstring )?examples?)\b (?:include|includ\w+|with|cover\w*|for|that (?:use|have))\b[^.?!]{0,25}\bnegative\b",
            r"\bnegative (?:outcome|answer|response)",
            # the case with no negatives at all is the task's ("return None if there are none")
            r"\b(?:no|without|zero) negative (?:numbers?|integers?|ints|values?|elements?|entries)\b",
            r"\bpositive and (?:the )?negative",
            r"\bnegative ['\"]",
            r"[\"']-\d+(?:\.\d+)?[\"']",
            # an example traced in prose ("`[-1, -5, 2]` → 1 − 5 + 2 = −4"): its numbers, not a question
            r"\[[^\]\n]{0,80}\]|(?:→|->)\s*[−-]\d+|(?<=[\d)\]])\s*[-+*/=−]\s*\(?[−-]\d+\)?",
            # what the draft does with an example's value ("that drops the -2")
            r"\b(?:drop|remov|keep|kept|skip|filter\w* out|exclud|discard|ignor)\w* (?:the |a |an )?[−-]\d+",
            r"\bsign (?:off|up|in)\b",
            r"\bodd (?:or|and|/) even",
            r"\bodd (?:number|count|length|amount) of\b|\bodd[- ]length\b",
            r"\b(?:only )?(?:the )?odd numbers (?:in|of|from) (?:the )?(?:list|input|sequence)",
            r"\b(?:remov|filter\w* out|drop|exclud|extract|find|count|sum)\w* (?:all |only )?(?:the )?odd numbers\b",
        ),
        questions=(
            r"\b(?:can|could|will|would|may|might|should|are|is|do|does)\b(?:(?!\b(?:results?|outputs?|answers?|sums?|differences?|returns?)\b)[^.?!]){0,40}\bbe (?:an? )?(?:non-?)?negative\b",
            # "can I assume non-negative integers?", "support positive numbers only?"
            r"\b(?:assum|expect)\w* (?:only )?(?:strictly )?(?:non-?negative|positive) (?:inputs?|numbers?|integers?|ints|values?|n)\b"
            r"|\b(?:support|accept|handle|allow|take)\w* (?:non-?negative|positive) (?:inputs?|numbers?|integers?|ints|values?) only\b",
            r"^(?!.*\b(?:tests?|test cases?|doctests?|examples?)\b[^.?!]{0,40}\bnegative\b)"
            # ("a list of non-negative ints" describes the input, whether it is so asks elsewhere;
            # "arrays with no negative numbers" is the task's case)
            r".*(?<!non-)(?<!non)(?<!\bno )(?<!\bwithout )\b(?:negative|non-?positive) (?:(?!results?|outputs?|returns?|sums?|differences?)\w+ )?"
            r"(?:inputs?|numbers?|integers?|ints|values?|arguments?|args?|n)\b",
            # (any argument: "where the step is less than 1"; not the result, nor a length)
            r"\b(?:if|when|where)(?: (?:the |an? |any )?(?!(?:results?|outputs?|answers?|sums?|differences?|returns?|products?|averages?|lengths?|sizes?|counts?|number of)\b)"
            r"\w+\b|\s{2,})[^.?!]{0,15}\b(?:is|are|happens to be) (?:negative|less than (?:0|zero|1|one)|below (?:zero|1|one)|not greater than (?:0|zero|1|one))\b",
            # whether the input is always positive ("can I assume n is non-negative?")
            # (not what to do "if the list contains only positive numbers": the task's case)
            _NOT_OF_THE_RESULT
            + r"(?!.*\b(?:if|when)\b[^.?!]{0,40}\bonly (?:positive|non-?negative)\b)"
            r".*\b(?:inputs?|lists?|arrays?|numbers?|integers?|ints|values?|arguments?|elements?|n|x|k)\b"
            r"[^.?!]{0,30}\b(?:always|only|guaranteed(?: to be)?|assumed?(?: to be)?)\b[^.?!]{0,20}"
            r"\b(?:positive|non-?negative)\b",
            r"\b(?:inputs?|arguments?|numbers?|integers?|values?|n|x|k)\b[^.?!]{0,15}\b(?:is|are) not (?:an? )?(?:positive|non-?negative)\b",
            # (a length greater than 0 is a non-empty input)
            _NOT_OF_THE_RESULT
            + r"(?!.*\b(?:lengths?|sizes?|counts?|number of)\b)\W*(?:is|are)\b(?:\s+\w+){0,6}\s+(?:always |all )?(?:an? )?"
            r"(?:positive|non-?negative|greater than (?:0|zero|1|one))"
            r"(?: (?:[\w-]+ )?(?:integers?|ints|numbers?|values?|floats?|decimals?))?\s*\?",
            r"\b(?:inputs?|lists?|arrays?|arguments?|data)\b[^.?!]{0,20}\b(?:contain|include|have|hold)\w*\b[^.?!]{0,15}\bnegative\b",
            # "can you confirm the sides are all positive?"
            _NOT_OF_THE_RESULT + r".*\b(?:is|are)\b(?: \w+){0,3}? all (?:positive|non-?negative)\b",
            # "should the function only accept positive integers?" asks whether negatives come
            r"\bonly (?:consider|accept|handle|take|work with|deal with|support|allow|process)\w*"
            r" (?:strictly )?(?:positive|non-?negative)\b",
            r"\bassume\b(?:(?!\b(?:results?|outputs?|answers?|sums?|differences?|returns?|products?)\b)"
            r"[^.?!]){0,40}\b(?:is|are|be|contains?|has|have)\b[^.?!]{0,20}\b(?:positive|non-?negative)\b",
        ),
    )
    exemplars = (
        "What should happen with a negative number?",
        "Should negative inputs raise, return None, or be treated as their absolute value?",
        "Is n always non-negative?",
        "How should it handle values below zero?",
        "What do you mean by safe with odd numbers?",
        "Do I need to guard against a minus sign?",
        "I'll assume the input is never negative unless you tell me otherwise.",
    )
    question = "What should happen with a negative number?"
    alternatives = (
        Alternative("raise", "Negative numbers are invalid: raise ValueError.", ("valueerror",)),
        Alternative("none", "For a negative number just return None.", ("return none",)),
        Alternative(
            "absolute", "Treat a negative number as its absolute value.", ("absolute value",)
        ),
    )

    def governs(self, args):
        return bool(args) and type(args[0]) is int and args[0] < 0

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
