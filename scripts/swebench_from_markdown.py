"""SWE-bench records from SWT-bench's per-instance Markdown copy (mir/fiddle-test-cov,
evals/bench/test/<instance_id>.md) as SWE-bench JSONL: instance_id, repo, version,
base_commit, environment_setup_commit, problem_statement, hints_text, patch, test_patch,
FAIL_TO_PASS, PASS_TO_PASS (JSON text, as SWE-bench keeps them).

    python scripts/swebench_from_markdown.py OUT.jsonl FILE.md...

The copy fences each patch with a blank first line (dropped here) and, in two records,
appends a "---\\n\\nHint: ..." paragraph to the issue that SWE-bench's issue doesn't have
(dropped, and said on stderr)."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

FIELD = re.compile(r"^\*\*(.+?)\*\*: (.*)$", re.M)
SECTION = re.compile(r"^## (.+)$", re.M)
FENCE = re.compile(r"^```diff\n(.*?)^```$", re.M | re.S)


def record(text: str, name: str) -> dict:
    fields = dict(FIELD.findall(text))
    cuts = list(SECTION.finditer(text))
    sections = {
        m.group(1): text[m.end() : (cuts[i + 1].start() if i + 1 < len(cuts) else len(text))]
        for i, m in enumerate(cuts)
    }
    issue = sections["Problem Statement"].strip("\n")
    hint = re.search(r"\n+---\n+Hint: .*\Z", issue, re.S)
    if hint:
        print(f"{name}: dropped an appended hint paragraph", file=sys.stderr)
        issue = issue[: hint.start()]

    def diff(section: str) -> str:
        body = FENCE.search(sections.get(section, ""))
        return body.group(1).strip("\n") + "\n" if body else ""

    tests = sections["Test Information"]
    f2p = re.search(r"FAIL→PASS\*\*: (.*)$", tests, re.M).group(1)
    p2p = re.search(r"PASS→PASS\*\*: (.*)$", tests, re.M).group(1)
    return {
        "instance_id": text.splitlines()[0].removeprefix("# ").strip(),
        "repo": fields["Repository"].strip(),
        "version": fields["Version"].strip(),
        "created_at": fields.get("Created", "").strip(),
        "base_commit": fields["Base Commit"].strip(),
        "environment_setup_commit": fields["Environment Setup Commit"].strip(),
        "problem_statement": issue + "\n",
        "hints_text": sections.get("Hints", "").strip("\n"),
        "patch": diff("Patch"),
        "test_patch": diff("Test Patch"),
        "FAIL_TO_PASS": json.dumps(json.loads(f2p)),
        "PASS_TO_PASS": json.dumps(json.loads(p2p)),
    }


def main(out: str, *files: str) -> None:
    rows = [record(Path(f).read_text(), Path(f).name) for f in files]
    Path(out).write_text("".join(json.dumps(r) + "\n" for r in rows))
    print(f"{out}: {len(rows)} records")


if __name__ == "__main__":
    main(*sys.argv[1:])
