"""The `local` executor: threads in this process, or (`processes` > 1) worker processes that
each build their own worker and share the in-flight bound: one interpreter's lock otherwise
caps how many model calls a run keeps open."""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import queue
import signal
import traceback
from collections.abc import Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from capabench import interrupt
from capabench.executors.base import Outcome, WorkerSpec, WorkerStartError, register


def _drain(q) -> list:
    """Everything already in the queue, without waiting."""
    items = []
    while True:
        try:
            items.append(q.get_nowait())
        except queue.Empty:
            return items


def share(total: int, parts: int, i: int) -> int:
    """Part i of `total` split as evenly as integers allow (at least 1)."""
    return max(1, total // parts + (i < total % parts))


class LocalExecutor:
    name = "local"

    def __init__(self, processes: int = 1) -> None:
        if processes < 1:
            raise ValueError("processes must be at least 1")
        self.processes = processes

    def map(self, spec: WorkerSpec, jobs: Sequence[Any], *, in_flight: int) -> Iterator[Outcome]:
        if not jobs:
            return iter(())
        if self.processes == 1:
            return self._threads(spec, list(jobs), max(1, in_flight))
        return self._processes(spec, list(jobs), max(1, in_flight))

    def _threads(self, spec, jobs, in_flight) -> Iterator[Outcome]:
        try:
            worker = spec.build(in_flight, float(os.cpu_count() or 1))
        except Exception as exc:
            raise WorkerStartError(f"could not start a worker here: {exc}") from exc
        finished: queue.SimpleQueue[tuple[Any, Future]] = queue.SimpleQueue()
        ex = ThreadPoolExecutor(in_flight)
        try:
            for job in jobs:
                ex.submit(worker.play, job).add_done_callback(
                    lambda f, job=job: finished.put((job, f))
                )
            pending, failure = len(jobs), None
            while pending:
                try:
                    batch = [finished.get(timeout=0.5), *_drain(finished)]
                except queue.Empty:
                    continue
                pending -= len(batch)
                for job, future in batch:
                    if future.cancelled():
                        continue
                    if (exc := future.exception()) is not None:
                        if failure is None:
                            failure = Outcome(job, error=_format(exc), exception=exc)
                            ex.shutdown(wait=False, cancel_futures=True)  # start nothing new
                    else:
                        yield Outcome(job, future.result())
            if failure:
                yield failure
        except BaseException:
            # Ctrl-C (or the consumer stopped): drop the queued jobs, keep those in flight,
            # and ask the ones stuck in a long call (a local model's generation) to stop.
            interrupt.request()
            ex.shutdown(wait=True, cancel_futures=True)
            for job, future in _drain(finished):
                if not future.cancelled() and future.exception() is None:
                    yield Outcome(job, future.result())
            raise
        finally:
            ex.shutdown(wait=True, cancel_futures=True)
            interrupt.clear()
            worker.close()

    def _processes(self, spec, jobs, in_flight) -> Iterator[Outcome]:
        n = min(self.processes, len(jobs))
        ctx = multiprocessing.get_context("spawn")  # this process has threads: no fork
        todo, done, stop = ctx.Queue(), ctx.Queue(), ctx.Event()
        threads = [share(in_flight, n, i) for i in range(n)]  # one per job in flight
        cpus = (os.cpu_count() or 1) / n
        for i, job in enumerate(jobs):
            todo.put((i, job))
        for _ in range(sum(threads)):
            todo.put(None)  # one end mark per thread
        workers = [
            ctx.Process(target=_work, args=(spec, t, cpus, todo, done, stop), daemon=True)
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

        def outcomes(batch):
            nonlocal failure
            for kind, i, body in batch:
                if kind == "ok":
                    yield Outcome(jobs[i], body)
                elif kind == "error" and failure is None:
                    failure = Outcome(jobs[i], error=f"in a worker process:\n{body}")
                    stop.set()  # the workers skip what they haven't started
                elif kind == "fatal":
                    stop.set()
                    raise WorkerStartError(f"a worker process could not start:\n{body}")

        try:
            while pending:
                try:
                    batch = [done.get(timeout=1.0), *_drain(done)]
                except queue.Empty:
                    # A worker that finished its share exits 0 while others still play; one
                    # killed, or all gone with jobs unreported, is a fault.
                    codes = [w.exitcode for w in workers]
                    gone = all(c is not None for c in codes)
                    if done.empty() and (gone or any(c not in (None, 0) for c in codes)):
                        raise RuntimeError(f"a worker process died (exit codes {codes})") from None
                    continue
                pending -= len(batch)
                yield from outcomes(batch)
            if failure:
                yield failure
        except BaseException:
            stop.set()
            # Keep what the jobs in flight return (a worker stops at its end marks).
            while any(w.is_alive() for w in workers) or not done.empty():
                try:
                    batch = [done.get(timeout=0.2), *_drain(done)]
                except queue.Empty:
                    continue
                yield from outcomes([b for b in batch if b[0] == "ok"])
            raise
        finally:
            todo.cancel_join_thread()  # end marks a dead worker never took mustn't block exit
            for w in workers:
                w.join(timeout=10)
                if w.is_alive():
                    w.kill()


def _format(exc: BaseException) -> str:
    return "".join(traceback.format_exception(exc))


def _work(spec: WorkerSpec, threads: int, cpus: float, todo, done, stop) -> None:
    """A worker process: `threads` threads play jobs until their end marks and send back
    each result (or, for a job that raised, its traceback)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides what Ctrl-C stops
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    _die_with_parent()
    try:
        worker = spec.build(threads, cpus)
    except BaseException:  # e.g. a condition that needs an LLM: the parent says why
        done.put(("fatal", -1, traceback.format_exc()))
        return

    def loop() -> None:
        while (item := todo.get()) is not None:
            i, job = item
            if stop.is_set():
                done.put(("skipped", i, None))
                continue
            try:
                done.put(("ok", i, worker.play(job)))
            except BaseException:
                done.put(("error", i, traceback.format_exc()))

    try:
        with ThreadPoolExecutor(threads) as ex:
            for f in [ex.submit(loop) for _ in range(threads)]:
                f.result()
    finally:
        worker.close()


def _die_with_parent() -> None:
    """Linux: this process gets SIGKILL when its parent dies (a killed run leaves no players)."""
    try:
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except OSError:
        pass


@register("local")
def _local(*, processes: int = 1, address: str | None = None) -> LocalExecutor:
    return LocalExecutor(processes)
