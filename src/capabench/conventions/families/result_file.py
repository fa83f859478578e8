from capabench.conventions.base import Alternative, Check, Family, Layer, register, same_signature
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
    intents = (
        r"\bfile",
        r"\bsave",
        r"\bwrite",
        r"\bdisk",
        r"\bstore",
        r"\bpersist",
        r"where (do|will|would|can) you (look|find|check)",
        r"\bwhere\b.*\bresult",
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
