"""The batch core both arms use: the worker recipe, dedup, resume, lost jobs, harness bugs."""

from __future__ import annotations

import pickle
from dataclasses import dataclass, field

import pytest

from capabench.batch import Arm, BatchSpec, pending, play_batch
from capabench.executors import Outcome


@dataclass
class Echo:
    """Plays a job into (job, result text); remembers whether it was closed."""

    closed: bool = False

    def play(self, job: str) -> tuple[str, str]:
        return job, f"played {job}"

    def close(self) -> None:
        self.closed = True


@dataclass
class EchoRecipe:
    built: list = field(default_factory=list)

    def build(self, threads: int, cpus: float) -> Echo:
        self.built.append(Echo())
        return self.built[-1]


def test_a_spec_travels_without_what_this_process_built():
    here = Echo()
    spec = BatchSpec(EchoRecipe(), here)
    local = spec.build(2, 1.0)
    assert local.play("a") == ("a", "played a") and not spec.recipe.built
    local.close()
    assert not here.closed  # the batch's own, closed by the batch
    travelled = pickle.loads(pickle.dumps(spec))
    assert travelled.here is None
    worker = travelled.build(2, 1.0)
    assert travelled.recipe.built and worker.play("b") == ("b", "played b")
    worker.close()
    assert travelled.recipe.built[0].closed


class Replay:
    """An executor that streams back the outcomes it is given, in order."""

    name = "replay"

    def __init__(self, outcomes: list[Outcome]) -> None:
        self.outcomes = outcomes

    def map(self, spec, jobs, *, in_flight):
        yield from self.outcomes


def _arm(stored: list) -> Arm:
    return Arm(
        result_key=lambda r: r[0],
        finished=lambda r: not r[1].startswith("lost"),
        lost=lambda job, why: (job, f"lost: {why}"),
        store=stored.append,
    )


def test_results_are_stored_once_and_the_lost_as_their_record():
    stored: list = []
    done = {"old"}
    outcomes = [
        Outcome("a", result=("a", "played a")),
        Outcome("a", result=("a", "played a again")),  # a retried job that came back twice
        Outcome("old", result=("old", "played old")),  # finished before: not stored again
        Outcome("b", lost="its worker kept dying"),
    ]
    out = list(
        play_batch(Replay(outcomes), BatchSpec(EchoRecipe()), [], _arm(stored), done, in_flight=1)
    )
    assert stored == [("a", "played a"), ("b", "lost: its worker kept dying")]
    assert [r for _, r in out] == stored
    assert done == {"old", "a"}  # the lost one is played again on resume
    assert pending(["a", "b", "old", "c"], lambda j: j, done) == ["b", "c"]


def test_a_harness_bug_raises_after_what_finished_is_stored():
    stored: list = []
    outcomes = [
        Outcome("a", error="Traceback: KeyError"),
        Outcome("b", result=("b", "played b")),
    ]
    with pytest.raises(RuntimeError, match="a session raised"):
        list(
            play_batch(
                Replay(outcomes), BatchSpec(EchoRecipe()), [], _arm(stored), set(), in_flight=1
            )
        )
    assert stored == [("b", "played b")]
