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

_EMIT = {
    "logger": 'logging.getLogger("acme").info("%s -> %r", "{name}", result)',
    "stderr": 'print(f"[acme] {name} -> {{result!r}}", file=sys.stderr)',
    "stdout": 'print(f"acme: {name} -> {{result!r}}")',
}
_IMPORTS = {"logger": ("import logging",), "stderr": ("import sys",), "stdout": ()}
_CHECKS = {
    "logger": 'assert any(n == "acme" and lvl == "INFO" and repr(expected) in msg for n, lvl, msg in candidate.last_logs), '
    'f"no INFO record with the result on the acme logger (records: {candidate.last_logs!r})"',
    "stderr": 'assert any(line.startswith("[acme]") and repr(expected) in line for line in candidate.last_stderr.splitlines()), '
    'f"no [acme] line with the result on stderr (stderr: {candidate.last_stderr[:300]!r})"',
    "stdout": 'assert any(line.startswith("acme:") and repr(expected) in line for line in candidate.last_stdout.splitlines()), '
    'f"no acme: line with the result on stdout (stdout: {candidate.last_stdout[:300]!r})"',
}


@register
class LogChannel(Family):
    id = "log_channel"
    mechanism = Mechanism.SYSTEM_BOUNDARY
    layer = Layer.LOGGING
    cues = ("make sure I see it in my logs", "I need to see it in my logs")
    concept = "where and how each result must be logged or printed so that the user sees it"
    vocabulary = Vocabulary(
        anchors=(
            r"\blog(?:s|ging|ged|ger)?\b",
            r"\bstderr",
            r"\bstdout",
            r"\bstandard (?:error|output|out|err)",
            r"\bconsole",
            r"\bterminal",
            r"\bprint(?:s|ed|ing)?\b",
            r"\bsyslog",
            r"\bjournal",
            r"\b(?:see|watch|monitor|tail) (?:it|the result|the output|them|each result|results)",
            r"\bemit",
            r"\bdebug (?:output|line)",
            r"\boutput stream",
            r"\binfo level|\bat info|\blog level",
        ),
        aspects=(
            r"\bvisible",
            r"\bsee\b",
            r"\bshow",
            r"\bwatch",
            r"\bmonitor",
            r"\btrack",
            r"\bdisplay",
            r"\bnotice",
            r"\btrace",
        ),
        subjects=(
            r"\bresult",
            r"\boutput",
            r"\bwhere",
            r"\bline\b",
            r"\beach (?:call|run)",
            r"\bwhat happened",
        ),
        ignore=(
            r"\bdebug traces?\b|\btraces? here\b",
            r"\bdocstring\b[^.?!]{0,40}\bprint\w*|\bprint\w*\b[^.?!]{0,40}\bdocstring\b|\bdoctest\b",
            r"\b(?:test suite|pytest|conftest|tests?|test module|root logger|scratch session|debug traces?|log-cli)\b[^.?!]{0,60}\b(?:log\w*|print\w*)\b|\b(?:log\w*|print\w*)\b[^.?!]{0,60}\b(?:test suite|pytest|conftest|in (?:the |my )?tests?|test module|doctest)\b",
            r"\bprint\s+\w+\s+without\b|\bprint statement\b",
            r"\blog(?:ged|ging)? ?(?:in|into|on|out)\b|\blogin\b",
            r"\bpretty[- ]?print",
            r"\b(?:log|logarithm)\(",
            r"\blog[ -]?(?:n|2|10|base|scale)\b",
            r"\blogarithm",
            r"\bprint(?:able|ing)? (?:characters|chars)",
            r"\b(?:let me|i'll|i will|to|i can|i|we can|you can) see\b",
            r"\bsee (?:above|below|the code|my)\b",
            r"\bblueprint",
            r"\bfootprint",
        ),
        questions=(
            r"^(?!.*\b(?:tests?|pytest|doctests?|docstrings?|ci|coverage|debug\w*|progress|warnings?|errors?|math|floating|logarithm\w*)\b).*\b(?:print|log)(?:ed|ged|s)?\b[^.?!]{0,30}\b(?:results?|outputs?|each result|answers?)\b",
            r"\b(?:results?|outputs?)\b[^.?!]{0,30}\b(?:printed|logged|shown on|written to) (?:the )?(?:console|screen|stdout|stderr|terminal|log)\b",
            r"\b(?:stdout|stderr|logger|logging module|standard output|standard error)\b",
            r"\bprint (?:it|them) or return\b|\breturn (?:it|them) or print\b",
        ),
    )
    exemplars = (
        "Where do you watch your logs, and what should a log line look like?",
        "Should every result be printed to stderr or stdout?",
        "Which logger should it write to, and at what level?",
        "How will you see the result in your logs?",
        "Do you want a log message for each call?",
        "Should it print anything to the console?",
        "I'll log each result with the logging module at INFO unless you watch somewhere else.",
    )
    question = "Where exactly do you watch your logs, and what should a log line look like?"
    alternatives = (
        Alternative(
            "logger",
            "I watch the 'acme' logger: log every result at INFO, like `name -> result`.",
            ("getlogger", "'acme' logger"),
        ),
        Alternative(
            "stderr",
            "I watch stderr: print a line `[acme] name -> result` there for every result.",
            ("stderr", "[acme]"),
        ),
        Alternative(
            "stdout",
            "I watch stdout: print a line `acme: name -> result` for every result.",
            ("stdout", "acme:"),
        ),
    )

    def wrap(self, alt, inner, ctx):
        side = _EMIT[alt].format(name=ctx.public_name).replace("{", "{{").replace("}", "}}")
        body = "result = {call}\n" + side + "\nreturn result"
        return same_signature("_logged", inner, body, _IMPORTS[alt])

    def checks(self, alt, ctx):
        return [Check(_CHECKS[alt])]
