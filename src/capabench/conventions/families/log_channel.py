from capabench.conventions.base import Alternative, Check, Family, Layer, register, same_signature
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
    intents = (
        r"\blog",
        r"\bstderr",
        r"\bstdout",
        r"\bprint",
        r"\bconsole",
        r"\bterminal",
        r"where (do|will|would|can) you (see|watch|look)",
        r"\bvisible",
        r"\bsee (it|the result)",
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
