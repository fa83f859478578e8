from capabench.conventions.base import (
    Alternative,
    Check,
    Family,
    Layer,
    Vocabulary,
    register,
    same_signature,
)
from capabench.records import Mechanism

_WRITE = {
    "json_file": 'with open("acme_result.json", "w") as out:\n    json.dump(result, out)',
    "log_file": 'with open("acme.log", "a") as out:\n    out.write(f"{name} -> {{result!r}}\\n")',
}
_CHECKS = {
    "json_file": 'assert json.loads(candidate.last_files.get("acme_result.json", "null")) == json.loads(json.dumps(expected)), '
    'f"acme_result.json does not hold the result (files: {sorted(candidate.last_files)})"',
    "log_file": 'assert repr(expected) in (candidate.last_files.get("acme.log", "").splitlines() or [""])[-1], '
    'f"the last line of acme.log does not show the result (files: {sorted(candidate.last_files)})"',
}


@register
class ResultFile(Family):
    id = "result_file"
    mechanism = Mechanism.SYSTEM_BOUNDARY
    layer = Layer.LOGGING
    cues = ("I'll check the result where I always look", "leave the result where I can find it")
    concept = (
        "where the result must be left (saved somewhere) for the user to find it, and in what form"
    )
    vocabulary = Vocabulary(
        anchors=(
            r"\bwhere(?:\'s| is)? the (?:spot|place|location)\b",
            r"\b(?:spot|place) (?:you|i) (?:always |usually |normally )?(?:check|look)",
            r"\bbe left (?:for|somewhere|in|at|on)\b",
            r"\bstorage\b",
            r"\bdeposit",
            r"\bsubsequent retrieval|\bretrieve it",
            r"\bfiles?\b",
            r"\bsav(?:e|ed|ing)\b",
            r"\bdisk\b",
            r"\bpersist",
            r"\bwhere (?:i|you) (?:always |usually |normally )?(?:look|check|find)",
            r"\bwhere (?:do|will|would|can|should|does) (?:you|i|it|they)\b.{0,25}\b(?:look|find|check|pick|leave|go|end up|land|put)",
            r"\bleave (?:it|the result|the output|results) (?:in|at|on|under|somewhere|where|for)\b",
            r"\bwhere (?:i|you) can find",
            r"\bwhere (?:to|should i|do i|can i|will i) (?:leave|put|save|store|write|drop|place)\b",
            r"\bpick (?:it|them|the result|the output|results) up\b",
            r"\bworking dir",
            r"\bcwd\b",
            r"\bfolder",
            r"\bdirectory",
            r"\b\w+\.(?:json|txt|log|csv|out)\b",
            r"\bdump (?:it|the result|to)",
            r"\bon disk",
            r"\boutput (?:path|location|destination)",
        ),
        aspects=(
            r"\bwrit(?:e|es|ten|ing)\b",
            r"\bstor(?:e|ed|ing)\b",
            r"\bput\b",
            r"\bkeep\b",
            r"\bpath\b",
            r"\bdrop\b",
            r"\bexport",
            r"\blocation",
            r"\bsomewhere",
        ),
        subjects=(
            r"\bresult",
            r"\boutput",
            r"\bsomewhere",
            r"\bwhere",
            r"\bdisk",
            r"\blocation",
        ),
        ignore=(
            r"\bparse (?:a |the )?files?\b",
            r"\b(?:fixture|test|loader|config)\w* (?:file|loader)\b",
            r"\bsav(?:e|ing)\b[^.?!]{0,30}\bin (?:a |an |the )?(?:list|dict|variable|set|cache|array|memo)\b",
            r"\bleave (?:it|them|the \w+) (?:in|as) (?:the |whatever |its |their |original |same |input )*(?:order|shape|form|state|case|is)\b",
            r"\bfrom (?:a |the |some )?files?\b",
            r"\btests?\b.{0,40}\bfiles?\b|\bfiles?\b.{0,20}\btests?\b",
            r"\bsave (?:the |an |some )?(?:allocation|memory|time|space|copy|work|effort|a pass|cycles)",
            r"\b(?:pytest|unittest|doctest|test|spec) files?\b",
            r"\bsomewhere (?:around|near|between)\b",
            r"\b(?:over|across|in|of|from) (?:the|this|that|each|every|whole) file\b",
            r"\b(?:existing|own|code|helper|utils?) files?\b",
            r"\bfile of (?:helpers|utilities|functions)",
            r"\b(?:read|load|loaded|come|comes|coming|straight|parsed|fed)\b.{0,30}\bfiles?\b",
            r"\b(?:separate|new|same|this|source|test|python|module|config|requirements|setup)\s+files?\b",
            r"\b\w+\.py\b",
            r"\bfile (?:name|structure) of the (?:module|code)",
            r"\bwrite (?:the |this |a |it as a )?(?:function|code|tests?|docstring|implementation|helper|version)",
            r"\bsave (?:time|memory|you)",
            r"\bkeep (?:it|things|the code) (?:simple|short|clean|readable)",
            r"\bstore (?:intermediate|temporary|them in a)",
        ),
        questions=(
            r"\b(?:save|write|store|dump|export|persist)\w*\b[^.?!]{0,30}\b(?:results?|outputs?|it|them)\b[^.?!]{0,30}\b(?:to|in|into|as) (?:a |the )?(?:\w+ )?(?:file|disk)\b",
            r"\b(?:results?|outputs?)\b[^.?!]{0,30}\b(?:saved|written|stored|dumped|exported) (?:to|in|into) (?:a |the )?(?:\w+ )?file\b",
            r"\b(?:output|results?) file\b",
            # "Where should the result go?", "delivered somewhere other than the return value"
            r"\bwhere (?:should|do|does|will|would|can|must|shall) (?:the |its |my |your |this )?"
            r"(?:results?|outputs?|answers?) (?:go|end up|land|live|be (?:sent|delivered|put|written|stored|saved|left|kept))\b",
            r"\b(?:deliver\w*|sent|send|put|written|write|go|goes|land) (?:it |them |the results? |the outputs? )?"
            r"(?:somewhere|anywhere|elsewhere) (?:other than|else than|besides|beyond|apart from|in addition to|as well as) "
            r"(?:the |its |a |just )?return",
            # a file offered as where what comes back goes: "a dict, a string, a file...?"
            r"^(?!.*\b(?:log\w*|inputs?|records?|reads?|takes?|accepts?|rows|lines?|modules?|names?)\b)"
            r"(?=.*\b(?:return\w*|deliver\w*|results?|outputs?|give\w* back|send\w* back|something else|different)\b)"
            r".*(?:,|\bor\b|\()\s*(?:written to |saved to |write (?:it )?to |save (?:it )?to )?(?:a |the )?(?:particular |specific |separate )?file\b",
        ),
    )
    exemplars = (
        "Where do you look for the result: should the function save it somewhere?",
        "Should I write the result to a file, and which one?",
        "Do you want the output persisted to disk?",
        "Where should the result end up so you can find it?",
        "What file name and format should the saved result have?",
        "Should it store the result in the working directory?",
        "I'll just return the value without writing any files, unless you expect it somewhere.",
    )
    question = (
        "Where do you look for the result: should the function save it somewhere, and in what form?"
    )
    alternatives = (
        Alternative(
            "json_file",
            "I look in acme_result.json in the working directory: write each result there as JSON.",
            ("acme_result.json",),
        ),
        Alternative(
            "log_file",
            "I look in acme.log in the working directory: append a line `name -> result` for each result.",
            ("acme.log",),
        ),
    )

    def applies(self, shape):
        return shape.json_outputs()

    def wrap(self, alt, inner, ctx):
        side = _WRITE[alt].format(name=ctx.public_name).replace("{", "{{").replace("}", "}}")
        body = "result = {call}\n" + side + "\nreturn result"
        return same_signature("_saved", inner, body, ("import json",) if alt == "json_file" else ())

    def checks(self, alt, ctx):
        return [Check(_CHECKS[alt], ("import json",))]
