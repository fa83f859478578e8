"""Responses cached in SQLite by a hash of the canonical request."""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
from pathlib import Path

from capabench.models.base import PLAIN, ChatModel, Completion, Message, ReplyOptions


def request_key(model: str, messages: list[Message], params: dict | None = None) -> str:
    canonical = json.dumps(
        {"model": model, "messages": [m.model_dump() for m in messages], "params": params or {}},
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
    )
    return hashlib.sha256(canonical.encode()).hexdigest()


class ResponseCache:
    def __init__(self, path: str | Path) -> None:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS responses (key TEXT PRIMARY KEY, completion TEXT NOT NULL)"
        )
        self._lock = threading.Lock()

    def get(self, key: str) -> Completion | None:
        with self._lock:
            row = self._db.execute(
                "SELECT completion FROM responses WHERE key = ?", (key,)
            ).fetchone()
        return Completion.model_validate_json(row[0]) if row else None

    def put(self, key: str, completion: Completion) -> None:
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO responses VALUES (?, ?)",
                (key, completion.model_dump_json()),
            )

    def close(self) -> None:
        self._db.close()


class CachedModel:
    def __init__(self, inner: ChatModel, cache: ResponseCache, params: dict | None = None) -> None:
        self.inner = inner
        self.name = inner.name
        self.cache = cache
        self.params = params or {}
        self.endpoint = inner.endpoint

    def complete(
        self,
        messages: list[Message],
        reply: ReplyOptions = PLAIN,
    ) -> Completion:
        params = {**self.params, "json_object": True} if reply.json_object else self.params
        if reply.schema is not None:
            params = {**params, "schema": reply.schema}
        if reply.stop:
            params = {**params, "stop": list(reply.stop)}
        key = request_key(self.name, messages, params)
        hit = self.cache.get(key)
        if hit is not None:
            return hit.model_copy(update={"cached": True})
        completion = self.inner.complete(messages, reply)
        self.cache.put(key, completion)
        return completion
