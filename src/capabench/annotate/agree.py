"""Agreement on a filled kit: Fleiss' kappa over the items every rater of the design
labelled (statsmodels), overall and per mechanism (Fleiss' category kappa), Krippendorff's
alpha (nominal; items may have unequal numbers of labels), each rater's agreement with the
benchmark's labels, and the confusion table (benchmark label x rater label, pooled)."""

from __future__ import annotations

import csv
import json
from collections import Counter
from pathlib import Path

import numpy as np
from pydantic import BaseModel


class Agreement(BaseModel):
    raters: list[str]
    items: int  # items with at least two labels
    complete_items: int  # items with the design's full number of labels (Fleiss' kappa)
    fleiss_kappa: float | None
    per_mechanism_kappa: dict[str, float | None]
    krippendorff_alpha: float | None
    with_benchmark: dict[str, dict[str, float | int]]  # rater -> {"agree": share, "n": items}
    confusion: dict[str, dict[str, int]]  # benchmark label -> rater label -> count


class SheetError(ValueError):
    pass


def read_labels(path: Path, mechanisms: list[str]) -> dict[str, str]:
    """item_id -> label of a filled sheet (the sheet's CSV with its label column filled, or
    the HTML form's saved CSV). Empty labels are unlabelled; a label may be the mechanism's
    name or its number (1-6) in the form's order."""
    labels = {}
    with path.open(newline="") as f:
        reader = csv.DictReader(f)
        if not reader.fieldnames or not {"item_id", "label"} <= set(reader.fieldnames):
            raise SheetError(f"{path}: needs the columns item_id and label")
        for line, row in enumerate(reader, 2):
            value = (row["label"] or "").strip()
            if not value:
                continue
            if value.isdigit() and 1 <= int(value) <= len(mechanisms):
                value = mechanisms[int(value) - 1]
            if (match := mechanism_named(value, mechanisms)) is None:
                raise SheetError(f"{path}:{line}: {value!r} is not one of the mechanisms")
            labels[row["item_id"]] = match
    return labels


def mechanism_named(value: str, mechanisms: list[str]) -> str | None:
    """The mechanism a label names (its name in any letter case), or None."""
    return next((m for m in mechanisms if m.lower() == value.strip().lower()), None)


def read_kit(kit: Path) -> tuple[dict, dict[str, dict[str, str]]]:
    """The key and every rater's labels (labels/<rater>.csv when given there, else the
    sheet's own CSV)."""
    key = json.loads((kit / "key.json").read_text())
    ratings = {}
    for sheet in sorted((kit / "sheets").glob("*.csv")):
        filled = kit / "labels" / sheet.name
        labels = read_labels(filled if filled.exists() else sheet, key["mechanisms"])
        unknown = set(labels) - set(key["items"])
        if unknown:
            raise SheetError(f"{sheet.name}: items not in this kit: {sorted(unknown)[:3]}")
        ratings[sheet.stem] = labels
    for extra in sorted((kit / "labels").glob("*.csv")) if (kit / "labels").is_dir() else []:
        if extra.stem not in ratings:  # e.g. a model's ratings
            ratings[extra.stem] = read_labels(extra, key["mechanisms"])
    return key, ratings


def category_kappas(counts: np.ndarray) -> np.ndarray:
    """Fleiss' (1971) kappa per category of an items x categories count table with n
    ratings per item: 1 - sum_i n_ij (n - n_ij) / (N n (n - 1) p_j (1 - p_j))."""
    items, _ = counts.shape
    n = counts.sum(axis=1)[0]
    p = counts.sum(axis=0) / (items * n)
    disagreement = (counts * (n - counts)).sum(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        return 1 - disagreement / (items * n * (n - 1) * p * (1 - p))


def agreement(key: dict, ratings: dict[str, dict[str, str]]) -> Agreement:
    from krippendorff import alpha
    from statsmodels.stats.inter_rater import fleiss_kappa

    mechanisms = key["mechanisms"]
    raters = sorted(ratings)
    items = sorted(key["items"])
    per_item = {i: [ratings[r][i] for r in raters if i in ratings[r]] for i in items}
    rated = [i for i in items if len(per_item[i]) >= 2]
    full = max((len(per_item[i]) for i in rated), default=0)
    complete = [i for i in rated if len(per_item[i]) == full]
    counts = np.array(
        [[per_item[i].count(m) for m in mechanisms] for i in complete], dtype=float
    ).reshape(len(complete), len(mechanisms))
    fk = float(fleiss_kappa(counts, method="fleiss")) if len(complete) >= 2 else None
    per_mech = {}
    if len(complete) >= 2:
        for m, value in zip(mechanisms, category_kappas(counts), strict=True):
            per_mech[m] = None if np.isnan(value) else float(value)
    codes = {m: k for k, m in enumerate(mechanisms)}
    table = [[codes[ratings[r][i]] if i in ratings[r] else np.nan for i in rated] for r in raters]
    ka = (
        float(alpha(reliability_data=table, level_of_measurement="nominal"))
        if rated and len({v for row in table for v in row if v == v}) > 1
        else None
    )
    bench, confusion = {}, {m: Counter() for m in mechanisms}
    for r in raters:
        mine = [(key["items"][i]["label"], label) for i, label in ratings[r].items()]
        bench[r] = {
            "agree": round(sum(a == b for a, b in mine) / len(mine), 4) if mine else float("nan"),
            "n": len(mine),
        }
        for truth, label in mine:
            confusion[truth][label] += 1
    return Agreement(
        raters=raters,
        items=len(rated),
        complete_items=len(complete),
        fleiss_kappa=fk,
        per_mechanism_kappa=per_mech,
        krippendorff_alpha=ka,
        with_benchmark=bench,
        confusion={m: dict(c) for m, c in confusion.items()},
    )
