"""Replay every example a benchmark's requests show against each session's composed
reference, the way a reviewer would and independently of the build's own validator:
doctests through Python's doctest parser, one-line forms (`f(x) ➞ y`, `==`, `==>`, `=>`,
`->`) by a plain regular expression, each called by the hidden entry point; and count the
sessions whose request names the function by a name the tests don't call.

    python benchmarks/request_examples.py [BENCHMARK_DIR]   (default: the cached default)
"""

from __future__ import annotations

import ast
import doctest
import re
import sys
from collections import Counter
from pathlib import Path

from capabench.benchmark import BenchmarkDirError, cached_default, load_benchmark
from capabench.build.contradictions import same
from capabench.build.replay import record_calls
from capabench.conventions.shape import Call
from capabench.judge.sandbox import default_pool

_INLINE = re.compile(r"(?m)^.*?\b(\w+)\((.*)\)\s*(?:➞|==>|=>|->|==)\s*(.+?)\s*$")


def _value(src: str):
    try:
        return True, ast.literal_eval(src.strip().rstrip(".,;"))
    except (ValueError, SyntaxError, TypeError):
        return False, None


def _args(src: str):
    try:
        call = ast.parse(f"f({src})", mode="eval").body
        return True, tuple(ast.literal_eval(a) for a in call.args)
    except (ValueError, SyntaxError, TypeError, AttributeError):
        return False, None


def examples(request: str) -> list[tuple[tuple, object, str]]:
    found = []
    for ex in doctest.DocTestParser().get_examples(request):
        m = re.fullmatch(r"\s*(\w+)\((.*)\)\s*", ex.source, re.S)
        ok_a, args = _args(m.group(2)) if m else (False, None)
        ok_v, want = _value(ex.want) if ex.want.strip() else (True, None)
        if ok_a and ok_v:
            found.append((args, want, ex.source.strip()))
    for m in _INLINE.finditer(request):
        if m.group(0).lstrip().startswith(">>>"):
            continue
        ok_a, args = _args(m.group(2))
        ok_v, want = _value(m.group(3))
        if ok_a and ok_v:
            found.append((args, want, m.group(0).strip()))
    return found


def main(argv: list[str]) -> int:
    try:
        bench = load_benchmark(Path(argv[0])) if argv else cached_default()
    except BenchmarkDirError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    pool = default_pool()
    per_split: Counter = Counter()
    shown = bad = named = 0
    for s in bench.sessions:
        found = examples(s.request)
        shown += len(found)
        wrong = 0
        if found:
            records = record_calls(
                s.reference, s.entry_point, [Call(a, {}) for a, _, _ in found], pool
            )
            for (_, want, _src), rec in zip(found, records or [], strict=False):
                wrong += rec.raised is not None or not same(rec.returned, want)
            wrong += records is None
        bad += wrong
        per_split[s.split, "contradicted"] += wrong > 0
        per_split[s.split, "sessions"] += 1
        if s.base_entry_point != s.entry_point and re.search(
            rf"(?<![\w.]){re.escape(s.base_entry_point)}\b", s.request
        ):
            named += 1
    print(f"benchmark content {bench.manifest.content_hash[:12]}")
    print(f"examples shown: {shown}; contradicted by the composed reference: {bad}")
    for split in ("history", "heldout"):
        print(
            f"{split}: {per_split[split, 'contradicted']} of {per_split[split, 'sessions']} "
            "sessions show an example their hidden tests reject"
        )
    print(f"sessions naming the function by a name the tests don't call: {named}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
