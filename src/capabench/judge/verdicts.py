"""Verdicts already reached, for submissions the harness itself wrote.

A reference policy submits the same code in every condition of a session, and the judge is
deterministic for it (fixed hash seed, no clock or randomness in the harness's code), so the
same code against the same tests under the same limits gets the verdict it got. A model's
submission is never looked up here: whatever it does, it is run each time it is submitted.
"""

from __future__ import annotations

import threading

from capabench.records import Verdict

# the machine's load decides these, not the code
_NOT_KEPT = frozenset({"timeout", "resource_limit"})


class Verdicts:
    """A thread-safe map from (code, tests, entry point, limits) to the verdict reached."""

    def __init__(self) -> None:
        self._kept: dict[tuple, Verdict] = {}
        self._lock = threading.Lock()

    def get(self, key: tuple) -> Verdict | None:
        with self._lock:
            return self._kept.get(key)

    def keep(self, key: tuple, verdict: Verdict) -> None:
        if verdict.status not in _NOT_KEPT:
            with self._lock:
                self._kept[key] = verdict

    def __len__(self) -> int:
        return len(self._kept)
