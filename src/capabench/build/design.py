"""The balanced design. The paper's: 60 cells = 10 profiles x 15 unordered mechanism pairs,
each profile in 6 cells (all with different pairs), each pair in 4 cells, each cell a user
with 5 resolved history sessions and 5 held-out ones. `Design` sizes it otherwise (fewer
profiles, cells per pair, history or held-out sessions) with the same balance."""

from __future__ import annotations

import itertools
import random
from dataclasses import dataclass

from capabench.profiles import PROFILES
from capabench.records import Mechanism

CELLS = 60
SESSIONS_PER_CELL = 10
HISTORY_PER_CELL = 5


@dataclass(frozen=True)
class Design:
    profiles: tuple[str, ...] = tuple(p.id for p in PROFILES)
    cells_per_pair: int = 4
    history: int = HISTORY_PER_CELL
    heldout: int = SESSIONS_PER_CELL - HISTORY_PER_CELL

    @property
    def cells(self) -> int:
        return len(mechanism_pairs()) * self.cells_per_pair

    @property
    def sessions_per_cell(self) -> int:
        return self.history + self.heldout

    def problems(self) -> list[str]:
        """Why this design can't be balanced (empty when it can)."""
        known = {p.id for p in PROFILES}
        found = [f"unknown profile {p!r}" for p in self.profiles if p not in known]
        if len(set(self.profiles)) != len(self.profiles) or not self.profiles:
            found.append("profiles must be distinct, and at least one")
        if self.cells_per_pair < 1 or self.history < 1 or self.heldout < 1:
            found.append("cells per pair, history and held-out sessions must be at least 1")
        elif self.cells % len(self.profiles or [1]):
            found.append(
                f"{self.cells} cells ({len(mechanism_pairs())} mechanism pairs x "
                f"{self.cells_per_pair}) can't be shared evenly by {len(self.profiles)} profiles"
            )
        elif self.cells // len(self.profiles or [1]) > len(mechanism_pairs()):
            found.append("a profile would hold a mechanism pair twice: use more profiles")
        return found

    def record(self) -> dict:
        return {
            "profiles": list(self.profiles),
            "cells_per_pair": self.cells_per_pair,
            "history": self.history,
            "heldout": self.heldout,
        }

    @classmethod
    def of(cls, record: dict | None) -> Design:
        if not record:
            return cls()
        return cls(
            tuple(record["profiles"]),
            record["cells_per_pair"],
            record["history"],
            record["heldout"],
        )


DEFAULT_DESIGN = Design()


def mechanism_pairs() -> list[tuple[Mechanism, Mechanism]]:
    return list(itertools.combinations(list(Mechanism), 2))


def design(
    seed: int, shape: Design = DEFAULT_DESIGN
) -> list[tuple[str, tuple[Mechanism, Mechanism]]]:
    """(profile id, mechanism pair) per cell. Cell c takes pair c mod 15 and profile c div
    (cells / profiles), so consecutive pairs (all distinct) go to each profile; the seed
    permutes both."""
    rng = random.Random(f"capa-design:{seed}")
    pairs = mechanism_pairs()
    rng.shuffle(pairs)
    profiles = list(shape.profiles)
    rng.shuffle(profiles)
    per_profile = shape.cells // len(profiles)
    return [(profiles[c // per_profile], pairs[c % len(pairs)]) for c in range(shape.cells)]
