"""The batch layer: play held-out sessions under conditions with a model or a reference
policy, in parallel, appending each finished session to the run directory."""

from __future__ import annotations

import platform
import queue
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import capabench
from capabench.build.builder import Benchmark, spy_tasks
from capabench.conventions import REGISTRY, Shape
from capabench.history import HistoryContext, HistoryEnv, condition
from capabench.judge.sandbox import SandboxPool, default_pool
from capabench.models import ChatModel, InfraError, ModelOptions, make_model
from capabench.models.pricing import cost, load_prices
from capabench.records import Session, SessionRun, Turn
from capabench.simulate import (
    ModelAssistant,
    SimulatedUser,
    questions,
    run_session,
)
from capabench.simulate.loop import TURN_BUDGET, SessionResult
from capabench.simulate.policies import PolicyInput, policy
from capabench.simulate.prompt import system_prompt
from capabench.store import RunStore
from capabench.tasks import load_humaneval


@dataclass
class RunConfig:
    model: str
    conditions: list[str]
    limit: int | None = None
    epochs: int = 1
    concurrency: int = 4
    seed: int = 0
    user_model: str | None = None
    options: ModelOptions = field(default_factory=ModelOptions)
    budget: int = TURN_BUDGET
    prices: str | None = None  # a JSON price table over the built-in one
    top_k: int = 2  # sessions a retrieval condition shows
    split: Literal["heldout", "history", "both"] = "heldout"  # history: only for `none`


def select_sessions(bench: Benchmark, limit: int | None, split: str = "heldout") -> list[Session]:
    """Sessions of a split ("heldout", "history" or "both": each split's own spread); with a
    limit, an even spread across cells (deterministic)."""
    if split == "both":
        return select_sessions(bench, limit, "heldout") + select_sessions(bench, limit, "history")
    chosen = sorted(
        (s for s in bench.sessions if s.split == split), key=lambda s: (s.index, s.cell)
    )
    if limit is None or limit >= len(chosen):
        return chosen
    step = len(chosen) / limit
    return [chosen[int(i * step)] for i in range(limit)]


def _drain(finished: queue.SimpleQueue) -> list:
    """Everything already in the queue, without waiting."""
    items = []
    while not finished.empty():
        items.append(finished.get())
    return items


class Runner:
    def __init__(
        self,
        config: RunConfig,
        bench: Benchmark,
        run_dir: str | Path,
        *,
        pool: SandboxPool | None = None,
    ) -> None:
        if config.split != "heldout" and config.conditions != ["none"]:
            raise ValueError("the history split is played without history only (--conditions none)")
        methods = {
            name: condition(name) for name in config.conditions
        }  # a typo fails before any model loads
        self.config = config
        self.bench = bench
        self.store = RunStore(run_dir)
        self.pool = pool or default_pool()
        self.baseline = config.model.startswith("baseline")
        self.policy = policy(config.model) if self.baseline else None
        self.model: ChatModel | None = (
            None if self.baseline else make_model(config.model, config.options)
        )
        self.user_model = (
            make_model(config.user_model, config.options) if config.user_model else None
        )
        self._shapes: dict[str, Shape] | None = None
        env = HistoryEnv(bench, self.model, top_k=config.top_k)
        self.history = {name: method(env) for name, method in methods.items()}
        self.prices = load_prices(config.prices)

    def manifest(self) -> dict:
        c = self.config
        return {
            "model": c.model, "conditions": c.conditions, "epochs": c.epochs, "limit": c.limit, "seed": c.seed,
            "user_model": c.user_model, "budget": c.budget, "benchmark_hash": self.bench.manifest.content_hash,
            "benchmark_seed": self.bench.manifest.seed, "capabench_version": capabench.__version__,
            "python": platform.python_version(), "judge_isolation": self.pool.isolation,
            "base_url": c.options.base_url, "prices": c.prices, "top_k": c.top_k, "temperature": c.options.temperature, "max_tokens": c.options.max_tokens,
        }  # fmt: skip

    def jobs(self, done: set[str] | None = None) -> list[tuple[Session, str, int]]:
        sessions = select_sessions(self.bench, self.config.limit, self.config.split)
        done = self.store.done() if done is None else done
        return [
            (s, cond, epoch)
            for epoch in range(self.config.epochs)
            for cond in self.config.conditions
            for s in sessions
            if f"{s.id}|{cond}|{epoch}" not in done
        ]

    def run(self, progress: Callable[[SessionRun], None] | None = None) -> list[SessionRun]:
        """Play every pending job; returns all results of the run directory, old and new."""
        self.store.open(self.manifest())
        results = {r.key: r for r in self.store.results()}
        jobs = self.jobs(self.store.done(results.values()))
        if self.baseline and jobs:
            self._shapes, _ = spy_tasks(load_humaneval(), self.pool)
        finished: queue.SimpleQueue[Future] = queue.SimpleQueue()
        with ThreadPoolExecutor(max(1, self.config.concurrency)) as ex:
            try:
                for job in jobs:
                    ex.submit(self.play, *job).add_done_callback(finished.put)
                pending = len(jobs)
                while pending:
                    batch = [finished.get(), *_drain(finished)]  # stored as they finish, any order
                    pending -= len(batch)
                    self._store(batch, results, progress)
            except BaseException:
                # A bug or Ctrl-C: drop the queued sessions, keep those already playing.
                ex.shutdown(wait=True, cancel_futures=True)
                ok = [f for f in _drain(finished) if not f.cancelled() and f.exception() is None]
                self._store(ok, results, progress)
                raise
            finally:
                self.store.close()
        return list(results.values())

    def _store(self, batch: list[Future], results: dict[str, SessionRun], progress) -> None:
        """Store the batch's results, then raise the first error of a session that raised one."""
        good = [f.result() for f in batch if f.exception() is None]
        if good:
            self.store.append(*good)
        for result in good:
            results[result.key] = result
            if progress:
                progress(result)
        for future in batch:
            future.result()

    def play(self, session: Session, cond: str, epoch: int) -> SessionRun:
        start = time.perf_counter()
        transcript = SessionResult(turns=[Turn(role="user", text=session.request)])
        try:
            context = self.history[cond].context(session)  # methods may call the model too
        except InfraError as exc:
            return self._record(session, cond, epoch, start, HistoryContext(), transcript, None,
                                "infra_error", f"history ({cond}): {exc}")  # fmt: skip
        if self.policy is not None:
            assistant = self.policy(
                PolicyInput(session, self._shapes[session.task_id], context, epoch)
            )
        else:
            assistant = ModelAssistant(
                self.model, system=system_prompt(context, self.config.budget)
            )
        user = SimulatedUser(session, pool=self.pool, expression_model=self.user_model)
        status, error = "completed", ""
        try:
            transcript = run_session(
                session, assistant, user, budget=self.config.budget, into=transcript
            )
        except InfraError as exc:
            status, error = "infra_error", str(exc)
        return self._record(
            session, cond, epoch, start, context, transcript, assistant, status, error
        )

    def _record(
        self, session, cond, epoch, start, context, transcript, assistant, status, error
    ) -> SessionRun:
        completions = getattr(assistant, "completions", [])
        tokens_in = sum(c.input_tokens for c in completions)
        tokens_out = sum(c.output_tokens for c in completions)
        # The history "held the answer" to a convention when a user turn in it states this
        # user's alternative (another user's answer about the same family doesn't count).
        said = "\n".join(t.text for h in context.sessions for t in h.trace if t.role == "user")
        shown = {slot.family for slot in session.slots if slot.statement in said}
        mine = [t for t in transcript.turns if t.role == "assistant"]
        asks = [bool(questions(t.text)) for t in mine]
        first = "neither"
        if mine:
            first = {(True, True): "both", (True, False): "ask", (False, True): "submit"}.get(
                (asks[0], mine[0].verdict is not None), "neither"
            )
        user_turns = [t for t in transcript.turns[1:] if t.role == "user"]
        needless = sum(1 for t in user_turns if set(t.revealed) & shown)
        return SessionRun(
            key=f"{session.id}|{cond}|{epoch}", session_id=session.id, split=session.split, condition=cond, epoch=epoch,
            model=self.config.model, status=status, error=error, solved_turn=transcript.solved_turn,
            turns=tuple(transcript.turns), asks=sum(asks), submissions=sum(t.verdict is not None for t in mine),
            needless_asks=needless, first_move=first, input_tokens=tokens_in, output_tokens=tokens_out,
            cost_usd=cost(self.config.model, tokens_in, tokens_out, self.prices), history_tokens=context.tokens,
            history_info=context.info,
            cell=session.cell, profile_id=session.profile_id,
            mechanisms=tuple(REGISTRY[s.family].mechanism for s in session.slots),
            task_id=session.task_id, duration_s=round(time.perf_counter() - start, 3),
        )  # fmt: skip
