"""The balanced design: 60 cells = 10 profiles x 15 unordered mechanism pairs, each
profile in 6 cells (all with different pairs), each pair in 4 cells."""

from __future__ import annotations

import itertools
import random

from capabench.profiles import PROFILES
from capabench.records import Mechanism

CELLS = 60
SESSIONS_PER_CELL = 10
HISTORY_PER_CELL = 5


def mechanism_pairs() -> list[tuple[Mechanism, Mechanism]]:
    return list(itertools.combinations(list(Mechanism), 2))


def design(seed: int) -> list[tuple[str, tuple[Mechanism, Mechanism]]]:
    """(profile id, mechanism pair) per cell. Cell c takes pair c mod 15 and profile c div 6,
    so six consecutive pairs (all distinct) go to each profile; the seed permutes both."""
    rng = random.Random(f"capa-design:{seed}")
    pairs = mechanism_pairs()
    rng.shuffle(pairs)
    profiles = [p.id for p in PROFILES]
    rng.shuffle(profiles)
    per_profile = CELLS // len(profiles)
    return [(profiles[c // per_profile], pairs[c % len(pairs)]) for c in range(CELLS)]
