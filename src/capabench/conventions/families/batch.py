from capabench.conventions.base import Alternative, Family, Fn, Layer, Layered, Vocabulary, register
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
    concept = "how the function is called over many records: one call per item, or one call with a whole collection (in what container), and what comes back"
    vocabulary = Vocabulary(
        anchors=(
            r"\b(?:each|every) (?:element|input|item|record|row) (?:separately|individually|alone|on its own)",
            r"\b(?:all|them) together\b",
            r"\b(?:whole|entire) (?:pile|bunch|lot|heap) of\b",
            r"\bloop over (?:it|them) (?:yourself|urself|on your side)",
            r"\bper (?:element|input|value|call)\b",
            r"\bin one go\b",
            r"\brecords\b",
            r"\b(?:each|per|every|one|single|a|my|your|the) record\b",
            r"\bbatch",
            r"\bbulk\b",
            r"\ball at once\b",
            r"\bone (?:call )?(?:per|at a time|by one)",
            r"\bat a time\b",
            r"\bvectori[sz]",
            r"\bmap (?:it )?over",
            r"\b(?:many|multiple|several|lots of) (?:inputs|items|rows|records|calls|values|entries|cases|sets)",
            r"\b(?:whole|entire) (?:collection|dataset|batch)",
            r"\bdataset\b",
            r"\brows\b",
            r"\b(?:list|collection|iterable|sequence|dict|mapping) of (?:inputs|items|argument|arguments|args|calls|tuples|dicts|records|rows|entries)",
            r"\bover all (?:of )?(?:my|your|the)\b",
            r"\blist in\b.{0,12}\blist out\b",
            r"\b(?:record|item|row|one|entry) by (?:record|item|row|one|entry)\b",
            r"\brecord (?:id|name|key)s?\b",
            r"\bkeyed by record",
            r"\bin one go\b",
            r"\bper item\b",
            r"\bper row\b",
            r"\bper entry\b",
        ),
        aspects=(
            r"\bcollection",
            r"\biterable",
            r"\bloop",
            r"\biterat",
            r"\ball of them",
            r"\bmany\b",
            r"\bmultiple",
            r"\bsingle (?:input|item|value|call|one)",
            r"\bone (?:input|item|value)\b",
            r"\bonce\b",
            r"\beach (?:one|item|input|entry)",
        ),
        subjects=(
            r"\bcall",
            r"\binvok",
            r"\brun\b",
            r"\bprocess",
            r"\bhandle",
            r"\bfeed",
            r"\bpass",
            r"\bapply",
            r"\bover\b",
            r"\btime\b",
            r"\bat once",
        ),
        ignore=(
            r"\bloop variables?\b|\bloop run\b|\b(?:newton|while|for|inner|outer|main) loop\b",
            # a matrix's rows are its shape, not records
            r"\brows?\b[^.?!]{0,25}\b(?:matrix|matrices|grid|triangle|2d (?:list|array))\b|\b(?:matrix|matrices|grid|triangle)\b[^.?!]{0,40}\brows?\b",
            r"\b(?:how many|number of|fixed (?:number|count) of) (?:iterations|times|passes|swaps|steps|loops)\b|\biterations?\b|\btimes per (?:second|minute|call|request)\b|\bhot loop\b|\bvectori[sz]e this\b",
            r"\biterat\w* over (?:the |its |a |an )?(?:\w+'s )?(?:dict|keys|items|list|string|characters|chars|elements|digits|values|loop|range|pairs)\b",
            r"\b(?:a |one |single )?loop is (?:clearer|simpler|easier|faster|more readable)\b|\b(?:loop|comprehension|reduce|recursion) (?:or|vs\.?|versus) (?:a )?(?:loop|comprehension|reduce|recursion|regex)\b",
            r"\b(?:lines?|logs?|entr(?:y|ies)|messages?|files?) per (?:call|run|item|record)\b|\bone (?:[\w.]+ )?(?:line|log line|file|message) per\b",
            r"\b(?:a|any|no) record of\b|\bon record\b|\bfor the record\b",
            r"\b(?:arguments|args|parameters|params)\b[^.?!]{0,40}\bone by one\b",
            r"\bthreads?\b.{0,30}\bat once|\bat once\b.{0,30}\bthreads?\b|\bcalled from\b",
            r"\b(?:multiple|several|many) threads|\bconcurren\w*|\bthreads?\b",
            r"\bbatch\w* (?:them|these|those|it|the \w+) (?:into|together)\b|\bsquash commit",
            r"\brecord(?:ed)? (?:each|every|it|them|an?|to)\b|\brecorded in\b",
            r"\blog records?\b",
            r"\bcall (?:it|this|the function)(?: something)?\b(?= ?(?:\?|$|in\b|by\b))",
        ),
        questions=(
            r"\b(?:one|a single|each) (?:record|item|input|value|row|case)\b[^.?!]{0,25}\b(?:at a time|per call|or (?:many|multiple|all|a (?:list|batch)))",
            r"\bcalled (?:once )?(?:per|for each) (?:record|item|input|row)\b",
            r"\b(?:all|many|multiple|several) (?:records|inputs|items|rows)\b[^.?!]{0,20}\b(?:at once|in one call|together|in a batch)\b",
            r"\bin (?:a )?batch(?:es)?\b",
            # what the user's records are: "what do your "records" look like?"
            r"\bwhat (?:do|does|will|would) (?:your|the|these|those) [\"“]?records?[\"”]?\b[^.?!]{0,20}\blook like\b"
            r"|\bwhat (?:is|are|counts as) (?:a |your |one )[\"“]?records?[\"”]?(?:\?|$| here| for you)",
            r"\bbatch(?:ed)? (?:input|call|mode|processing)\b",
        ),
    )
    exemplars = (
        "Will you call it once per record, or hand it all your records at once?",
        "What container do your records come in when you run it over them?",
        "Should the function accept a list of inputs and return a list of results?",
        "Is it called one item at a time or in bulk?",
        "When you run it over your records, what should come back: a list, or a dict keyed by record?",
        "Do the records arrive as tuples, dicts or something else?",
        "I'll make it take a list of records and return a list of results, unless you call it differently.",
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
