"""The batch core both arms use (capabench.runner for CAPA sessions, capabench.swe.batch for
agent sessions): a worker recipe, its worker, and the loop that hands an executor the pending
jobs and stores what streams back. Only the calling process stores, so resume and dedup are
the same on every executor: a job whose key has a finished result is not played again, a
result that comes back twice (a retried job) is stored once, a job the infrastructure lost
becomes the arm's error record (not finished: the next batch plays it again), and a harness
bug raises once everything that finished before it is stored."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

from capabench.executors import Executor, Outcome, bug_last

J = TypeVar("J")  # a job: small and picklable (ids, not records)
R = TypeVar("R")  # its result


class Plays(Protocol):
    """What a worker plays jobs with (a CAPA Player, an agent runner), built once per worker."""

    def play(self, job: Any) -> Any: ...

    def close(self) -> None: ...


class Recipe(Protocol):
    """A picklable recipe for `Plays`: a worker elsewhere builds its own from it."""

    def build(self, threads: int, cpus: float) -> Plays: ...


@dataclass
class BatchSpec:
    """The worker recipe an executor gets: the arm's recipe, built once per worker process or
    Ray actor; in this process `here`, what the batch already built, plays instead (it holds
    clients and pools that don't travel, so it never leaves: see __getstate__)."""

    recipe: Recipe
    here: Plays | None = None

    def __getstate__(self) -> dict:
        return {**self.__dict__, "here": None}  # a worker elsewhere builds its own

    def build(self, threads: int, cpus: float) -> BatchWorker:
        if self.here is not None:
            return BatchWorker(self.here, own=False)
        return BatchWorker(self.recipe.build(threads, cpus), own=True)


class BatchWorker:
    def __init__(self, plays: Plays, *, own: bool) -> None:
        self.plays, self.own = plays, own

    def play(self, job: Any) -> Any:
        return self.plays.play(job)

    def close(self) -> None:
        if self.own:  # what the batch built here is the batch's to close
            self.plays.close()


@dataclass(frozen=True)
class Arm(Generic[J, R]):
    """How an arm keys, records and stores its jobs' results."""

    result_key: Callable[[R], Hashable]  # its job's key (what `pending` is given), read off it
    finished: Callable[[R], bool]  # a result the next batch doesn't play again
    lost: Callable[[J, str], R]  # the record of a job the infrastructure lost (and why)
    store: Callable[[R], Any]  # writes one result (this process only)


def pending(jobs: Iterable[J], key: Callable[[J], Hashable], done: set) -> list[J]:
    """The jobs without a finished result, in order."""
    return [job for job in jobs if key(job) not in done]


def play_batch(
    executor: Executor,
    spec: BatchSpec,
    jobs: Sequence[J],
    arm: Arm[J, R],
    done: set,
    *,
    in_flight: int,
    what: str = "a session",
) -> Iterator[tuple[Outcome, R]]:
    """Play `jobs` on `executor`, storing each result as it comes (the lost as the arm's
    record); yields each outcome with its stored result. `done` (the finished keys) grows as
    results finish; a result whose key is already in it is dropped."""
    for outcome in bug_last(executor.map(spec, jobs, in_flight=in_flight), what):
        result = arm.lost(outcome.job, outcome.lost) if outcome.lost else outcome.result
        key = arm.result_key(result)
        if key in done:
            continue
        arm.store(result)
        if arm.finished(result):
            done.add(key)
        yield outcome, result
