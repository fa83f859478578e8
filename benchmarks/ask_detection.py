"""Precision and recall of the ask classifiers (v1, v2, an LLM judge) on the public corpus of
agents' final messages (tests/data/ask_messages: each part written independently of the
classifiers by a separate writer; `tune`, `dev*` and, since issue 28's second and third
sessions, `heldout3` and `heldout4` were used to write v2, the other `heldout*` parts only
measured), overall, by edit gate and by agent style, and the time per message (wall clock,
and CPU time, which a busy shared machine disturbs less).

    python benchmarks/ask_detection.py [--classifiers v1,v2] [--ask-judge-model local]
        [--part FILE ...] [--show-misses] [--by-kind]

--show-misses prints the messages a classifier gets wrong, except in held-out parts (heldout3
and heldout4 are development data now);
--by-kind counts the errors by the writer's `kind` tag (counts only, in every part).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from capabench.swe.asks.detection import load

CORPUS = Path(__file__).resolve().parents[1] / "tests" / "data" / "ask_messages"
# held-out parts since read and tuned on (README.md there)
DEVELOPMENT = {"heldout3", "heldout4", "heldout6"}


def _pr(rows: list[tuple[bool, bool]]) -> str:
    tp = sum(got and want for got, want in rows)
    fp = sum(got and not want for got, want in rows)
    fn = sum(want and not got for got, want in rows)
    p = f"{tp / (tp + fp):.2f}" if tp + fp else "–"
    r = f"{tp / (tp + fn):.2f}" if tp + fn else "–"
    return f"P {p} R {r} (n={len(rows)}, fp={fp}, fn={fn})"


def measure(clf, part: Path, show: bool, by_kind: bool = False) -> None:
    data = json.loads(part.read_text())
    start, cpu = time.perf_counter(), time.process_time()
    got = [clf.classify(m["text"], edited=m["edited"]).asked for m in data]
    ms = (time.perf_counter() - start) / len(data) * 1000
    cpu_ms = (time.process_time() - cpu) / len(data) * 1000
    rows = [(g, m["ask"]) for g, m in zip(got, data, strict=True)]
    print(f"  {part.stem:10} {_pr(rows)}  [{ms:.2f} ms/message, {cpu_ms:.2f} ms CPU]")
    for name, key in (("edited", lambda m: m["edited"]), ("style", lambda m: m["style"])):
        groups = sorted({key(m) for m in data}, key=str)
        parts = [
            f"{name}={g}: {_pr([r for r, m in zip(rows, data, strict=True) if key(m) == g])}"
            for g in groups
        ]
        print("      " + "; ".join(parts))
    if by_kind:
        errors: dict[str, list[int]] = {}
        for (g, want), m in zip(rows, data, strict=True):
            if g != want:
                errors.setdefault(m.get("kind", "?"), [0, 0])[0 if want else 1] += 1
        for kind, (fn, fp) in sorted(errors.items()):
            print(f"      kind {kind}: fn={fn} fp={fp}")
    if show and (not part.stem.startswith("heldout") or part.stem in DEVELOPMENT):
        for (g, want), m in zip(rows, data, strict=True):
            if g != want:
                kind = "missed ask" if want else "false ask"
                print(
                    f"      {kind} ({m.get('kind', '')}, edited={m['edited']}): {m['text'][:160]!r}"
                )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--classifiers", default="v1,v2")
    parser.add_argument("--ask-judge-model", help="also measure an LLM judge, e.g. local")
    parser.add_argument("--part", action="append", help="a corpus file (default: every part)")
    parser.add_argument("--show-misses", action="store_true")
    parser.add_argument("--by-kind", action="store_true", help="error counts by kind tag")
    args = parser.parse_args()
    parts = [Path(p) for p in args.part] if args.part else sorted(CORPUS.glob("*.json"))
    classifiers = [load(name) for name in args.classifiers.split(",") if name]
    if args.ask_judge_model:
        from capabench.models import ModelOptions, make_model
        from capabench.paths import cache_dir
        from capabench.swe.asks.ask_judge import AskJudge

        options = ModelOptions(
            max_tokens=160, context=4096, cache=str(cache_dir() / "responses.sqlite")
        )
        classifiers.append(
            AskJudge(make_model(args.ask_judge_model, options), args.ask_judge_model)
        )
    for clf in classifiers:
        print(f"== {clf.version}")
        for part in parts:
            measure(clf, part, args.show_misses, args.by_kind)


if __name__ == "__main__":
    main()
