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
    "asc_unique": "return sorted(set({call}))",
    "desc": "return sorted({call}, reverse=True)",
    "unique_in_order": "return list(dict.fromkeys({call}))",
}


@register
class TidyList(Family):
    id = "tidy_list"
    mechanism = Mechanism.POLYSEMY
    layer = Layer.OUTPUT
    cues = ("give it back tidy", "and keep the result tidy")
    concept = 'what "tidy" means for the returned list: its order and what happens to duplicates'
    vocabulary = Vocabulary(
        anchors=(
            r"\b(?:smallest|lowest|largest|biggest|highest)[- ](?:to|first)\b",
            r"\blined up\b",
            r"\bidentical (?:entries|values|items|elements)",
            r"\bsquash\w* the doubles|\bdoubles\b",
            r"\btidy",
            r"\bsort(?:s|ed|ing)?\b(?!\s+of\b)",
            r"\bdedup",
            r"\bde-dup",
            r"duplicat",
            r"\bunique",
            r"\bascend",
            r"\bdescend",
            r"\b(?:increasing|decreasing|reverse|sorted|natural) order",
            r"\bdistinct\b",
            r"\brepeat(?:s|ed|ing)? (?:values|items|elements|entries|ones)",
            r"first (?:seen|appear|occurrence)",
            r"\b(?:keep|preserve|retain|maintain)\w* (?:the )?(?:original |input |insertion )?order",
            r"\bsmallest first|\blargest first|\bhighest first|\blowest first",
        ),
        aspects=(
            r"\bcop(?:y|ies)\b",
            r"\bmore than once\b",
            r"\boccurrences?\b",
            r"\bcollaps",
            r"\bincreasing|\bdecreasing",
            r"\border",
            r"\barrang",
            r"\brepeat",
            r"\bset\b",
            r"\bsequence\b",
            r"\bdoubles?\b",
            r"\bclean ?up",
        ),
        subjects=(
            r"\bsequence\b",
            r"\breturned\b",
            r"\bget back\b",
            r"\bshows? up\b",
            r"\blist",
            r"\bresult",
            r"\boutput",
            r"\belement",
            r"\bitems?\b",
            r"\bvalues",
            r"\bentries",
            r"\breturn",
            r"\bcome back",
            r"\bnumbers",
        ),
        ignore=(
            r"\b(?:ties?|tie-?break\w*)\b[^.?!]{0,80}",
            r"\b(?:input|inputs|given|incoming|argument|arguments|arrives?|passed in|operations|transactions|records)\b[^.?!]{0,40}\b(?:sorted|duplicat\w*|repeated|dupes?|order)\b",
            r"\bcontain\w* (?:any )?(?:duplicat\w*|repeat\w*|dupes?)\b|\b(?:rely|depend)\w* on (?:the )?(?:\w+ )?order\b|\bties?\b[^.?!]{0,40}\b(?:broken|break|first seen|alphabetical)\b|\bmostly sorted\b",
            r"\b(?:sees?|seen|iterat\w*|visit\w*|walk\w*|process\w*|goes through|go through|scan\w*|travers\w*)\b[^.?!]{0,30}\bin sorted order\b",
            r"\b(?:already|pre-?)sorted\b|\bsorted already\b|\bguaranteed (?:to be )?sorted\b",
            r"\bdoubles? as\b",
            r"\bsorts? first\b|\bsorting first\b",
            r"\bthe sort (?:implemented|itself|step|call|algorithm)|\b(?:implement|write)\w* (?:the |a )?sort\b|\bsort(?:ing)? algorithm",
            r"\b(?:call|use|using|calling|avoid\w*|lean on|rely on|relying on) (?:the )?(?:built-?in )?sort(?:ed)?\b",
            r"\b(?:on|make|return|use|take|work on) a copy\b|\bin place\b",
            r"\b(?:keep|make) (?:the |this |my )?(?:test |code |source )?(?:file|code|tests?|module|repo|imports) tidy",
            r"in order to",
            r"\btidy(?:ing)? (?:it up|up (?:the |this |my |a )?(?:\w+ )?(?:code|implementation|function|solution|helper|loop|logic|module|file|imports|tests?)\b|(?:the |this )(?:code|implementation|function|solution)\b)",
            r"\b(?:keys|imports) (?:be |are |get )?sorted",
            r"\bsort(?:ed|ing)? (?:the )?(?:keys|imports)",
            r"\bsort_keys",
            r"\bin the same order (?:as|they)",
            r"order of (?:the )?(?:arguments|parameters|params|args|calls|operations)",
            r"\b(?:argument|parameter|param|call|execution|log|evaluation) order",
        ),
        questions=(
            # (a call in code, `sorted(arr)`, is not the word)
            r"\b(?:returned|output|resulting|result) list\b[^.?!]{0,40}\b(?:sorted|sort|order|ordered|ascending|descending|duplicates?|unique|distinct)\b(?!\()",
            # (not the order of a number's digits: "in the resulting number"; nor "the sorted
            # result" named in a question about something else: "what should be logged?")
            r"(?!(?<=\bthe )(?:sorted|ordered|deduplicated) (?:result|output|list)\b)"
            r"\b(?:sorted|sort|sorting|ordered|order|ordering|ascending|descending|duplicates?|unique|distinct)\b(?!\()[^.?!]{0,40}\b(?:returned|output|resulting|result)(?: list)?\b"
            r"(?! (?:numbers?|integers?|ints?|strings?|values?|floats?|sums?|counts?|texts?)\b)",
            r"\bascending or descending\b",
            r"\b(?:should|must|do you want|would you like)\b[^.?!]{0,30}\breturn\w*\b[^.?!]{0,40}\bin (?:the )?(?:same|original|sorted|ascending|descending|reversed?) order\b",
            r"\b(?:output|result|returned (?:list|value|array)|return value)\b[^.?!]{0,30}\b(?:contain|include|have|keep)\w*\b[^.?!]{0,25}\b(?:unique|distinct|duplicates?|repeated)\b",
            r"\b(?:remove|drop|keep|dedupe|deduplicate)\w* (?:the )?duplicates\b",
            r"\bshould (?:the |it |they )?(?:results?|output|list|it|they)\b[^.?!]{0,10}\bbe (?:sorted|ordered|unique|deduplicated)\b",
            # what to do with duplicates decides whether they come back ("how should the function
            # handle duplicate elements?", "what if the input list contains duplicates?"); whether
            # there are any ("can the list contain duplicates?") does not ask it
            r"\b(?:how (?:should|does|do|will|would|can|to)\b[^.?!]{0,20}\bhandle|what (?:should|does|will|would)"
            r"\b[^.?!]{0,20}\b(?:happen|do)\b|what(?: is| are|'s) the expected (?:behaviou?r|output|result)"
            r"|what (?:happens|if)|(?:consider|ignor|account\w* for|deal\w* with)\w*)\b[^.?!]{0,50}\b"
            # (not a tie: "duplicate maximum elements", "duplicates with the same frequency")
            r"(?:duplicat\w*|repeated (?:elements?|values?|numbers?|items?)"
            r"|(?<!\bno )(?<!\bnot any )(?:multiple |several )?identical (?:elements?|values?|numbers?|items?|integers?)"
            r"|(?:elements?|values?|numbers?|items?|integers?) (?:that )?(?:appear|occur)\w* "
            r"(?:more than once|multiple times|twice))\b"
            r"(?! (?:max\w*|min\w*|largest|smallest|highest|lowest)\b)(?! (?:\w+ )?with the same\b)",
            r"\breturn\w* (?:only )?(?:the )?(?:unique|distinct) (?!(?:count|number|value|result|answer)s?\b)\w+",
            # keeping the elements' order is the returned list's order ("maintain the order of the
            # elements in the list?"); a string's characters are another family's
            r"\b(?:maintain|preserv|keep|retain)\w* (?:the )?(?:original |relative |input |same )?order of"
            r" (?:the )?(?:elements?|items?|values?|numbers?|integers?)\b"
            r"|\border of (?:the )?(?:elements?|items?|values?|numbers?|integers?)\b[^.?!]{0,20}"
            r"\b(?:be )?(?:maintained|preserved|kept|retained)\b",
        ),
    )
    exemplars = (
        "Should the returned list be sorted, and with or without duplicates?",
        "What does tidy mean for the result list?",
        "Do you want repeated values dropped from the output?",
        "In which order should the elements come back?",
        "Should I keep the original order or sort it?",
        "Ascending or descending order for the list?",
        "Is it fine if the result contains duplicates?",
        "I'll sort the result and remove duplicates unless you say otherwise.",
    )
    question = "When you say tidy, do you want the list sorted (which way?) and duplicates removed?"
    alternatives = (
        Alternative(
            "asc_unique",
            "By tidy I mean sorted ascending with duplicates removed.",
            ("ascending", "duplicates removed"),
        ),
        Alternative(
            "desc", "By tidy I mean sorted in descending order, duplicates kept.", ("descending",)
        ),
        Alternative(
            "unique_in_order",
            "By tidy I mean duplicates dropped, keeping the order they first appear in.",
            ("first appear",),
        ),
    )

    def describe_result(self, value, text):
        if not isinstance(value, list):
            return text
        if not value:
            return "an empty list"
        try:
            distinct = [repr(v) for v in sorted(set(value))]
        except TypeError:  # values without an order or a hash: as they first appear
            distinct = list(dict.fromkeys(repr(v) for v in value))
        shown = ", ".join(distinct[:-1]) + (" and " if len(distinct) > 1 else "") + distinct[-1]
        return f"a tidy list made of {shown}"

    def applies(self, shape):
        if not shape.all_outputs(list):
            return False
        transforms = {
            "asc_unique": lambda out: sorted(set(out)),
            "desc": lambda out: sorted(out, reverse=True),
            "unique_in_order": lambda out: list(dict.fromkeys(out)),
        }
        try:
            return tells_apart(shape.outputs, transforms)
        except TypeError:  # unhashable or unorderable elements
            return False

    def wrap(self, alt, inner, ctx):
        return same_signature("_tidy", inner, _BODIES[alt])
