"""The batch layer: play held-out sessions under conditions with a model or a reference
policy, in parallel, appending each finished session to the run directory."""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import platform
import queue
import signal
import traceback
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path

import capabench
from capabench.benchmark import Benchmark
from capabench.history import condition
from capabench.judge.sandbox import SandboxPool, bwrap_available, default_pool
from capabench.models import is_local
from capabench.player import Player, RunConfig, select_sessions
from capabench.records import Session, SessionRun
from capabench.simulate.intent import check_matcher
from capabench.store import RunStore


def _drain(finished: queue.SimpleQueue) -> list:
    """Everything already in the queue, without waiting."""
    items = []
    while not finished.empty():
        items.append(finished.get())
    return items


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
            "model": c.model,
            "conditions": c.conditions,
            "epochs": c.epochs,
            "limit": c.limit,
            "seed": c.seed,
            "decoding": "a reply ends with its first code block"
            if is_local(c.model)
            else "free text",
            "user_model": c.user_model,
            "user_matcher": c.user_matcher,
            "budget": c.budget,
            "benchmark_hash": self.bench.manifest.content_hash,
            "benchmark_seed": self.bench.manifest.seed,
            "capabench_version": capabench.__version__,
            "python": platform.python_version(),
            "judge_isolation": isolation,
            "base_url": c.options.base_url,
            "prices": c.prices,
            "top_k": c.top_k,
            "temperature": c.options.temperature,
            "max_tokens": c.options.max_tokens,
            "context": c.options.context,
        }

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
            ctx.Process(
                target=_work, args=(self.config, t, self.bench, todo, done, stop), daemon=True
            )
            for t in threads
        ]
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
    config = replace(
        config,
        processes=1,
        concurrency=threads,
        options=replace(config.options, concurrency=threads),
    )
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
