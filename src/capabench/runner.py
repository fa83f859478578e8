"""The batch layer: play held-out sessions under conditions with a model or a reference
policy, in parallel, appending each finished session to the run directory."""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import platform
import queue
import random
import signal
import threading
import time
import traceback
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal

import capabench
from capabench.benchmark import Benchmark
from capabench.conventions import REGISTRY, Shape
from capabench.history import HistoryContext, HistoryEnv, condition
from capabench.judge.sandbox import SandboxPool, bwrap_available, default_pool
from capabench.judge.spy import spy_tasks
from capabench.models import ChatModel, InfraError, ModelOptions, is_local, is_policy, make_model
from capabench.models.pricing import cost, load_prices
from capabench.records import TURN_BUDGET, Session, SessionRun, Turn
from capabench.simulate import ModelAssistant, SimulatedUser, run_session
from capabench.simulate.intent import DEFAULT_MATCHER, check_matcher, make_matcher
from capabench.simulate.loop import SessionResult
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
    user_matcher: str = DEFAULT_MATCHER  # how the simulated user reads questions (intent matcher)
    options: ModelOptions = field(default_factory=ModelOptions)
    budget: int = TURN_BUDGET
    prices: str | None = None  # a JSON price table over the built-in one
    top_k: int = 2  # sessions a retrieval condition shows
    split: Literal["heldout", "history", "both"] = "heldout"  # history: only for `none`
    processes: int = 1  # worker processes sharing the concurrency (past one interpreter's lock)


def select_sessions(bench: Benchmark, limit: int | None, split: str = "heldout") -> list[Session]:
    """Sessions of a split ("heldout", "history" or "both": each split's own). With a limit,
    the first `limit` of a fixed order: round by round through each user's sessions, the
    cells in an order shuffled once from the benchmark's seed. Every user contributes before
    any contributes twice, and growing the limit only adds sessions (a resumed run keeps
    what it played)."""
    if split == "both":
        return select_sessions(bench, limit, "heldout") + select_sessions(bench, limit, "history")
    cells = sorted({s.cell for s in bench.sessions})
    random.Random(f"capa-session-order:{bench.manifest.seed}").shuffle(cells)
    rank = {cell: i for i, cell in enumerate(cells)}
    chosen = sorted(
        (s for s in bench.sessions if s.split == split), key=lambda s: (s.index, rank[s.cell])
    )
    return chosen if limit is None else chosen[:limit]


def _drain(finished: queue.SimpleQueue) -> list:
    """Everything already in the queue, without waiting."""
    items = []
    while not finished.empty():
        items.append(finished.get())
    return items


class Player:
    """Plays one job (a session under a condition, in an epoch) with everything it needs:
    the model or policy, the history methods, the judge. No run directory: the batch layer
    stores what it returns."""

    def __init__(self, config: RunConfig, bench: Benchmark, pool: SandboxPool) -> None:
        methods = {name: condition(name) for name in config.conditions}  # typos fail first
        self.config = config
        self.bench = bench
        self.pool = pool
        self.policy = policy(config.model) if is_policy(config.model) else None
        self.model: ChatModel | None = (
            None if self.policy else make_model(config.model, config.options)
        )
        self.user_model = (
            make_model(config.user_model, config.options) if config.user_model else None
        )
        self.matcher = make_matcher(config.user_matcher, model=self.user_model)
        self._shapes: dict[str, Shape] | None = None
        self._shapes_lock = threading.Lock()
        env = HistoryEnv(bench, self.model, top_k=config.top_k)
        self.history = {name: method(env) for name, method in methods.items()}
        self.prices = load_prices(config.prices)

    def shapes(self) -> dict[str, Shape]:
        """What the reference policies read off each task (spied once, on first use)."""
        with self._shapes_lock:
            if self._shapes is None:
                self._shapes, _ = spy_tasks(load_humaneval(), self.pool)
            return self._shapes

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
                PolicyInput(session, self.shapes()[session.task_id], context, epoch)
            )
        else:
            assistant = ModelAssistant(self.model, system=system_prompt(context, self.config.budget),
                                       stop_after_code=is_local(self.config.model))  # fmt: skip
        user = SimulatedUser(
            session, pool=self.pool, expression_model=self.user_model, matcher=self.matcher
        )
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
        # An ask is needless when the evaluated user's own history already states the answer:
        # their own sessions' answers, or a method's text built from them. Other users'
        # sessions (the shuffled control) never make an ask needless.
        own = [h for h in context.sessions if h.user_id == session.user_id]
        said = "\n".join(t.text for h in own for t in h.trace if t.role == "user")
        if len(own) == len(context.sessions):
            said += "\n" + context.text
        shown = {slot.family for slot in session.slots if slot.statement in said}
        mine = [t for t in transcript.turns if t.role == "assistant"]
        asks = transcript.asked  # what the simulated user read as asking, turn by turn
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
            needless_asks=needless, first_move=first, user_questions=transcript.user_questions,
            truncated_replies=sum(c.truncated for c in completions),
            unanswered=tuple(transcript.unanswered), input_tokens=tokens_in, output_tokens=tokens_out,
            cost_usd=cost(self.config.model, tokens_in, tokens_out, self.prices), history_tokens=context.tokens,
            history_info=context.info,
            cell=session.cell, profile_id=session.profile_id,
            mechanisms=tuple(REGISTRY[s.family].mechanism for s in session.slots),
            task_id=session.task_id, duration_s=round(time.perf_counter() - start, 3),
        )  # fmt: skip


class Runner:
    """Plays every pending job of a run directory and appends each result as it finishes.

    With `processes` > 1 the jobs are played in worker processes (each with its own model
    client, judge pool and share of the concurrency) and this process only stores: one
    interpreter's lock otherwise caps how many model calls a run can keep in flight."""

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
        if config.processes < 1:
            raise ValueError("processes must be at least 1")
        for name in config.conditions:
            condition(name)  # a typo fails before any model loads
        check_matcher(config.user_matcher, has_model=bool(config.user_model))
        self.config = config
        self.bench = bench
        self.store = RunStore(run_dir)
        # Worker processes bring their own players; this one would load the model for nothing.
        self.player = (
            Player(config, bench, pool or default_pool()) if config.processes == 1 else None
        )

    def manifest(self) -> dict:
        c = self.config
        isolation = (
            self.player.pool.isolation
            if self.player
            else ("bwrap" if bwrap_available()[0] else "process")
        )
        return {
            "model": c.model, "conditions": c.conditions, "epochs": c.epochs, "limit": c.limit, "seed": c.seed,
            "decoding": "a reply ends with its first code block" if is_local(c.model) else "free text",
            "user_model": c.user_model, "user_matcher": c.user_matcher, "budget": c.budget, "benchmark_hash": self.bench.manifest.content_hash,
            "benchmark_seed": self.bench.manifest.seed, "capabench_version": capabench.__version__,
            "python": platform.python_version(), "judge_isolation": isolation,
            "base_url": c.options.base_url, "prices": c.prices, "top_k": c.top_k, "temperature": c.options.temperature, "max_tokens": c.options.max_tokens, "context": c.options.context,
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
        try:
            if self.player is None:
                self._run_processes(jobs, results, progress)
            else:
                self._run_threads(jobs, results, progress)
        finally:
            self.store.close()
        return list(results.values())

    def _run_threads(self, jobs, results, progress) -> None:
        finished: queue.SimpleQueue[Future] = queue.SimpleQueue()
        with ThreadPoolExecutor(max(1, self.config.concurrency)) as ex:
            try:
                for job in jobs:
                    ex.submit(self.player.play, *job).add_done_callback(finished.put)
                pending = len(jobs)
                while pending:
                    batch = [finished.get(), *_drain(finished)]  # stored as they finish, any order
                    pending -= len(batch)
                    self._store(
                        [f.result() for f in batch if f.exception() is None], results, progress
                    )
                    for future in batch:
                        future.result()  # a session that raised: a harness bug
            except BaseException:
                # A bug or Ctrl-C: drop the queued sessions, keep those already playing.
                ex.shutdown(wait=True, cancel_futures=True)
                ok = [f for f in _drain(finished) if not f.cancelled() and f.exception() is None]
                self._store([f.result() for f in ok], results, progress)
                raise

    def _run_processes(self, jobs, results, progress) -> None:
        n = min(self.config.processes, max(1, len(jobs)))
        ctx = multiprocessing.get_context("spawn")  # this process has threads: no fork
        todo, done, stop = ctx.Queue(), ctx.Queue(), ctx.Event()
        threads = [
            _share(self.config.concurrency, n, i) for i in range(n)
        ]  # one per call in flight
        for session, cond, epoch in jobs:
            todo.put((session.id, cond, epoch))
        for _ in range(sum(threads)):
            todo.put(None)  # one end mark per thread
        workers = [
            ctx.Process(target=_work, args=(self.config, t, self.bench, todo, done, stop), daemon=True)
            for t in threads
        ]  # fmt: skip
        # Workers start with SIGINT blocked (the mask survives exec), so a Ctrl-C while they
        # import can't print their tracebacks; each ignores it once running.
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        try:
            for w in workers:
                w.start()
        finally:
            signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
        pending, failure = len(jobs), None
        try:
            while pending:
                try:
                    batch = [done.get(timeout=1.0), *_drain(done)]
                except queue.Empty:
                    if not all(w.is_alive() for w in workers) and done.empty():
                        codes = [w.exitcode for w in workers]
                        raise RuntimeError(f"a worker process died (exit codes {codes})") from None
                    continue
                pending -= len(batch)
                trouble = self._collect(batch, results, progress)
                if trouble and failure is None:
                    failure = RuntimeError(f"in a worker process:\n{trouble[0]}")
                    stop.set()  # the workers skip what they haven't started
                    if any(kind == "fatal" for kind, _ in batch):
                        raise failure
        except BaseException:
            stop.set()
            # Keep what the sessions in flight return (a worker stops at its end marks).
            while any(w.is_alive() for w in workers) or not done.empty():
                try:
                    self._collect([done.get(timeout=0.2), *_drain(done)], results, progress)
                except queue.Empty:
                    continue
            raise
        finally:
            todo.cancel_join_thread()  # end marks a dead worker never took mustn't block exit
            for w in workers:
                w.join(timeout=10)
                if w.is_alive():
                    w.kill()
        if failure is not None:
            raise failure

    def _collect(self, batch: list[tuple[str, str]], results, progress) -> list[str]:
        """Store the results among worker messages; returns their tracebacks (harness bugs)."""
        self._store(
            [SessionRun.model_validate_json(body) for kind, body in batch if kind == "ok"],
            results,
            progress,
        )
        return [body for kind, body in batch if kind in ("error", "fatal")]

    def _store(self, good: list[SessionRun], results: dict[str, SessionRun], progress) -> None:
        if good:
            self.store.append(*good)
        for result in good:
            results[result.key] = result
            if progress:
                progress(result)


def _share(total: int, parts: int, i: int) -> int:
    """Part i of `total` split as evenly as integers allow (at least 1)."""
    return max(1, total // parts + (i < total % parts))


def _work(config: RunConfig, threads: int, bench: Benchmark, todo, done, stop) -> None:
    """A worker process: `threads` threads (and model calls in flight) play jobs until their
    end marks and send back each result as JSON (or, for a session that raised, its traceback)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides what Ctrl-C stops
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    _die_with_parent()
    judges = max(2, -(-((os.cpu_count() or 1) + 1) // config.processes))  # cores + 1 in all
    config = replace(config, processes=1, concurrency=threads,
                     options=replace(config.options, concurrency=threads))  # fmt: skip
    pool = SandboxPool(judges)
    sessions = {s.id: s for s in bench.sessions}
    try:
        player = Player(config, bench, pool)
    except BaseException:  # e.g. a condition that needs an LLM: the parent says why
        pool.close()
        done.put(("fatal", traceback.format_exc()))
        return

    def loop() -> None:
        while (job := todo.get()) is not None:
            if stop.is_set():
                done.put(("skipped", ""))
                continue
            try:
                done.put(("ok", player.play(sessions[job[0]], *job[1:]).model_dump_json()))
            except BaseException:
                done.put(("error", traceback.format_exc()))

    try:
        with ThreadPoolExecutor(threads) as ex:
            for f in [ex.submit(loop) for _ in range(threads)]:
                f.result()
    finally:
        pool.close()


def _die_with_parent() -> None:
    """Linux: this process gets SIGKILL when its parent dies (a killed run leaves no players)."""
    try:
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except OSError:
        pass
