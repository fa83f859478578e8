from capabench.conventions.base import Alternative, Family, Layer, Vocabulary, register
from capabench.conventions.named import OTHER_NAMED
from capabench.records import Mechanism


def camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest if part)


_NOT_ITS_NAME = rf"(?! (?:the |this |that |a |an |my |your |our |each )?{OTHER_NAMED}\b)"
_NOT_A_FILE = r"^(?!.*\b(?:files?|sav\w+|writ\w+|stor\w+|outputs?|logs?|logger\w*|variables?|branch\w*|folders?|directory)\b)"


@register
class Naming(Family):
    id = "naming"
    mechanism = Mechanism.HABITUAL
    layer = Layer.NAMING
    cues = ()  # habitual: the user never mentions it
    concept = "what the function must be called in the user's codebase (their naming convention)"
    vocabulary = Vocabulary(
        anchors=(
            r"\b(?:is )?the name (?:right|ok|okay|fine|correct)\b",
            r"\bwant (?:the func\w*|it|this) (?:called|named)\b",
            r"\b(?:refer to|import) it as\b",
            r"\bnaming",
            r"\bfunction(?:'s)? name",
            r"\bname (?:of|for) (?:the |this )?function",
            r"\bcamel",
            r"\bsnake[_ ]?case",
            r"\bidentifier",
            r"\brename",
            r"\bpascal ?case",
            r"\bkebab",
            r"\bw(?:h)?at (?:should|do|would|shall|will) (?:i|we|you) (?:call|name) (?:it|this|the func\w*|the def)\b",
            # "call it something else" names it; "call it differently" is how it is called
            r"\bname (?:it|this|the function|this function) (?:something|differently|after)\b",
            r"\bcall (?:it|this|the function|this function) (?:something|after)\b",
            r"\bkeep (?:the |its |this )?name",
            r"\b(?:should|will|would|must|is) (?:the function|it|this) (?:be )?(?:called|named)\b",
            r"\bname (?:as|from) (?:given|the signature|is)",
            r"\bthe name (?:you|from|as|in)\b",
            r"\bunder (?:what|which) name",
            r"\bname ?(?:/|or|and|,) ?(?:the |its |your |a )?signature",
        ),
        aspects=(
            r"\bentry[- ]?point",  # a name only beside one: "the entry point's name"
            r"\bsuffix",
            r"\bprefix",
            r"\bnamed\b",
            r"\bnames?\b",
            r"\bcalled\b",
            r"\bconvention",
            r"\bstyle guide",
            r"\bspell",
        ),
        subjects=(
            r"\bfunction",
            r"\b(?:fn|func)\b",  # (chat shorthand)
            r"\bdef\b",
            r"\bit\b",
            r"\bthis\b",
            r"\bcodebase",
            r"\brepo",
            r"\bproject",
            r"\bhelpers?\b",
            r"\bmodule",
            r"\bexport",
            r"\bapi\b",
            r"\bpublic",
        ),
        ignore=(
            # the name read as evidence of what the task means, not asked about ("as the function
            # name suggests", "since the function is named `add`, I'm taking...")
            r"\b(?:as|like) the (?:function|method)(?:'s)? name (?:suggests|implies|says|indicates|hints)"
            r"|\b(?:from|going by|given|judging by|based on|by) the (?:function|method)(?:'s)? name\b"
            r"|\b(?:since|because|as) the (?:function|method) is (?:called|named)\b"
            r"|\bthe (?:function |method )?name(?: `[^`]+`)? (?:suggests|implies|hints|indicates|points)\b",
            r"\bhelper\b[^.?!]{0,30}\b(?:called|named)\b|\btest (?:functions?|cases?|methods?) (?:be )?named\b|\bnaming inside the test",
            r"\brename\b(?! (?:the |this |your )?(?:function|def|method)\b)[^.?!]{0,50}\b(?:clearer|readab\w*|descriptive|cryptic|short|local)\b|\blocal (?:variable )?names?\b|\bprefix (?:sums?|arrays?|tree|trie|match\w*|code)\b",
            r"\bnaming (?:pattern|scheme|convention) for (?:the |each |a )?(?:files?|logs?|keys?|columns?|fields?|outputs?)\b",
            r"\b(?:re)?nam\w* (?:the |a |this |that |my |our )?(?:loop |local |inner |temp\w* |helper |intermediate )?variables?\b|\bvariables? names?\b",
            r"\brename (?:it|this|that|the variable|the loop \w+)\b.{0,40}\b(?:clearer|readab\w*|descriptive|cryptic|short)",
            r"\bname (?:the|this|a) (?:branch|commit|pr|pull request|ticket|test)\b",
            r"\b(?:line|message|log|output|result)s? (?:format )?(?:or )?(?:prefix|suffix)",
            r"\bprefix(?:ed)? (?:each|the|every) (?:line|message|log)",
            r"\bnamed (?:logger|values?|tuple|file|channel|handler)",
            r"\blogger\b[^.?!]{0,20}\bnames?\b",
            r"\b(?:variable|parameter|param|argument|arg|file|logger|key|field|column|loop|class|test|record|attribute|method|local)s? names?\b",
            r"\bname (?:the |that |this )?(?:variable|parameter|param|argument|arg|file|logger|key|field|column|loop|test|record)s?",
            r"\b(?:file|log|logger|record|key|column|field)s? (?:should be |is |be )?(?:called|named)",
            r"\bnamed (?:tuple|arguments?|params?|parameters?)",
            r"\bcalled (?:with|once|twice|over|per|by|from|at|again|concurrently|repeatedly|often|frequently|directly|recursively|inside|within|many|multiple|several|a lot|simultaneously|\w+ times|in (?:a |the )?(?:loop|parallel|threads?|production|tests?|hot path)|on (?:each|every|a|an|the|all|many|multiple|one|single))\b",
        ),
        questions=(
            # (not the name read as evidence: "as the function name suggests", "from the function
            # name, I'm assuming...")
            r"(?<!\bas the )(?<!\blike the )(?<!\bfrom the )(?<!\bby the )(?<!\bgiven the )(?<!\bon the )"
            r"\b(?:function|method)(?:'s)? name\b(?! (?:suggests|implies|says|indicates|hints|points))",
            r"\bname (?:of |for )?(?:the|this|my|your|that) (?:function|method)\b",
            # (what the function is called, not a branch, a test module, a temporary list)
            r"\bwhat (?:should|do|would|shall|must) (?:i|we|you) (?:call|name)\b" + _NOT_ITS_NAME,
            r"(?<!\bwhen )(?<!\bhow )(?<!\bonce )(?<!\bwhenever )(?<!\bwhen the )(?<!\bhow the )(?<!\bonce the )(?<!\bsince the )(?<!\bbecause the )(?<!\bas the )\b(?:function|method|it|fn|func) (?:be |is )?(?:called|named)\b(?! (?:once|with|for|per|on|by|from|in|at|twice|many|multiple|repeatedly|each|every|over|again))",
            r"(?<!file \()(?<!files \()(?<!logger \()(?<!logging \()\bwhich (?:function |method )?name\b(?!\s*/\s*(?:location|path|folder))(?! and (?:log )?level)",
            r"\b(?:correct|right|intended|expected|preferred) (?:function |method )?name\b",
            r"^(?!.*\b(?:branch|test|file|module|variable|var|temp|class|folder|directory|commit|column|key)\w*\b).*\bnaming (?:convention|scheme|style|pattern)s?\b",
            # the function's case, not the locals' ("snake_case for locals?")
            r"^(?!(?!.*\b(?:function|def|method|entry ?point)\b).*\b(?:locals?|local variables?|variables?|vars|keys?|columns?|fields?|attributes?)\b)"
            r".*\b(?:snake|camel|pascal)[_ -]?case\b",
            r"\bname (?:it|the function|this function) (?:differently|something else)\b",
            r"\bcall (?:it|the function|this function) something else\b",
            # "should the function have a particular name?", "if you call it with a different
            # name": the function's, not a file's or an output's
            _NOT_A_FILE
            + r".*(?:\b(?:function|method|def)\b|\bcall(?:ing)? it\b)[^.?!]{0,30}\b(?:have|has|get|need|use|take|go by|under|with|expects?) (?:a |an )?(?:particular|specific|certain|special|required|fixed|different|another|other) name\b",
            # "what do you want the decoder function to be called?"
            r"\b(?:function|method) to be (?:called|named)\b(?! (?:once|with|for|per|on|by|from|in|at|twice|many|multiple|repeatedly|each|every|over|again))",
            # "should the function be renamed?", "do you want me to rename the function?"
            r"\b(?:function|method) (?:be |is |gets? )?renamed\b",
            r"\brenam(?:e|ing) (?:the|this|your|that) (?:function|method)\b",
        ),
    )
    exemplars = (
        "What should I name the function?",
        "Is there a naming convention for functions in your codebase?",
        "Do your functions use a prefix or a special case style?",
        "Should I keep the name from the signature or follow your house style?",
        "snake_case or camelCase for the function name?",
        "Under what name will you import it?",
        "I'll keep the function name as given unless your codebase names things differently.",
    )
    question = "What should the function be named in your codebase?"
    alternatives = (
        Alternative(
            "acme_prefix",
            "Our functions are always prefixed with acme_, e.g. acme_parse_row.",
            ("acme_",),
        ),
        Alternative("camel_case", "We name functions in camelCase, e.g. parseRow.", ("camelcase",)),
        Alternative("impl_suffix", "Our functions end in _impl, e.g. parse_row_impl.", ("_impl",)),
    )

    def applies(self, shape):
        return "_" in shape.task.entry_point.strip("_")  # camelCase must differ from the plain name

    def public_name(self, alt, base):
        return {
            "acme_prefix": f"acme_{base}",
            "camel_case": camel(base),
            "impl_suffix": f"{base}_impl",
        }[alt]

    def wrap(self, alt, inner, ctx):
        raise AssertionError("naming renames the public function; it adds no layer")
