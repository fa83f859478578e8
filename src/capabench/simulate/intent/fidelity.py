"""How faithfully a matcher reads questions: a labelled bank of assistant messages sent to
simulated users holding every admissible pair of conventions (one family from each of two
mechanisms, as the benchmark's users do).

- recall: sends where the user holds a targeted family, and that family was revealed;
- false reveals: families revealed that the message did not target, over all sends (a
  family the entry lists as `defensible` is neither required nor false: counted apart);
- off-target reveals: anything but a defensible family revealed by a message that targets
  nothing.
"""

from __future__ import annotations

import itertools
import json
from collections import Counter
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from capabench.conventions import REGISTRY
from capabench.simulate.intent.base import IntentMatcher


class BankEntry(BaseModel):
    model_config = ConfigDict(frozen=True)

    text: str
    targets: tuple[str, ...] = ()
    # families a reveal of would be defensible but is not required (the real corpus's tier)
    defensible: tuple[str, ...] = ()
    style: str = ""


class FamilyFidelity(BaseModel):
    family: str
    sends: int = 0
    revealed: int = 0

    @property
    def recall(self) -> float:
        return self.revealed / self.sends if self.sends else float("nan")


class Fidelity(BaseModel):
    matcher: str
    messages: int
    sends: int = 0
    per_family: dict[str, FamilyFidelity] = Field(default_factory=dict)
    false_reveals: int = 0
    false_by_family: dict[str, int] = Field(
        default_factory=dict, description="false reveals (sends) per family"
    )
    defensible_reveals: int = 0
    off_target_sends: int = 0
    off_target_reveals: int = 0
    misses: list[dict] = Field(default_factory=list, description="(message, family) never revealed")
    false: list[dict] = Field(
        default_factory=list, description="(message, family) revealed unasked"
    )

    @property
    def recall(self) -> float:
        sends = sum(f.sends for f in self.per_family.values())
        return sum(f.revealed for f in self.per_family.values()) / sends if sends else float("nan")

    @property
    def false_reveal_rate(self) -> float:
        return self.false_reveals / self.sends if self.sends else float("nan")


def load_bank(path: str | Path) -> list[BankEntry]:
    """A JSON list of {"text", "targets", "defensible", "style"} (other keys ignored); the
    families named must be known."""
    entries = [BankEntry.model_validate(item) for item in json.loads(Path(path).read_text())]
    for i, entry in enumerate(entries):
        unknown = (set(entry.targets) | set(entry.defensible)) - set(REGISTRY)
        if unknown:
            raise ValueError(f"{path}: entry {i} targets unknown families {sorted(unknown)}")
    return entries


def users() -> list[tuple[str, str]]:
    """Every pair of families a benchmark user can hold (two different mechanisms)."""
    return [
        (a, b)
        for a, b in itertools.combinations(sorted(REGISTRY), 2)
        if REGISTRY[a].mechanism != REGISTRY[b].mechanism
    ]


def _sample(pairs: list[tuple[str, str]], entry: BankEntry, per_side: int | None):
    """All pairs, or up to `per_side` holding each target and as many holding none
    (deterministic: spread over the sorted list)."""
    if per_side is None:
        return pairs
    groups = [[p for p in pairs if t in p] for t in entry.targets]
    groups.append([p for p in pairs if not set(p) & set(entry.targets)])
    chosen = []
    for group in groups:
        step = max(1, len(group) // per_side)
        chosen += [p for p in group[::step][:per_side] if p not in chosen]
    return chosen


def measure(
    matcher: IntentMatcher, bank: list[BankEntry], *, per_side: int | None = None
) -> Fidelity:
    """Send every message to users holding each admissible pair (or a sample of `per_side`
    pairs holding each target and as many holding none, for slow matchers). A matcher
    whose reading doesn't depend on the session (`session_independent`) reads once."""
    report = Fidelity(matcher=matcher.name, messages=len(bank))
    per = {f: FamilyFidelity(family=f) for f in sorted(REGISTRY)}
    pairs = users()
    everything = sorted(REGISTRY)
    for entry in bank:
        once = (
            set(matcher.read(entry.text, everything).targets(everything))
            if matcher.session_independent
            else None
        )
        missed: Counter = Counter()
        unasked: Counter = Counter()
        for held in _sample(pairs, entry, per_side):
            report.sends += 1
            targeted = (
                once
                if once is not None
                else set(matcher.read(entry.text, list(held)).targets(held))
            )
            revealed = targeted & set(held)
            if not entry.targets:
                report.off_target_sends += 1
                report.off_target_reveals += bool(revealed - set(entry.defensible))
            for family in held:
                if family in entry.targets:
                    per[family].sends += 1
                    per[family].revealed += family in revealed
                    missed[family] += family not in revealed
                elif family in revealed and family in entry.defensible:
                    report.defensible_reveals += 1
                elif family in revealed:
                    report.false_reveals += 1
                    report.false_by_family[family] = report.false_by_family.get(family, 0) + 1
                    unasked[family] += 1
        report.misses += [{"text": entry.text, "family": f} for f, n in missed.items() if n]
        report.false += [{"text": entry.text, "family": f} for f, n in unasked.items() if n]
    report.per_family = per
    return report
