"""`mem0`: the real mem0 library (the `memory` extra), fully offline.

Its LLM is the evaluated model and its embedder capabench's, both reached through a local
OpenAI-compatible endpoint on 127.0.0.1 (`capabench.models.serve`), so mem0's calls go
through the same cache, retries and token counts as every other call. The vector store is
an in-memory Qdrant, the history database in memory, telemetry off. Each user's resolved
sessions are added to a memory of their own (mem0 extracts facts from each); for a new
request the top memories by mem0's search are shown. Every result records the mem0 version,
the algorithm, and the features that were inactive offline. The extracted facts are saved in
the run directory (history.memory_store) and reused by later runs, added back as they are
(mem0's infer=False: no LLM call).
"""

from __future__ import annotations

import os
import threading
import time
import weakref
from importlib import metadata

from capabench.history.base import HistoryContext, HistoryEnv, register
from capabench.history.embed import DEFAULT_EMBEDDER, HASHING, embedder
from capabench.history.memory_store import memory_slot
from capabench.models.errors import InfraError
from capabench.models.serve import serve_model
from capabench.records import Session

SHOWN = 5  # memories per request: mem0's own default page of search results


def import_mem0_offline() -> None:
    """Import mem0 with its telemetry off: nothing may leave the machine.

    mem0 reads MEM0_TELEMETRY once, when first imported, and then builds a PostHog client
    (`client_telemetry`) and, on first use, another (`_oss_telemetry_instance`); its modules
    check their copies of the flag. When mem0 was imported before us (telemetry on), those
    copies are switched off and the clients it already built are disabled and dropped."""
    os.environ["MEM0_TELEMETRY"] = "False"  # also for worker processes, which import it anew
    try:
        import mem0.memory.main as main
        import mem0.memory.telemetry as telemetry
    except ImportError:
        raise ValueError(
            "the mem0 condition needs the memory extra: pip install -e .[memory]"
        ) from None
    telemetry.MEM0_TELEMETRY = main.MEM0_TELEMETRY = False
    for name in ("client_telemetry", "_oss_telemetry_instance"):
        held = getattr(telemetry, name, None)
        if getattr(held, "posthog", None) is not None:
            held.posthog.disabled = True  # a disabled PostHog client admits no event
            held.posthog = None  # and mem0 skips it (its exit hook flushes nothing)


def _available(module: str) -> bool:
    try:
        __import__(module)
        return True
    except ImportError:
        return False


@register("mem0")
class Mem0:
    def __init__(self, env: HistoryEnv) -> None:
        import_mem0_offline()
        self.env = env
        model = env.need_model("mem0")
        name = env.settings.get("embedder") or (
            DEFAULT_EMBEDDER if _available("sentence_transformers") else HASHING
        )
        self.embed = embedder(name)
        self.dims = int(self.embed.encode(["x"]).shape[1])
        # The endpoint lives as long as this method: closed by close(), when the method is
        # collected, or at exit.
        self.server = serve_model(model, self.embed).__enter__()
        self._stop_server = weakref.finalize(self, self.server.__exit__, None, None, None)
        self.model = model
        self.memories: dict[int, object] = {}
        self.added: dict[int, int] = {}
        self.costs: dict[int, dict] = {}  # what building each user's memory cost
        self.locks: dict[int, threading.Lock] = {}
        self.guard = threading.Lock()
        self.info = {
            "method": "mem0",
            "mem0_version": metadata.version("mem0ai"),
            "algorithm": "mem0 v3 additive extraction (one LLM call per add), vector search",
            "embedder": self.embed.name,
            "vector_store": "qdrant in memory",
            "inactive_offline": [
                f
                for f, on in (
                    ("spaCy lemmatization (mem0ai[nlp])", _available("spacy")),
                    ("BM25 keyword search (fastembed)", _available("fastembed")),
                )
                if not on
            ]
            + ["telemetry"],
        }

    def close(self) -> None:
        """Stop the endpoint mem0 reaches the model through (idempotent)."""
        self._stop_server()

    def _config(self, cell: int) -> dict:
        from qdrant_client import QdrantClient

        base = self.server.base_url
        return {
            "llm": {
                "provider": "openai",
                "config": {"model": "capabench", "openai_base_url": base, "api_key": "local"},
            },
            "embedder": {
                "provider": "openai",
                "config": {
                    "model": self.embed.name,
                    "openai_base_url": base,
                    "api_key": "local",
                    "embedding_dims": self.dims,
                },
            },
            "vector_store": {
                "provider": "qdrant",
                "config": {
                    "client": QdrantClient(location=":memory:"),
                    "collection_name": f"cell{cell}",
                    "embedding_model_dims": self.dims,
                },
            },
            "history_db_path": ":memory:",
        }

    def memory(self, session: Session):
        from mem0 import Memory

        with self.guard:
            lock = self.locks.setdefault(session.cell, threading.Lock())
        with lock:  # one memory per user, built once and kept
            if session.cell not in self.memories:
                user = f"cell{session.cell}"
                history = self.env.history_of(session)
                settings = {"embedder": self.embed.name}
                slot = memory_slot(self.env.memories, "mem0", settings, self.model.name, history)
                saved = slot.load()
                memory = Memory.from_config(self._config(session.cell))
                try:
                    if saved is not None:  # the extracted facts, stored as they are: no LLM call
                        for fact in saved["memories"]:
                            memory.add(fact, user_id=user, infer=False)
                        cost = {**saved["cost"], "reused": True}
                    else:
                        start, calls = time.perf_counter(), 0
                        for earlier in history:
                            turns = [{"role": t.role, "content": t.text} for t in earlier.trace]
                            memory.add(turns, user_id=user)
                            calls += 1  # mem0 v3: one extraction call per add
                        facts = [
                            m["memory"]
                            for m in memory.get_all(filters={"user_id": user}).get("results", [])
                        ]
                        seconds = round(time.perf_counter() - start, 3)
                        cost = {"calls": calls, "seconds": seconds, "reused": False}
                        slot.save({"memories": facts, "cost": cost})
                except Exception as exc:  # mem0 wraps the endpoint's failure in its own errors
                    raise InfraError(f"mem0 could not add a session: {exc}") from None
                added = len(memory.get_all(filters={"user_id": user}).get("results", []))
                self.memories[session.cell], self.added[session.cell] = memory, added
                self.costs[session.cell] = cost
            return self.memories[session.cell]

    def context(self, session: Session) -> HistoryContext:
        memory = self.memory(session)
        found = memory.search(
            session.request, filters={"user_id": f"cell{session.cell}"}, top_k=SHOWN
        )
        items = [r["memory"] for r in found.get("results", []) if r.get("memory")]
        cost = self.costs[session.cell]
        info = {
            **self.info,
            "memories": self.added[session.cell],
            "shown": len(items),
            "build_calls": cost["calls"],
            "build_seconds": cost["seconds"],
            "memory_reused": cost["reused"],
        }
        if not items:
            return HistoryContext(info=info)
        text = "What you remember about this user from earlier sessions:\n" + "\n".join(
            f"- {m}" for m in items
        )
        return HistoryContext(text, info=info)
