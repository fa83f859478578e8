from capabench.conventions.base import (
    Alternative,
    Family,
    Layer,
    Vocabulary,
    register,
    same_signature,
    tells_apart,
)
from capabench.records import Mechanism

_BODIES = {
    "lower": "return {call}.lower()",
    "upper": "return {call}.upper()",
    "title": "return {call}.title()",
}


@register
class CleanText(Family):
    id = "clean_text"
    mechanism = Mechanism.POLYSEMY
    layer = Layer.OUTPUT
    cues = ("give me clean text back", "the text should come back clean")
    concept = 'what "clean" text means for the returned string: its letter case'
    vocabulary = Vocabulary(
        anchors=(
            r"\b(?:upper|lower)\b\s*(?:or|/)\s*(?:upper|lower)\b",
            r"\b(?:big|small|capital|lower) letters\b",
            r"\bclean text",
            r"\bclean string",
            r"text (?:should )?(?:come|comes) back clean",
            r"\b(?:upper|lower|title|sentence|mixed)[ -]?case",
            r"\bcapitali[sz]",
            r"\ball caps",
            r"\bcaps lock",
            r"\bcapital letters",
            r"\bletter ?case",
            r"\bcasing\b",
            r"\.(?:upper|lower|title|capitalize|casefold)\(",
            r"\b(?:upper|lower)ed\b",
        ),
        aspects=(
            r"\bclean",
            r"\bcase\b",
            r"\bcaps\b",
            r"\bcapital",
            r"\bnormali[sz]",
            r"\bstrip",
            r"\btrim",
            r"\bwhitespace",
            r"\bpunctuation",
            r"\bletters?\b",
            r"\btitle\b",
        ),
        subjects=(
            r"\btext",
            r"\bstring",
            r"\bstr\b",
            r"\bwords?\b",
            r"\boutput",
            r"\bresult",
            r"\bletters",
            r"\breturn",
            r"\bcome back",
            r"\bmean",
            r"\bcharacters",
        ),
        ignore=(
            r"\b(?:upper|lower)[ -]?case (?:vowels|consonants)\b",
            r"\b(?:comparison|comparing|compare|matching)\b[^.?!]{0,60}(?:\.(?:lower|upper|casefold)\(|\b(?:lower|upper)[- ]?case\b|\bcasefold)",
            r"\b(?:include|includes|contain\w*|count\w*|skip\w*)\b[^.?!]{0,30}\b(?:letters|vowels|characters|punctuation|digits)\b",
            r"\b(?:empty|null|zero|none|base|edge|corner|single|degenerate)[- ](?:\w+[- ])?case\b",
            r"\b(?:treat|compar\w*|match\w*|ignor\w*)\b[^.?!]{0,40}\b(?:upper|lower)[- ]?(?:case)?\b[^.?!]{0,40}\b(?:same|equal|equivalent|compar\w*|match\w*|insensitiv\w*)\b",
            r"(?:\.(?:lower|upper|casefold)\(\)?|\b(?:lower|upper)[- ]?case\b)[^.?!]{0,60}\b(?:comparison|comparing|compare|matching|lookup|internal)\b",
            r"\bcasing (?:on|of|for) (?:the )?(?:function|method|variable|class|file)?\s*names?\b|\bnames?\b[^.?!]{0,20}\bcasing\b",
            r"\bcase[- ]?(?:in)?sensitiv\w*",
            r"\b(?:upper|lower)[ -]?case (?:letters|characters|chars|vowels)\b(?=[^.?!]{0,30}\b(?:count|contribute|ignored|skip|match|appear in|in the input|input))",
            r"\b(?:edge|corner|test|use|base|worst|best|general|special|this|that|each|every|either|any|in|no|upper and lower bounds?) cases?\b",
            r"\bclean (?:up )?(?:the )?(?:code|implementation|solution|version|approach|design|api|interface)",
            r"\bcode clean",
            r"\bclean(?:ly)? (?:handle|fail|exit|error)",
        ),
        questions=(
            r"\b(?:upper|lower|title|sentence)[- ]?case\b(?![- ]?(?:insensitiv|sensitiv))[^.?!]{0,40}\b(?:output|result|return|returned|string|text|words)\b",
            r"\b(?:output|result|returned|return|string|text)\b[^.?!]{0,40}\b(?:upper|lower|title)[- ]?cased?\b(?![- ]?(?:insensitiv|sensitiv))",
            r"^(?!.*\b(?:compar\w*|match\w*|ignor\w*|sensitiv\w*|insensitiv\w*|yes|no|true|false|bool\w*|hyphen\w*|spelled|numbers?|ordinal)\b).*\bcapitali[sz](?:e|ed|ation)\b",
            r"\b(?:letter )?case of (?:the )?(?:output|result|returned|string|text)\b",
        ),
    )
    exemplars = (
        "What letter case should the returned text be in?",
        "What does clean text mean for you: upper case, lower case, title case?",
        "Should I capitalize the words in the result?",
        "Do you want the string normalized to lowercase?",
        "By clean, do you mean all caps?",
        "Should the output keep the original casing?",
        "I'll lowercase the text unless clean means something else to you.",
    )
    question = "What does clean text mean for you: which letter case should the result be in?"
    alternatives = (
        Alternative("upper", "Clean text means all UPPERCASE.", ("uppercase",)),
        Alternative(
            "title", "Clean text means Title Case, every word capitalized.", ("title case",)
        ),
    )

    def describe_result(self, value, text):
        return f"the text {value!r}, given back clean" if isinstance(value, str) else text

    def applies(self, shape):
        transforms = {"upper": str.upper, "title": str.title}
        return (
            shape.all_outputs(str)
            and not shape.states(r"\b(?:upper|lower|capital|case)")
            and tells_apart(shape.outputs, transforms)
        )

    def wrap(self, alt, inner, ctx):
        return same_signature("_clean", inner, _BODIES[alt])
