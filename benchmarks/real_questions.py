"""How the simulated user reads clarifying messages that real models and agents wrote
(tests/data/real_questions, labelled by the rule in its README), per matcher, on the
corpus's `tune` and `heldout` splits (splits.json, by source model), and how long the
matcher's reading of one message takes.

Each message is sent to users holding every admissible pair of conventions, as
benchmarks/user_fidelity.py does for the bank (the same `fidelity.measure`). Recall counts
`targets` held; a reveal of a `defensible` family is neither required nor false; a false
reveal is any other family revealed, as % of sends. The time is respond() of a user
holding two families minus judging (the judge is stubbed: a message's code is not run),
per message, the 95th percentile over the split.

`heldout` files are only measured: for them this prints aggregates only, never a message.

    python benchmarks/real_questions.py [--matchers learned,rules] [--split tune|heldout|both]
        [--show]   # tune only: the messages missed or revealing unasked families
    python benchmarks/real_questions.py --file FILE.json [--file ...]   # other files in the
        # corpus's format (e.g. a new source, measured before it joins a split): aggregates
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

import capabench.simulate.user as user_module
from capabench.records import Verdict
from capabench.simulate.intent import make_matcher
from capabench.simulate.intent.fidelity import BankEntry, Fidelity, load_bank, measure
from user_fidelity import bench_user  # benchmarks/ is on sys.path when run as a script

CORPUS = Path(__file__).resolve().parents[1] / "tests" / "data" / "real_questions"


def split_entries(split: str) -> list[BankEntry]:
    names = json.loads((CORPUS / "splits.json").read_text())[split]
    return [e for name in names for e in load_bank(CORPUS / name)]


def _no_judge(*_args, **_kwargs) -> Verdict:
    return Verdict(passed=False, status="failed", detail="not judged (benchmark)")


def read_times(
    name: str, entries: list[BankEntry], repeat: int = 1, clock=time.perf_counter
) -> list[float]:
    """Milliseconds of respond() per message minus judging (judge stubbed), the median of
    `repeat` reads by a new matcher (a matcher keeps the readings of the messages it has
    read; the first read is the message's first), for a user holding two families. `clock`: wall time, or the process's CPU
    time (time.process_time), which a machine shared with other jobs doesn't inflate."""
    user = bench_user(make_matcher(name), ("tidy_list", "bad_input"))
    judge, user_module.judge = user_module.judge, _no_judge
    try:
        user.respond(entries[0].text)  # loads the package data (weights, token vectors) once
        times = []
        for entry in entries:
            runs = []
            for _ in range(repeat):
                user.matcher = make_matcher(name)
                start = clock()
                user.respond(entry.text)
                runs.append((clock() - start) * 1000)
            times.append(statistics.median(runs))
    finally:
        user_module.judge = judge
    return times


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def report(name: str, split: str, entries: list[BankEntry], fid: Fidelity, times, cpu) -> None:
    targeted = sum(bool(e.targets) for e in entries)
    print(
        f"\n== {name} on real {split}: {len(entries)} messages ({targeted} with targets), "
        f"{fid.sends} sends"
    )
    held = sum(f.sends for f in fid.per_family.values())
    revealed = sum(f.revealed for f in fid.per_family.values())
    recall = f"{100 * fid.recall:.1f}% ({revealed}/{held} held targets)" if held else "n/a"
    print(
        f"recall {recall}  false reveals {fid.false_reveals}/{fid.sends} "
        f"({100 * fid.false_reveal_rate:.2f}%)  defensible reveals {fid.defensible_reveals}  "
        f"off-target reveals {fid.off_target_reveals}/{fid.off_target_sends}"
    )
    with_sends = [f for f in fid.per_family.values() if f.sends]
    if with_sends:
        print(
            "per family recall: "
            + ", ".join(f"{f.family} {100 * f.recall:.0f}% ({f.sends})" for f in with_sends)
        )
    if fid.false_by_family:
        print(
            "false reveals per family (% of sends): "
            + ", ".join(
                f"{k} {v} ({100 * v / fid.sends:.2f}%)"
                for k, v in sorted(fid.false_by_family.items(), key=lambda kv: -kv[1])
            )
        )
    for label, values in (("wall", times), ("cpu", cpu)):
        print(
            f"read time per message ({label}): p95 {p95(values):.2f} ms, "
            f"median {statistics.median(values):.2f} ms, max {max(values):.2f} ms"
        )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--matchers", default="learned,rules")
    parser.add_argument("--split", choices=("tune", "heldout", "both"), default="both")
    parser.add_argument("--show", action="store_true", help="tune: print misses and false reveals")
    parser.add_argument(
        "--file", action="append", type=Path, help="measure this file instead (aggregates only)"
    )
    args = parser.parse_args()
    missing = [str(path) for path in args.file or () if not path.is_file()]
    if missing:
        parser.error(f"no such file: {', '.join(missing)}")
    if args.file:
        parts = [(path.stem, load_bank(path)) for path in args.file]
    else:
        splits = ("tune", "heldout") if args.split == "both" else (args.split,)
        parts = [(split, split_entries(split)) for split in splits]
    for split, entries in parts:
        for name in args.matchers.split(","):
            matcher = make_matcher(name)
            fid = measure(matcher, entries)
            wall = read_times(name, entries)
            cpu = read_times(name, entries, clock=time.process_time)
            report(name, split, entries, fid, wall, cpu)
            if args.show and split == "tune":  # never a held-out message
                for item in fid.misses:
                    print(f"  MISS {item['family']}: {item['text'][:300]!r}")
                for item in fid.false:
                    print(f"  FALSE {item['family']}: {item['text'][:300]!r}")


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        raise SystemExit("interrupted: nothing is written, rerun to measure") from None
