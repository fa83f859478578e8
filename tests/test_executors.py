"""The local executor, threads and worker processes: every job's outcome once, a harness bug
reported after what was in flight, a worker that can't start or dies said plainly."""

from __future__ import annotations

from collections import Counter

import pytest

from capabench.executors import WorkerStartError, make_executor
from capabench.testing.executors import NapSpec


@pytest.mark.parametrize("processes", [1, 2])
def test_every_job_comes_back_once(processes):
    jobs = [f"job-{i}" for i in range(9)]
    outcomes = list(make_executor(processes=processes).map(NapSpec(0.01), jobs, in_flight=3))
    assert Counter(o.result for o in outcomes) == Counter(jobs)


def test_a_worker_process_that_finished_its_share_is_no_fault():
    """One process ends (its end marks taken) while the other still plays a slow last job."""
    jobs = ["a", "b", "c"]
    outcomes = list(make_executor(processes=2).map(NapSpec(1.5), jobs, in_flight=2))
    assert sorted(o.result for o in outcomes) == jobs


@pytest.mark.parametrize("processes", [1, 2])
def test_a_bug_is_reported_after_what_was_in_flight(processes):
    jobs = ["a", "bug", *(f"job-{i}" for i in range(20))]
    outcomes = list(make_executor(processes=processes).map(NapSpec(0.05), jobs, in_flight=2))
    assert "a bug in the harness" in outcomes[-1].error
    assert len(outcomes) < len(jobs)  # the queue was dropped, not played


def test_a_killed_worker_process_is_a_fault():
    with pytest.raises(RuntimeError, match="worker process died"):
        list(make_executor(processes=2).map(NapSpec(0.05), ["a", "die", "b"], in_flight=2))


@pytest.mark.parametrize("processes", [1, 2])
def test_a_worker_that_cannot_start_says_why(processes):
    with pytest.raises(WorkerStartError, match="an_extra_this_host_lacks"):
        list(make_executor(processes=processes).map(NapSpec(broken=True), ["a"], in_flight=1))


def test_an_unknown_executor_is_named():
    with pytest.raises(ValueError, match="unknown executor 'slurm'"):
        make_executor("slurm")


def test_ctrl_c_asks_a_long_call_in_flight_to_stop_and_keeps_what_finished():
    from capabench import interrupt

    stream = make_executor("local").map(NapSpec(delay=0.01), ["a", "long"], in_flight=2)
    assert next(stream).result == "a"
    with pytest.raises(KeyboardInterrupt):
        stream.throw(KeyboardInterrupt)  # returns only once the long call has stopped
    assert not interrupt.requested()  # the next run starts clean
