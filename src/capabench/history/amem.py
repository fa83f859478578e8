"""`amem`: A-mem (Xu et al., "A-mem: agentic memory for LLM agents", NeurIPS 2025),
re-implemented on capabench's model client and embedder.

Note construction: each resolved session of the user becomes a note whose keywords, tags
and contextual description the LLM writes. Link generation: a new note is compared with
its nearest earlier notes by embedding, and the LLM decides which it relates to. Memory
evolution: in the same answer the LLM may rewrite those neighbours' context and tags,
which are then re-embedded. Retrieval: the top-k notes for the new request by cosine
similarity, together with the notes linked to them.

Deviations from the paper: one note per resolved session (the paper writes one per
interaction turn); the memory is built once per user, from the five resolved sessions in
order; an LLM answer that is not the asked-for JSON leaves that step empty (counted in the
result's history info) instead of being retried. A built memory is saved in the run
directory (history.memory_store) and reused by later runs: no model call, the notes'
vectors recomputed by the embedder.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field

import numpy as np

from capabench.history.base import (
    HistoryContext,
    HistoryEnv,
    register,
    render_session,
)
from capabench.history.embed import DEFAULT_EMBEDDER, HASHING, embedder
from capabench.history.memory_store import memory_slot
from capabench.models.base import JSON_OBJECT, Message
from capabench.models.json_answer import json_answer
from capabench.records import Session

NOTE_PROMPT = """Generate a structured analysis of this memory (an earlier coding session with a user).
Identify the most salient keywords, a one-sentence context (the topic and anything the user
expects), and broad tags. Answer with JSON only:
{{"keywords": ["..."], "context": "...", "tags": ["..."]}}

Memory:
{content}"""

LINK_PROMPT = """You are an agentic memory evolution agent. A new memory note arrived; below are its nearest
existing notes. Decide which existing notes it should be linked to (they share the user's
habits, conventions or topic), and whether any neighbour's context or tags should be updated
in the light of the new note. Answer with JSON only:
{{"links": [<neighbour numbers>], "updates": [{{"neighbour": <number>, "context": "...", "tags": ["..."]}}]}}

New note:
{new}

Neighbours:
{neighbours}"""


@dataclass
class Note:
    content: str
    session_id: str
    keywords: list[str] = field(default_factory=list)
    tags: list[str] = field(default_factory=list)
    context: str = ""
    links: set[int] = field(default_factory=set)
    vector: np.ndarray | None = None

    def summary(self) -> str:
        return f"keywords: {', '.join(self.keywords)}; tags: {', '.join(self.tags)}; context: {self.context}"


def _strings(value) -> list[str]:
    return [str(v) for v in value][:12] if isinstance(value, list) else []


class Memory:
    """One user's A-mem memory."""

    def __init__(self, model, embed, neighbours: int = 3) -> None:
        self.model, self.embed, self.neighbours = model, embed, neighbours
        self.notes: list[Note] = []
        self.unparsed = 0
        self.calls = self.tokens_in = self.tokens_out = 0
        self.seconds = 0.0
        self.reused = False

    def saved(self) -> dict:
        """What reusing this memory needs (vectors are recomputed: no model call), and what
        building it cost."""
        notes = [
            {**{k: v for k, v in vars(n).items() if k not in ("vector", "links")},
             "links": sorted(n.links)}
            for n in self.notes
        ]  # fmt: skip
        cost = {"calls": self.calls, "input_tokens": self.tokens_in}
        cost |= {"output_tokens": self.tokens_out, "seconds": round(self.seconds, 3)}
        return {"notes": notes, "unparsed": self.unparsed, "cost": cost}

    @classmethod
    def restored(cls, model, embed, saved: dict) -> Memory:
        memory = cls(model, embed)
        for item in saved["notes"]:
            note = Note(**{**item, "links": set(item["links"])})
            note.vector = memory._vector(note)
            memory.notes.append(note)
        cost = saved["cost"]
        memory.unparsed, memory.calls = saved["unparsed"], cost["calls"]
        memory.tokens_in, memory.tokens_out = cost["input_tokens"], cost["output_tokens"]
        memory.seconds, memory.reused = cost["seconds"], True
        return memory

    def _ask(self, prompt: str) -> dict | None:
        reply = self.model.complete([Message(role="user", content=prompt)], JSON_OBJECT)
        self.calls += 1
        self.tokens_in += reply.input_tokens
        self.tokens_out += reply.output_tokens
        parsed = json_answer(reply.text, anywhere=True)
        self.unparsed += parsed is None
        return parsed

    def _vector(self, note: Note) -> np.ndarray:
        return self.embed.encode([f"{note.content}\n{note.summary()}"])[0]

    def add(self, content: str, session_id: str) -> None:
        meta = self._ask(NOTE_PROMPT.format(content=content)) or {}
        note = Note(
            content,
            session_id,
            _strings(meta.get("keywords")),
            _strings(meta.get("tags")),
            str(meta.get("context", ""))[:500],
        )
        note.vector = self._vector(note)
        nearest = self.nearest(note.vector, self.neighbours)
        if nearest:
            shown = "\n".join(f"{n + 1}. {self.notes[i].summary()}" for n, i in enumerate(nearest))
            decision = self._ask(LINK_PROMPT.format(new=note.summary(), neighbours=shown)) or {}
            for number in (
                decision.get("links", []) if isinstance(decision.get("links"), list) else []
            ):
                if isinstance(number, int) and 1 <= number <= len(nearest):
                    note.links.add(nearest[number - 1])
            for update in (
                decision.get("updates", []) if isinstance(decision.get("updates"), list) else []
            ):
                number = update.get("neighbour") if isinstance(update, dict) else None
                if isinstance(number, int) and 1 <= number <= len(nearest):
                    old = self.notes[nearest[number - 1]]
                    old.context = str(update.get("context") or old.context)[:500]
                    old.tags = _strings(update.get("tags")) or old.tags
                    old.vector = self._vector(old)  # evolved: found by its new meaning
        index = len(self.notes)
        self.notes.append(note)
        for other in note.links:
            self.notes[other].links.add(index)

    def nearest(self, vector: np.ndarray, k: int) -> list[int]:
        scores = [float(vector @ n.vector) for n in self.notes]
        return sorted(range(len(scores)), key=lambda i: (-scores[i], i))[:k]

    def retrieve(self, query: str, k: int) -> list[int]:
        """Top-k notes for the query, then the notes linked to them (in that order)."""
        top = self.nearest(self.embed.encode([query])[0], k)
        linked = [j for i in top for j in sorted(self.notes[i].links) if j not in top]
        return list(dict.fromkeys(top + linked))


@register("amem")
class AMem:
    def __init__(self, env: HistoryEnv) -> None:
        self.env = env
        self.model = env.need_model("amem")
        name = env.settings.get("embedder") or _available_embedder()
        self.embed = embedder(name)
        self.memories: dict[int, Memory] = {}
        self.locks: dict[int, threading.Lock] = {}
        self.guard = threading.Lock()

    def memory(self, session: Session) -> Memory:
        with self.guard:
            lock = self.locks.setdefault(session.cell, threading.Lock())
        with lock:  # each user's memory is built once, by one thread, and kept
            if session.cell not in self.memories:
                history = self.env.history_of(session)
                settings = {"embedder": self.embed.name}
                slot = memory_slot(self.env.memories, "amem", settings, self.model.name, history)
                saved = slot.load()
                if saved is not None:
                    memory = Memory.restored(self.model, self.embed, saved)
                else:
                    memory = Memory(self.model, self.embed)
                    start = time.perf_counter()
                    for number, earlier in enumerate(history, 1):
                        memory.add(render_session(earlier, number), earlier.id)
                    memory.seconds = time.perf_counter() - start
                    slot.save(memory.saved())
                self.memories[session.cell] = memory
            return self.memories[session.cell]

    def context(self, session: Session) -> HistoryContext:
        memory = self.memory(session)
        if not memory.notes:
            return HistoryContext()
        chosen = memory.retrieve(session.request, self.env.top_k)
        blocks = [
            f"Memory note ({memory.notes[i].summary()})\n{memory.notes[i].content}" for i in chosen
        ]
        text = "Memory notes from this user's earlier sessions:\n\n" + "\n\n".join(blocks)
        info = {
            "method": "a-mem",
            "embedder": self.embed.name,
            "notes": len(memory.notes),
            "retrieved": [memory.notes[i].session_id for i in chosen],
            "links": sum(len(n.links) for n in memory.notes) // 2,
            "unparsed_llm_answers": memory.unparsed,
            "build_calls": memory.calls,
            "build_tokens_in": memory.tokens_in,
            "build_tokens_out": memory.tokens_out,
            "build_seconds": round(memory.seconds, 3),
            "memory_reused": memory.reused,
        }
        return HistoryContext(text, tuple(memory.notes[i].session_id for i in chosen), info=info)


def _available_embedder() -> str:
    try:
        import sentence_transformers  # noqa: F401

        return DEFAULT_EMBEDDER
    except ImportError:
        return HASHING
