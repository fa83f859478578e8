"""Train the `learned` intent matcher's weights (src/capabench/simulate/intent/
learned_weights.json) on the user-question bank's tune and dev parts; the held-out parts
(heldout*) never enter training. Needs scikit-learn (the embeddings extra brings it).

    python scripts/train_intent_model.py            # write the weights (and each family's own
                                                    # bars, read out of fold: a few minutes)
    python scripts/train_intent_model.py --check    # does a retrain read every bank message
                                                    # as the shipped weights do? (exit 1: no)
    python scripts/train_intent_model.py --cross-validate 0.3:0.3:0.9,0.3:0.3:0.9:0.1:0.5
        # leave one tuned part out at a time: what the models would do on a part never seen
"""

from __future__ import annotations

import argparse
import builtins
import csv
import hashlib
import json
import keyword
import logging
import re
from collections import Counter
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from sklearn.linear_model import LogisticRegression

from capabench.conventions import REGISTRY
from capabench.paths import write_atomically
from capabench.simulate.intent.evidence import TOKEN_VECTORS, Evidence, evidence
from capabench.simulate.intent.fidelity import BankEntry, load_bank, measure, users
from capabench.simulate.intent.learned import (
    WEIGHTS,
    FamilyWeights,
    LearnedMatcher,
    LearnedWeights,
    load_weights,
)
from capabench.simulate.intent.rules import RulesMatcher

BANKS = Path(__file__).resolve().parents[1] / "tests" / "data" / "user_questions"
REAL = BANKS.parent / "real_questions"
MIN_COUNT = 2  # an n-gram seen in fewer training messages gets no weight
# Smaller n-gram weights are left out and the rest rounded: the file drops from 8 MB to under
# 1 MB, and no message of the bank is read differently.
DROP = 0.05
# The meaning vector (unit length, 128 values) enters the regressions scaled by this, so the
# shared penalty leaves it weights on a par with a message's handful of n-grams (set once,
# not tuned).
MEANING_SCALE = 3.0
# A real assistant's message weighs this many bank messages: the bank (written from a brief)
# outnumbers the real corpus more than three to one, and its wordings are not the ones real
# assistants use. Out of fold on the real tune parts it lowers false reveals and keeps recall
# (docs/measurements.md, issue 27's thirteenth session).
REAL_WEIGHT = 4.0
# A family's own bar, above the shared one, where out of fold on the real tune parts (FOLDS folds
# of parts) the reveals it takes away were mostly unasked: a target lost costs MISS_COST unasked
# reveals, and a bar rests on at least MIN_UNASKED unasked messages, never on one (a bar one
# message set took a reference policy's cue question away; docs/measurements.md).
BARS = {
    "family_thresholds": (0.85, 0.9, 0.95, 0.97, 0.99),
    "add_thresholds": (0.97, 0.98, 0.99, 0.995, 1.0),
}
MISS_COST = 2.0
MIN_UNASKED = 2
FOLDS = 5


# Names in code that may carry a family: Python's own (`sorted`, `lower`, `json.dumps`,
# `logging.info`, `raise`); any other name is the task's or the draft's own.
PYTHON_NAMES = (
    frozenset(
        name.lower()
        for module in (builtins, str, list, dict, json, logging, csv)
        for name in dir(module)
        if not name.startswith("_")
    )
    | frozenset(keyword.kwlist)
    | {"logger", "log", "os", "path", "pathlib", "sys", "stdout", "stderr"}
)


def _task_name(gram: str) -> bool:
    return re.fullmatch(r"c:[a-z_]\w*", gram) is not None and gram[2:] not in PYTHON_NAMES


def tuned_parts() -> list[Path]:
    """The bank's tune and dev parts, and the real corpus's tune side (splits.json: by source
    model; its held-out models never enter training)."""
    bank = sorted(p for p in BANKS.glob("*.json") if not p.stem.startswith("heldout"))
    split = json.loads((REAL / "splits.json").read_text())["tune"]
    return bank + [REAL / name for name in split]


def train(
    entries: list[BankEntry], evidences: list[Evidence], real: list[bool], *, c: float
) -> LearnedWeights:
    """Every model, with the default thresholds (set them with model_copy); `real`: which
    entries a real assistant wrote (the real corpus, not the bank)."""
    weight = np.where(real, REAL_WEIGHT, 1.0)
    counts: dict[str, int] = {}
    for ev in evidences:
        for g in ev.ngrams:
            counts[g] = counts.get(g, 0) + 1
    vocabulary = sorted(g for g, n in counts.items() if n >= MIN_COUNT and not _task_name(g))
    column = {g: i for i, g in enumerate(vocabulary)}

    def matrix(family: str | None, prose: bool = False) -> sp.csr_matrix:
        rows, cols = [], []
        for r, ev in enumerate(evidences):
            for g in ev.prose if prose else ev.words(family):
                if g in column:
                    rows.append(r)
                    cols.append(column[g])
        return sp.csr_matrix(
            (np.ones(len(rows)), (rows, cols)), shape=(len(evidences), len(vocabulary))
        )

    meaning = sp.csr_matrix(
        [[MEANING_SCALE * v / ev.norm if ev.norm else 0.0 for v in ev.meaning] for ev in evidences]
    )

    def fit(
        family: str | None,
        rules_view: list,
        y: np.ndarray,
        about: str | None = None,
        prose: bool = False,
    ) -> FamilyWeights:
        x = sp.hstack([matrix(family, prose), sp.csr_matrix(rules_view), meaning]).tocsr()
        # a message whose reveal of the family (`about`) would be defensible (the real
        # corpus's second tier) teaches neither way
        keep = np.array([about is None or about not in e.defensible for e in entries])
        model = LogisticRegression(C=c, max_iter=5000, class_weight="balanced")
        model.fit(x[keep], y[keep], sample_weight=weight[keep])
        w = model.coef_[0]
        n, width = len(vocabulary), len(rules_view[0])
        return FamilyWeights(
            intercept=round(float(model.intercept_[0]), 4),
            ngrams={g: round(float(w[i]), 2) for g, i in column.items() if abs(w[i]) >= DROP},
            rules=tuple(round(float(v), 4) for v in w[n : n + width]),
            # the matcher reads the unscaled direction: the scale goes into the weights
            meaning=tuple(round(float(v) * MEANING_SCALE, 4) for v in w[n + width :]),
        )

    asks = {f: np.array([f in e.targets for e in entries]) for f in sorted(REGISTRY)}
    return LearnedWeights(
        regularization=c,
        trained_on={},
        families={f: fit(f, [ev.rules[f] for ev in evidences], y, f) for f, y in asks.items()},
        words_only={
            f: fit(None, [(0.0, 0.0, 0.0)] * len(evidences), y, f, prose=True)
            for f, y in asks.items()
        },
        none=fit(
            None, [ev.overall for ev in evidences], np.array([not e.targets for e in entries])
        ),
    )


THRESHOLDS = (
    "threshold",
    "none_threshold",
    "add_threshold",
    "asked_threshold",
    "best_threshold",
    "overrule_threshold",
    "keep_threshold",
    "statement_threshold",
    "lean_threshold",
)


def thresholds(text: str) -> dict[str, float]:
    """ "0.3:0.3:0.9:0.1:0.5" -> the family veto, none veto, add, asked, best, overrule, keep,
    statement and lean thresholds (those left out keep their defaults)."""
    try:
        values = [float(v) for v in text.split(":")]
    except ValueError:
        raise SystemExit(f"thresholds are numbers joined by ':', not {text!r}") from None
    if len(values) > len(THRESHOLDS):
        raise SystemExit(f"at most {len(THRESHOLDS)} thresholds: {':'.join(THRESHOLDS)}")
    return dict(zip(THRESHOLDS, values, strict=False))


def _thresholds_of(weights: LearnedWeights) -> dict:
    return weights.model_dump(include={*THRESHOLDS, *BARS})


def out_of_fold(parts, real, ev, c: float, shared: dict[str, float]) -> list:
    """(weights that never saw the message's part, entry, evidence) for each message of the real
    tuned parts: FOLDS folds of parts, each read by models trained on everything else."""
    reals = sorted(n for n in parts if real[n])
    oof = []
    for k in range(min(FOLDS, len(reals))):  # none without real parts (--parts)
        test = reals[k::FOLDS]
        trained = train(*_pooled([n for n in parts if n not in test], parts, ev, real), c=c)
        w = trained.model_copy(update=shared)
        oof += [(w, e, x) for n in test for e, x in zip(parts[n], ev[n], strict=True)]
    return oof


def raise_bars(
    oof: list, *, miss_cost: float = MISS_COST, min_unasked: int = MIN_UNASKED
) -> dict[str, dict[str, float]]:
    """Each family's own bars (`BARS`): the out-of-fold messages read again with one family's bar
    raised; the bar is kept where what it takes away was worth it."""
    holders = Counter(f for pair in users() for f in pair)  # a reveal's sends

    def worth(entry: BankEntry, families: list[str]) -> float:
        return sum(
            holders[f]
            * (miss_cost if f in entry.targets else 0.0 if f in entry.defensible else -1.0)
            for f in families
        )

    everything = sorted(REGISTRY)

    def targets(w: LearnedWeights, x: Evidence) -> list[str]:
        return LearnedMatcher(w).read_evidence(x)[0].targets(everything)

    base = [targets(w, x) for w, _, x in oof]
    bars: dict[str, dict[str, float]] = {field: {} for field in BARS}
    for field, grid in BARS.items():
        for f in everything:
            shown = [i for i in range(len(oof)) if f in base[i]]
            best, best_gain = None, 0.0
            for bar in grid:  # rising: of two bars worth as much, the lower
                gain, unasked = 0.0, 0
                for i in shown:
                    w, e, x = oof[i]
                    read = targets(w.model_copy(update={field: {f: bar}}), x)
                    gain += worth(e, read) - worth(e, base[i])
                    unasked += f not in read and f not in e.targets and f not in e.defensible
                if gain > best_gain and unasked >= min_unasked:
                    best, best_gain = bar, gain
            if best is not None:
                bars[field][f] = best
    return bars


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--c",
        type=float,
        default=2.0,
        help="inverse regularization (out of fold on the real tune parts, docs/measurements.md)",
    )
    parser.add_argument(
        "--thresholds",
        default="0.8:0.4:0.95:0.1:0.5:0.99:0.99:0.3:0.3",  # the shipped ones (docs/measurements.md)
        help="family veto : none veto : add : asked : best : overrule : keep : statement : "
        "lean (probabilities)",
    )
    parser.add_argument(
        "--cross-validate",
        metavar="LIST",
        help="thresholds to compare, e.g. 0.3:0.3:0.9,0.3:0.3:0.9:0.1:0.5",
    )
    parser.add_argument("--out", type=Path, default=WEIGHTS)
    parser.add_argument("--check", action="store_true", help="compare a retrain with --out")
    parser.add_argument("--parts", help="only these tuned parts, e.g. tune,dev,dev2")
    args = parser.parse_args()
    # a mistyped threshold is said before any evidence is read
    compared = args.cross_validate.split(",") if args.cross_validate else []
    for text in [args.thresholds, *compared]:
        thresholds(text)
    chosen = [p for p in tuned_parts() if not args.parts or p.stem in args.parts.split(",")]
    unknown = set(args.parts.split(",")) - {p.stem for p in chosen} if args.parts else set()
    if unknown:
        raise SystemExit(
            f"no such tuned part: {', '.join(sorted(unknown))} (held-out parts never train)"
        )
    parts = {p.stem: load_bank(p) for p in chosen}
    real = {p.stem: p.parent == REAL for p in chosen}
    ev = {name: [evidence(e.text) for e in bank] for name, bank in parts.items()}
    if args.cross_validate:
        cross_validate(parts, real, ev, args.c, args.cross_validate.split(","))
        return
    entries, evidences, flags = _pooled(list(parts), parts, ev, real)
    shipped = load_weights(args.out) if args.check else None
    # --check retrains as the shipped weights were trained, whatever --c and --thresholds say
    c = shipped.regularization if shipped else args.c
    weights = train(entries, evidences, flags, c=c)
    shared = thresholds(args.thresholds)
    weights = weights.model_copy(
        update={
            **(_thresholds_of(shipped) if shipped else shared),
            **({} if shipped else raise_bars(out_of_fold(parts, real, ev, c, shared))),
            "trained_on": {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in chosen},
            "token_vectors": hashlib.sha256(TOKEN_VECTORS.read_bytes()).hexdigest(),
        }
    )
    if shipped:
        check(weights, shipped, [e.text for p in BANKS.glob("*.json") for e in load_bank(p)])
        return
    write_atomically(args.out, weights.model_dump_json() + "\n")  # a Ctrl-C leaves the old
    kept = sum(len(f.ngrams) for f in (*weights.families.values(), *weights.words_only.values()))
    print(f"wrote {args.out}: {len(entries)} messages from {len(parts)} parts, {kept} weights")
    for field in BARS:
        print(f"  {field}: {getattr(weights, field) or 'none raised'}")


def _pooled(names: list[str], parts, ev, real) -> tuple[list, list, list[bool]]:
    """These parts' entries, their evidence, and which of them a real assistant wrote."""
    return (
        [e for n in names for e in parts[n]],
        [x for n in names for x in ev[n]],
        [real[n] for n in names for _ in parts[n]],
    )


def check(retrained: LearnedWeights, shipped: LearnedWeights, messages: list[str]) -> None:
    everything = sorted(REGISTRY)
    a, b = LearnedMatcher(retrained), LearnedMatcher(shipped)
    differ = [
        m
        for m in messages
        if a.read(m, everything).targets(everything) != b.read(m, everything).targets(everything)
    ]
    same = (retrained.trained_on, retrained.token_vectors) == (
        shipped.trained_on,
        shipped.token_vectors,
    )
    print(f"{len(differ)} of {len(messages)} messages read differently; same training data: {same}")
    for m in differ[:5]:
        print(f"  {m[:120]!r}")
    if differ or not same:
        raise SystemExit(1)


def cross_validate(parts, real, ev, c: float, triples: list[str]) -> None:
    rules = RulesMatcher()
    totals: dict[str, list[int]] = {}

    def add(key: str, fid) -> str:
        t = totals.setdefault(key, [0, 0, 0, 0, 0])
        t[0] += sum(f.revealed for f in fid.per_family.values())
        t[1] += sum(f.sends for f in fid.per_family.values())
        t[2] += fid.false_reveals
        t[3] += fid.off_target_reveals
        t[4] += fid.sends
        return f"{100 * fid.recall:.1f}/{fid.false_reveals}/{fid.off_target_reveals}"

    for held in parts:
        trained = train(*_pooled([n for n in parts if n != held], parts, ev, real), c=c)
        line = f"{held:8s} rules {add('rules', measure(rules, parts[held]))}"
        for key in triples:
            weights = trained.model_copy(update=thresholds(key))
            line += f" | {key}: {add(key, measure(LearnedMatcher(weights), parts[held]))}"
        print(line, flush=True)
    print("pooled (recall / unasked reveals / off-target reveals):")
    for key, t in totals.items():
        print(
            f"  {key:12s} recall {100 * t[0] / t[1]:.2f}%  unasked {t[2]} ({100 * t[2] / t[4]:.2f}%)"
            f"  off-target {t[3]}"
        )


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        raise SystemExit("interrupted: the weights file is as it was") from None
