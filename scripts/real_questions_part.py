"""Make a part of the real-question corpus (tests/data/real_questions) from capabench's own
sessions, as issue 27's later parts were made: writer helpers reply to held-out requests
(tests/data/real_questions/making/WRITER.md), labeller helpers label the replies by the
corpus rule (making/LABELLER.md); neither sees the matcher.

    python scripts/real_questions_part.py requests --seed 2 --first 181 --last 240 --out DIR
        # DIR/requests.jsonl: the held-out requests in the player's order, framings A-D in turn
    python scripts/real_questions_part.py problems --first 1 --last 55 --shift 1 --out DIR
        # DIR/problems.jsonl: HumanEval problems for a request maker (making/MAKER.md)
    python scripts/real_questions_part.py rule --out RULE.md
        # the families' table and the corpus rule, the only text a labeller reads beside LABELLER.md
    python scripts/real_questions_part.py build --writer DIR --labels DIR/labels.jsonl \\
        --name claude-helper-m --seed 2 --commit SHA --out claude-helper-m.json
    python scripts/real_questions_part.py consensus --first A.json --second B.json --out C.json
        # two labellers' files of one part -> one: targets both give, the rest defensible
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

from capabench.paths import write_atomically  # an interrupted run leaves the file as it was

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "tests" / "data" / "real_questions"
FRAMINGS = "ABCD"  # making/WRITER.md
MODEL = (
    "Claude (an Anthropic model, run as a helper session of capabench's developers; "
    "exact version not recorded)"
)


def requests(args: argparse.Namespace) -> None:
    from capabench.build.default import default_benchmark  # built on first use, cached
    from capabench.player import select_sessions

    if not 1 <= args.first <= args.last:
        raise SystemExit(f"sessions {args.first}-{args.last}: need 1 <= --first <= --last")
    sessions = select_sessions(default_benchmark(args.seed), None)[args.first - 1 : args.last]
    if not sessions:
        raise SystemExit(f"the benchmark of seed {args.seed} has fewer than {args.first} sessions")
    rows = [
        {"n": n, "session": s.id, "framing": FRAMINGS[(n - 1) % 4], "request": s.request}
        for n, s in enumerate(sessions, args.first)
    ]
    _write_rows(args.out / "requests.jsonl", rows, "requests")


def problems(args: argparse.Namespace) -> None:
    """HumanEval problems for a request maker (making/MAKER.md): each with the kind of change
    to make (a, c, p in turn) and the writer's framing (A-D in turn), both shifted by
    `--shift` so that a second round over the same problems changes each differently."""
    from capabench.tasks import load_humaneval

    tasks = load_humaneval()
    if not 1 <= args.first <= args.last <= len(tasks):
        raise SystemExit(
            f"problems {args.first}-{args.last}: need 1 <= --first <= --last <= {len(tasks)}"
        )
    rows = [
        {
            "n": n,
            "session": f"he-{n - 1}",
            "framing": FRAMINGS[(n - 1 + args.shift) % len(FRAMINGS)],
            "kind": "acp"[(n - 1 + args.shift) % 3],
            "problem": tasks[n - 1].prompt,
        }
        for n in range(args.first, args.last + 1)
    ]
    _write_rows(args.out / "problems.jsonl", rows, "problems")


def rule(args: argparse.Namespace) -> None:
    """The 14 families' table (from the bank's brief) and the corpus README's rule and hard
    cases, without what the README says of matchers and measurements."""
    brief = (ROOT / "tests" / "data" / "user_questions" / "BRIEF.md").read_text()
    families = brief[brief.index("Each is one thing") : brief.index("So a message that asks")]
    readme = (CORPUS / "README.md").read_text()
    rules = readme[readme.index("## Labelling rule") : readme.index("## Format")]
    hard = readme[readme.index("## Hard cases") : readme.index("## Limits")]
    hard = re.sub(
        r" \(two labellers read the line above.*?keep their labels\)", "", hard, flags=re.S
    )
    held = (
        "In a session the user privately holds one alternative of each of two families from "
        "different groups; the assistant never sees which."
    )
    text = (
        "# The 14 convention families and the labelling rule\n\n## The families\n\n"
        f"{families}{held}\n\n{rules}{hard}"
    )
    write_atomically(args.out, text)
    print(f"{args.out}: {len(text)} characters")


def build(args: argparse.Namespace) -> None:
    requests_by_n = _rows(args.writer / "requests.jsonl")
    replies = list(_rows(args.writer / "replies.jsonl").values())
    labels = _rows(args.labels)
    entries = []
    for reply in replies:
        if reply["n"] not in labels or reply["n"] not in requests_by_n:
            raise SystemExit(f"reply {reply['n']}: no label or request for it")
        label, asked = labels[reply["n"]], requests_by_n[reply["n"]]
        if label["session"] != reply["session"] or asked["session"] != reply["session"]:
            raise SystemExit(f"reply {reply['n']}: sessions differ between files")
        targets = sorted(label["targets"])
        entries.append(
            {
                "id": f"{args.name}-{reply['n']:03d}",
                "text": reply["reply"],
                "model": args.model,
                "source": {
                    "repo": "capabench (this repository)",
                    "path": args.requests_from
                    or f"default benchmark seed {args.seed}, held-out sessions (player order)",
                    "commit": args.commit,
                    "loc": f"{reply['session']}, framing {asked['framing']}",
                },
                "targets": targets,
                "defensible": sorted(set(label["defensible"]) - set(targets)),
                "asks": bool(label["asks"]),
                "note": label.get("note", ""),
            }
        )
    write_atomically(args.out, json.dumps(entries, indent=1, ensure_ascii=False) + "\n")
    print(
        f"{args.out}: {len(entries)} messages, {sum(bool(e['targets']) for e in entries)} with targets"
    )


def consensus(args: argparse.Namespace) -> None:
    """Two labellers' files of one part as one: a family both target is a target; one either
    targets or finds defensible, and not both target, is defensible (where careful labellers
    part, a reveal is neither required nor false). The first file's other fields stay."""
    for path in (args.first, args.second):
        if not path.is_file():
            raise SystemExit(f"no such file: {path}")
    first, second = (json.loads(p.read_text()) for p in (args.first, args.second))
    merged = consensus_of(first, second)
    write_atomically(args.out, json.dumps(merged, indent=1, ensure_ascii=False) + "\n")
    moved = sum(sorted(a["targets"]) != m["targets"] for a, m in zip(first, merged, strict=True))
    print(f"{args.out}: {len(merged)} messages, {moved} with a target moved to defensible")


def consensus_of(first: list[dict], second: list[dict]) -> list[dict]:
    by_text = {e["text"]: e for e in second}
    if set(by_text) != {e["text"] for e in first}:
        raise SystemExit("the two files hold different messages")
    merged = []
    for a in first:
        b = by_text[a["text"]]
        targets = sorted(set(a["targets"]) & set(b["targets"]))
        named = {*a["targets"], *b["targets"], *a["defensible"], *b["defensible"]}
        entry = dict(a, targets=targets, defensible=sorted(named - set(targets)))
        entry["asks"] = bool(a["asks"] or b["asks"])
        if (entry["targets"], entry["defensible"]) != (
            sorted(a["targets"]),
            sorted(a["defensible"]),
        ):
            # (the earliest parts' labels carry no note)
            entry["note"] = f"{a.get('note', '')} | second labeller: {b.get('note', '')}"
        merged.append(entry)
    return merged


def _write_rows(path: Path, rows: list[dict], what: str) -> None:
    """A helper's input file, one JSON object per line (its folder made as needed)."""
    write_atomically(path, "".join(json.dumps(row) + "\n" for row in rows))
    print(f"{path}: {len(rows)} {what}")


def _rows(path: Path) -> dict[int, dict]:
    if not path.is_file():
        raise SystemExit(f"no such file: {path}")
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return {row["n"]: row for row in rows}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("requests", help="a writer's requests.jsonl")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--first", type=int, required=True, help="first session (1-based)")
    p.add_argument("--last", type=int, required=True, help="last session, included")
    p.add_argument("--out", type=Path, required=True, help="the writer's folder")
    p.set_defaults(run=requests)
    p = sub.add_parser("problems", help="a request maker's problems.jsonl (HumanEval)")
    p.add_argument("--first", type=int, required=True, help="first problem (1-based)")
    p.add_argument("--last", type=int, required=True, help="last problem, included")
    p.add_argument("--shift", type=int, default=0, help="shift the kinds and framings by this")
    p.add_argument("--out", type=Path, required=True, help="the request maker's folder")
    p.set_defaults(run=problems)
    p = sub.add_parser("rule", help="the labeller's RULE.md")
    p.add_argument("--out", type=Path, required=True)
    p.set_defaults(run=rule)
    p = sub.add_parser("build", help="a corpus file from replies and labels")
    p.add_argument("--writer", type=Path, required=True, help="folder with requests/replies.jsonl")
    p.add_argument("--labels", type=Path, required=True, help="the labeller's labels.jsonl")
    p.add_argument("--name", required=True, help="the part's name, e.g. claude-helper-m")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--commit", required=True, help="the commit the requests were built at")
    p.add_argument(
        "--requests-from",
        help="where the requests come from, if not the seed's default benchmark "
        "(e.g. HumanEval problems made ambiguous by a helper)",
    )
    p.add_argument(
        "--model", default=MODEL, help="who wrote the replies (default: a Claude helper)"
    )
    p.add_argument("--out", type=Path, required=True)
    p.set_defaults(run=build)
    p = sub.add_parser("consensus", help="one part's labels from two labellers' files")
    p.add_argument("--first", type=Path, required=True, help="the first labeller's corpus file")
    p.add_argument("--second", type=Path, required=True, help="the second labeller's, same part")
    p.add_argument("--out", type=Path, required=True)
    p.set_defaults(run=consensus)
    args = parser.parse_args()
    try:
        args.run(args)
    except KeyboardInterrupt:
        raise SystemExit("interrupted: nothing written; the same command starts again") from None


if __name__ == "__main__":
    main()
