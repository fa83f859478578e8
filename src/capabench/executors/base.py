"""What an executor is: given a recipe for a warm worker and a list of jobs, play the jobs
and stream back each outcome as it finishes. The caller (the batch layer) owns the store:
executors never write results, so every executor resumes, deduplicates and commits alike."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from capabench.registry import Registry


class Worker(Protocol):
    def play(self, job: Any) -> Any:
        """One job's result (picklable: it may travel between processes or machines)."""
        ...

    def close(self) -> None: ...


class WorkerSpec(Protocol):
    """A picklable recipe for a worker, built once per worker slot (a process, a Ray actor)
    and kept warm: its model client, its judge pool."""

    def build(self, threads: int, cpus: float) -> Worker:
        """A worker for `threads` jobs at once on `cpus` cores (its share of the host: size
        its process pools by it); raises when this host can't play (a missing extra, no
        sandbox): the executor reports that, naming the host."""
        ...


@dataclass(frozen=True)
class Outcome:
    """One job's end: its result, or the traceback of a harness bug (`error`), or why the
    infrastructure lost it past the retry bound (`lost`: a worker or node kept dying)."""

    job: Any
    result: Any = None
    error: str = ""
    lost: str = ""
    node: str = ""  # where it was played (a Ray node id; "" locally)
    exception: BaseException | None = None  # the bug itself, when it was raised in this process


def bug_last(outcomes: Iterable[Outcome], what: str = "a job") -> Iterator[Outcome]:
    """The outcomes with a result or a loss, as they come; then the first harness bug among
    them raised (itself when it was raised in this process), so that the caller has stored
    everything that finished before it."""
    failure = None
    for outcome in outcomes:
        if not outcome.error:
            yield outcome
        elif failure is None:
            failure = outcome.exception or RuntimeError(
                f"{what} raised (a harness bug):\n{outcome.error}"
            )
    if failure is not None:
        raise failure


class ExecutorError(RuntimeError):
    """The executor can't play: said in one line by the CLI, no traceback."""


class WorkerStartError(ExecutorError):
    """A worker could not be built (on a named host): nothing can be played there."""


class ClusterUnavailable(ExecutorError):
    """The executor's engine isn't installed, or its cluster can't be reached."""


class Executor(Protocol):
    name: str

    def map(self, spec: WorkerSpec, jobs: Sequence[Any], *, in_flight: int) -> Iterator[Outcome]:
        """Play every job, at most `in_flight` at once (a global bound: e.g. the calls one
        API endpoint may have open), yielding outcomes as they finish, in any order. After a
        harness bug the executor starts nothing new, yields what was in flight, then the
        bug. On Ctrl-C it does the same and raises KeyboardInterrupt."""
        ...


# (processes, address) -> the executor. An executor is one module of this package, or of an
# installed package's `capabench.executors` entry point, whose factory calls `register(name)`.
Factory = Callable[..., Executor]
EXECUTORS: Registry[Factory] = Registry(
    "executor", package="capabench.executors", group="capabench.executors"
)


def register(name: str):
    """Register a factory taking the keywords `processes` (worker processes asked for) and
    `address` (a cluster's, or None) and returning the executor."""
    return EXECUTORS.register(name)
