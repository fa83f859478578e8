"""Built memories kept on disk, so later runs and studies in the same run directory reuse
them instead of building them again (no model call): one JSON file per user's memory under
`<run dir>/memories/<method>/`, named by a hash of the method, its settings, the model and
the user's history (its sessions' content), so any change to those builds a new one. Each
file also keeps what building it cost: model calls, tokens, seconds."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from capabench.paths import write_atomically
from capabench.records import Session


def memory_key(method: str, settings: dict, model: str, history: Sequence[Session]) -> str:
    content = [s.model_dump(mode="json", include={"id", "request", "trace"}) for s in history]
    blob = json.dumps(
        {"method": method, "settings": settings, "model": model, "history": content},
        sort_keys=True,
    )
    return hashlib.sha256(blob.encode()).hexdigest()[:20]


class MemoryStore:
    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)

    def path(self, method: str, key: str) -> Path:
        return self.root / method / f"{key}.json"

    def load(self, method: str, key: str) -> dict[str, Any] | None:
        """A saved memory, or None (never saved, or unreadable: built again)."""
        try:
            return json.loads(self.path(method, key).read_text())
        except (OSError, ValueError):
            return None

    def save(self, method: str, key: str, payload: dict[str, Any]) -> None:
        """Atomically (a reader never sees half a memory); concurrent writers of one key
        write the same content."""
        write_atomically(self.path(method, key), json.dumps(payload, indent=1))


@dataclass(frozen=True)
class MemorySlot:
    """One user's memory under one method and its settings: what was saved, and where the
    built one goes. Without a store (no run directory) nothing is read or kept."""

    store: MemoryStore | None
    method: str
    key: str

    def load(self) -> dict[str, Any] | None:
        return self.store.load(self.method, self.key) if self.store else None

    def save(self, payload: dict[str, Any]) -> None:
        if self.store:
            self.store.save(self.method, self.key, payload)


def memory_slot(
    store: MemoryStore | None, method: str, settings: dict, model: str, history: Sequence[Session]
) -> MemorySlot:
    key = memory_key(method, settings, model, history) if store else ""
    return MemorySlot(store, method, key)
