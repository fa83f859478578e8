"""The `ray` executor: jobs played by Ray actors (one per worker slot, spread over the
cluster's nodes, each keeping its worker warm), results streamed back to the driver, which
alone stores them. The driver bounds the jobs in flight over the whole cluster, so more nodes
never multiply the request rate against an API. An actor that dies (its node lost, its
process killed) is replaced and its jobs are retried elsewhere, up to `attempts` times; past
that a job is reported lost, never dropped silently. Needs the `ray` extra."""

from __future__ import annotations

import math
import socket
import time
import traceback
from collections import deque
from collections.abc import Iterator, Sequence
from typing import Any

from capabench.executors.base import (
    ClusterUnavailable,
    Outcome,
    WorkerSpec,
    WorkerStartError,
    register,
)

START_TIMEOUT_S = 300.0  # a worker builds its model client and judge pool
CHUNK_S = 0.1  # quick jobs travel in chunks of about this much work
MAX_CHUNK = 32


class _Slot:
    """The actor body: one worker, built once, playing up to `threads` jobs at once."""

    def __init__(self, spec: WorkerSpec, threads: int) -> None:
        import ray

        context = ray.get_runtime_context()
        self.node = context.get_node_id()
        self.worker, self.start_error = None, ""
        try:
            self.worker = spec.build(threads, context.get_assigned_resources().get("CPU", 1.0))
        except BaseException:
            self.start_error = traceback.format_exc()

    def ready(self) -> tuple[str, str]:
        return self.node, self.start_error

    def play(self, jobs: list) -> tuple[str, list[tuple[object, str]], float]:
        """Jobs one after another in one of the actor's threads: their results (or each
        failing job's traceback), and the seconds they took."""
        start, done = time.perf_counter(), []
        for job in jobs:
            try:
                done.append((self.worker.play(job), ""))
            except Exception:
                done.append((None, traceback.format_exc()))
                break  # a harness bug: the rest of the chunk goes back unplayed
        return self.node, done, time.perf_counter() - start

    def close(self) -> None:
        if self.worker is not None:
            self.worker.close()


def _ray():
    try:
        import ray
    except ImportError:
        raise ClusterUnavailable(
            "--executor ray needs Ray: pip install 'capabench[ray]' (on the driver and every node)"
        ) from None
    return ray


def _probe(address: str | None, timeout_s: float = 10.0) -> None:
    """A HOST:PORT that doesn't answer fails in seconds (Ray itself keeps retrying), and so
    does `auto` when the cluster it names (RAY_ADDRESS, or the last one started here) is gone."""
    if not address or "://" in address:
        return
    given = address
    if address == "auto":
        from ray._private.services import canonicalize_bootstrap_address

        try:
            address = canonicalize_bootstrap_address("auto") or ""
        except Exception as exc:  # Ray's own lookup: its wording says what is missing
            raise ClusterUnavailable(f"can't find a Ray cluster for auto: {exc}") from None
        if not address:
            raise ClusterUnavailable("no running Ray cluster found for --ray-address auto")
    host, _, port = address.rpartition(":")
    if not port.isdigit():
        raise ClusterUnavailable(f"--ray-address {address!r}: expected auto or HOST:PORT")
    try:
        socket.create_connection((host or "127.0.0.1", int(port)), timeout=timeout_s).close()
    except (OSError, ValueError) as exc:
        where = address if given == address else f"{given}: {address}"
        raise ClusterUnavailable(f"can't reach the Ray cluster ({where}): {exc}") from None


class RayExecutor:
    name = "ray"

    def __init__(
        self, address: str | None = None, *, slots: int | None = None, attempts: int = 3
    ) -> None:
        self.address = address  # None: start a local Ray instance for this run, then stop it
        self.slots = slots  # actors; default one per CPU of the cluster
        self.attempts = attempts

    def map(self, spec: WorkerSpec, jobs: Sequence[Any], *, in_flight: int) -> Iterator[Outcome]:
        if not jobs:
            return iter(())
        return self._map(spec, list(jobs), max(1, in_flight))

    def _connect(self) -> bool:
        """Connect (or start a local instance); True when this call started Ray."""
        ray = _ray()
        if ray.is_initialized():
            return False
        _probe(self.address)
        try:
            ray.init(
                address=self.address,
                include_dashboard=False,
                log_to_driver=False,
                logging_level="ERROR",
            )
        except (ConnectionError, RuntimeError, ValueError) as exc:
            where = self.address or "a new local instance"
            raise ClusterUnavailable(f"can't reach the Ray cluster ({where}): {exc}") from None
        return self.address is None

    def _map(self, spec, jobs, in_flight) -> Iterator[Outcome]:
        ray = _ray()
        started = self._connect()
        actors: list = []
        try:
            spawn, slots, threads = self._spawner(ray, spec, in_flight, len(jobs))
            actors += [spawn() for _ in range(slots)]
            self._check_started(ray, actors)
            yield from self._dispatch(ray, spawn, actors, jobs, in_flight, threads)
        finally:
            for actor in actors:
                ray.kill(actor)
            if started:
                ray.shutdown()

    def _spawner(self, ray, spec, in_flight: int, jobs: int):
        """How to start one actor, how many to start and the threads each plays with: one
        actor per CPU of the cluster (or per unit of the custom resources the recipe names,
        e.g. {"docker": 1}), no more than the jobs in flight."""
        cluster = ray.cluster_resources()
        cpus = int(cluster.get("CPU", 1)) or 1
        resources = dict(getattr(spec, "resources", None) or {})
        if missing := [r for r in resources if not cluster.get(r)]:
            raise WorkerStartError(
                f"no node of the Ray cluster offers {', '.join(missing)} "
                f"(ray start --resources '{{\"{missing[0]}\": 1}}' on a node that has it)"
            )
        room = min((int(cluster[r] // n) for r, n in resources.items()), default=cpus)
        slots = max(1, min(self.slots or cpus, room, in_flight, jobs))
        threads = math.ceil(in_flight / slots)
        shared = ray.put(spec)  # one copy in the object store, not one per actor
        remote = ray.remote(_Slot)

        def spawn():
            return remote.options(
                num_cpus=min(1, cpus / slots),
                max_concurrency=threads,
                scheduling_strategy="SPREAD",
                resources=resources,
            ).remote(shared, threads)

        return spawn, slots, threads

    def _check_started(self, ray, actors) -> None:
        try:
            ready = ray.get([a.ready.remote() for a in actors], timeout=START_TIMEOUT_S)
        except ray.exceptions.GetTimeoutError:
            raise WorkerStartError(
                f"{len(actors)} Ray workers did not start within {START_TIMEOUT_S:.0f} s "
                "(too few free CPUs on the cluster?)"
            ) from None
        for node, error in ready:
            if error:  # the exception's own line says what is missing (an extra, bubblewrap)
                why = error.strip().splitlines()[-1]
                raise WorkerStartError(f"a worker on Ray node {node} could not start: {why}")

    def _dispatch(self, ray, spawn, actors, jobs, in_flight, threads) -> Iterator[Outcome]:
        """Chunks of jobs to actor threads, at most `in_flight` chunks playing (each plays
        its jobs one at a time, so at most `in_flight` jobs play at once). Quick jobs go in
        chunks sized to about CHUNK_S of work (Ray's per-call cost would otherwise dominate a
        reference policy's sessions); slow ones (model calls) one by one."""
        queue = deque((job, 1) for job in jobs)
        load = {a: 0 for a in actors}  # live actors and their chunks in flight
        starting: dict = {}  # ready ref -> a replacement actor, used once it has started
        flying: dict = {}  # ref -> (chunk of (job, attempt), actor)
        failure, stopping = None, False
        alone_since = None  # when the last live actor was lost
        per_job = None  # seconds per job, as measured so far

        def chunk_size() -> int:
            if not per_job:
                return 1
            fair = math.ceil(len(queue) / in_flight)  # the tail: every thread keeps work
            return max(1, min(MAX_CHUNK, int(CHUNK_S / per_job), fair))

        def submit() -> None:
            while queue and not stopping and len(flying) < in_flight and load:
                actor = min(load, key=load.get)
                if load[actor] >= threads:
                    return
                chunk = [queue.popleft() for _ in range(min(chunk_size(), len(queue)))]
                flying[actor.play.remote([job for job, _ in chunk])] = (chunk, actor)
                load[actor] += 1

        def replace(actor) -> None:
            """A lost actor's place goes to a fresh one, wherever the cluster has room (it
            may never start if the lost node was the room: the others carry on)."""
            if actor in load:
                del load[actor]
                fresh = spawn()
                actors.append(fresh)
                starting[fresh.ready.remote()] = fresh

        def settle(ref) -> list[Outcome]:
            nonlocal failure, stopping, per_job
            if ref in starting:
                actor = starting.pop(ref)
                try:
                    _, error = ray.get(ref)
                except ray.exceptions.RayError:
                    error = "lost while starting"
                if not error:
                    load[actor] = 0
                return []
            chunk, actor = flying.pop(ref)
            if actor in load:
                load[actor] -= 1
            try:
                node, done, seconds = ray.get(ref)
            except ray.exceptions.RayError as exc:  # the actor, its process or node is gone
                replace(actor)
                lost = []
                for job, attempt in reversed(chunk):
                    if attempt >= self.attempts:
                        why = f"{type(exc).__name__} on {attempt} attempts: {exc}"
                        lost.append(Outcome(job, lost=why))
                    else:
                        queue.appendleft((job, attempt + 1))
                return lost
            if done:
                rate = seconds / len(done)
                per_job = rate if per_job is None else 0.8 * per_job + 0.2 * rate
            out = []
            for (job, _), (result, error) in zip(chunk, done, strict=False):
                if error:  # the job itself raised: a harness bug
                    if failure is None:
                        failure, stopping = Outcome(job, error=error), True
                else:
                    out.append(Outcome(job, result, node=node))
            for item in reversed(chunk[len(done) :]):  # after a bug: unplayed
                queue.appendleft(item)
            return out

        try:
            submit()
            while flying or (queue and not stopping):
                ready, _ = ray.wait([*flying, *starting], num_returns=1, timeout=1.0)
                for ref in ready:
                    yield from settle(ref)
                submit()
                if load:
                    alone_since = None
                elif alone_since is None:
                    alone_since = time.monotonic()
                elif time.monotonic() - alone_since > START_TIMEOUT_S:
                    raise WorkerStartError(
                        f"every Ray worker was lost and none restarted within {START_TIMEOUT_S:.0f} s"
                    )
            if failure:
                yield failure
        except KeyboardInterrupt:
            # Start nothing new; keep what is in flight (a second Ctrl-C leaves at once).
            stopping = True
            deadline = time.monotonic() + 60
            while flying and time.monotonic() < deadline:
                ready, _ = ray.wait(list(flying), num_returns=1, timeout=1.0)
                for ref in ready:
                    yield from (o for o in settle(ref) if o.result is not None)
            raise


@register("ray")
def _make(*, processes: int = 1, address: str | None = None) -> RayExecutor:
    return RayExecutor(address)
