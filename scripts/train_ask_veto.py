"""Train the ask veto (src/capabench/swe/asks/config/ask_veto.json) on the ask corpus's
development parts, or estimate what it does on a part it never saw. Needs scikit-learn.

    python scripts/train_ask_veto.py --cross-validate    # leave one part out at a time
    python scripts/train_ask_veto.py                     # write the weights

The held-out parts still measured (heldout, heldout2, heldout5, heldout7) never enter it.

v2 has been tuned on every development part, so its verdicts there are nearly all right and
teach a veto nothing. The parts added to the repository in a commit that changed no rule carry
v2's first verdicts, before it was tuned on them (`FIRST`: the commit that added the part):
those verdicts, read by v2 as it was then, are what an unseen part looks like to v2. Training
and cross-validation read a part through its first verdicts where it has them, through
today's v2 elsewhere.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from sklearn.linear_model import LogisticRegression

from capabench.swe.asks.detection import load
from capabench.swe.asks.verdict import Detection
from capabench.swe.asks.veto import WEIGHTS, VetoWeights, features

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "tests" / "data" / "ask_messages"
HELD_OUT = {"heldout", "heldout2", "heldout5", "heldout7"}  # never read, never trained on
FIRST = {
    "heldout3": "f34fb1c41c825ec989ed56564fdea518dbc1478a",
    "heldout4": "5164b89e21830b1e5ebd97345cfb676d511ffed9",
    "dev37": "9454c889cb65a271f3839ab53de5f6f929dea616",
    "dev38": "9454c889cb65a271f3839ab53de5f6f929dea616",
    "dev39": "8527fca332ec917b562daa500d4565bd2f63f508",
    "dev40": "ca5e9569aa0a4c4e0984e6ce7463e18981d588ea",
    "dev41": "a2f70930b9040975d130e9ad36b083156c5049cf",
    "dev42": "a906eb9af457ab2728b83ae016b5242c7719b557",
    "dev43": "2210b21c8dd54211ee66b3de97b70c02c04d21fb",
    "dev44": "baa37b0b259543fd60e53c76fd1e4470f5820de6",
    "dev45": "f083937effb92df8eedfd5afad05b497af0b8b3b",
    "dev46": "0c108aea7f46aa87a73727efa4b2c86716d74898",
    "dev47": "a4e057af13a9bb15c0537ee96dd2fd96e96cf8bb",
    "dev48": "ab03b2cf6886a153e612a25b734a402d5a836edf",
    "heldout6": "39305ed8548e06f713ac7a89c2c3fdcc792517a2",
}
MIN_COUNT = 2  # an n-gram seen in fewer training messages gets no weight
DROP = 0.02  # smaller weights are left out of the file
_READ_AT = """
import json, sys
from capabench.swe.asks.detection import load
clf = load("v2")
out = []
for m in json.load(open(sys.argv[1])):
    out.append(clf.classify(m["text"], edited=m["edited"]).model_dump())
json.dump(out, sys.stdout)
"""


def development_parts() -> list[Path]:
    return sorted(p for p in CORPUS.glob("*.json") if p.stem not in HELD_OUT)


def first_verdicts(part: Path, commit: str) -> list[Detection]:
    """v2 as it was at `commit` on today's text and labels of `part`."""
    with tempfile.TemporaryDirectory() as tree:
        archive = subprocess.run(
            ["git", "-C", str(ROOT), "archive", commit, "src"], check=True, capture_output=True
        ).stdout
        subprocess.run(["tar", "-x", "-C", tree], input=archive, check=True)
        env = {**os.environ, "PYTHONPATH": str(Path(tree) / "src")}
        out = subprocess.run(
            [sys.executable, "-c", _READ_AT, str(part)],
            env=env,
            check=True,
            capture_output=True,
            text=True,
        ).stdout
    return [Detection.model_validate(d) for d in json.loads(out)]


def read_parts(first: bool) -> dict[str, list[tuple[dict, Detection, frozenset[str]]]]:
    """Each development part's messages, with v2's verdict and the veto's features."""
    v2 = load("v2")
    read = {}
    for part in development_parts():
        data = json.loads(part.read_text())
        if first and part.stem in FIRST:
            found = first_verdicts(part, FIRST[part.stem])
        else:
            found = [v2.classify(m["text"], edited=m["edited"]) for m in data]
        read[part.stem] = [(m, d, features(m["text"], d)) for m, d in zip(data, found, strict=True)]
    return read


def fit(rows: list[tuple[dict, Detection, frozenset[str]]], c: float) -> tuple[float, dict]:
    """A logistic regression of the label over the features, on every message (what an ask
    reads like, not only where v2 was wrong: v2's false asks are few)."""
    counts: dict[str, int] = {}
    for _, _, grams in rows:
        for g in grams:
            counts[g] = counts.get(g, 0) + 1
    vocabulary = sorted(g for g, n in counts.items() if n >= MIN_COUNT)
    column = {g: i for i, g in enumerate(vocabulary)}
    r, k = [], []
    for i, (_, _, grams) in enumerate(rows):
        for g in grams:
            if g in column:
                r.append(i)
                k.append(column[g])
    x = sp.csr_matrix((np.ones(len(r)), (r, k)), shape=(len(rows), len(vocabulary)))
    y = np.array([m["ask"] for m, _, _ in rows])
    model = LogisticRegression(C=c, max_iter=5000, class_weight="balanced")
    model.fit(x, y)
    w = model.coef_[0]
    weights = {g: round(float(w[i]), 3) for g, i in column.items() if abs(w[i]) >= DROP}
    return round(float(model.intercept_[0]), 4), weights


def _pr(tp: int, fp: int, fn: int) -> str:
    p = tp / (tp + fp) if tp + fp else float("nan")
    r = tp / (tp + fn) if tp + fn else float("nan")
    return f"P {p:.3f} R {r:.3f} (tp={tp} fp={fp} fn={fn})"


def cross_validate(read, c: float, thresholds: list[float]) -> None:
    # pooled counts: (scope, classifier) -> [tp, fp, fn]
    pooled: dict[tuple[str, str], list[int]] = {}
    for held in read:
        rows = [row for name, part in read.items() if name != held for row in part]
        intercept, weights = fit(rows, c)
        veto = {t: VetoWeights(intercept, weights, t, {}) for t in thresholds}
        counts = {"v2": [0, 0, 0], **{f"veto@{t}": [0, 0, 0] for t in thresholds}}
        for m, d, grams in read[held]:
            p = veto[thresholds[0]].probability(grams)
            verdicts = {"v2": d.asked, **{f"veto@{t}": d.asked and p >= t for t in thresholds}}
            for key, got in verdicts.items():
                t = counts[key]
                t[0] += got and m["ask"]
                t[1] += got and not m["ask"]
                t[2] += m["ask"] and not got
        scopes = ["all", "first" if held in FIRST else "tuned"]
        for key, t in counts.items():
            for scope in scopes:
                total = pooled.setdefault((scope, key), [0, 0, 0])
                for i in range(3):
                    total[i] += t[i]
        line = " | ".join(f"{key} {_pr(*t)}" for key, t in counts.items())
        print(f"{held:9s} {line}", flush=True)
    print(f"pooled over the held-out folds (C={c}):")
    for (scope, key), t in sorted(pooled.items()):
        print(f"  {scope:6s} {key:10s} {_pr(*t)}")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--c", type=float, default=1.0, help="inverse regularization")
    parser.add_argument("--threshold", type=float, default=0.5)
    parser.add_argument("--cross-validate", action="store_true")
    parser.add_argument("--thresholds", default="0.1,0.2,0.3,0.5", help="for --cross-validate")
    parser.add_argument(
        "--today", action="store_true", help="read every part through today's v2 (no FIRST)"
    )
    parser.add_argument("--out", type=Path, default=WEIGHTS)
    args = parser.parse_args()
    read = read_parts(first=not args.today)
    if args.cross_validate:
        thresholds = [float(t) for t in args.thresholds.split(",")]
        cross_validate(read, args.c, thresholds)
        return
    rows = [row for part in read.values() for row in part]
    intercept, weights = fit(rows, args.c)
    trained_on = {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in development_parts()}
    out = {
        "intercept": intercept,
        "weights": weights,
        "threshold": args.threshold,
        "trained_on": trained_on,
    }
    args.out.write_text(json.dumps(out, sort_keys=True, indent=0) + "\n")
    print(f"wrote {args.out}: {len(rows)} messages, {len(weights)} weights")


if __name__ == "__main__":
    main()
