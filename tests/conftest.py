from __future__ import annotations

import os

import pytest

from capabench.judge import SandboxPool
from capabench.judge.sandbox import bwrap_available

HAS_BWRAP, WHY_NO_BWRAP = bwrap_available()
requires_bwrap = pytest.mark.skipif(not HAS_BWRAP, reason=f"needs bubblewrap: {WHY_NO_BWRAP}")


@pytest.fixture(scope="session")
def pool():
    """The sandbox every judge test shares; closed at the end of the session."""
    pool = SandboxPool(2)
    yield pool
    pool.close()


def sandbox_uid_processes() -> list[int]:
    """Host-side view: live processes under the sandbox's submission uids (root mode).

    Workers use uid 200000 + 2k for their long-lived checker, 200000 + 2k + 1 for submissions.
    """
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/status") as fh:
                status = fh.read()
        except OSError:
            continue
        uid = int(status.split("Uid:")[1].split()[0])
        state = status.split("State:")[1].split()[0]
        if uid >= 200_000 and uid % 2 == 1 and state != "Z" and _descends_from_us(int(name)):
            found.append(int(name))
    return found


def _descends_from_us(pid: int) -> bool:
    """Ours, not another capabench's on the same host (each worker always holds one
    pre-forked submission process). Leftovers of our jobs stay in our tree: the zygote is
    their subreaper."""
    me = os.getpid()
    while pid > 1:
        if pid == me:
            return True
        try:
            with open(f"/proc/{pid}/stat") as fh:
                pid = int(fh.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            return False
    return False


@pytest.fixture(scope="session")
def built(pool, tmp_path_factory):
    """The full seed-0 benchmark, built once for the session (about a minute), and its directory."""
    from capabench.benchmark import write_benchmark
    from capabench.build.builder import build

    bench = build(0, pool=pool)
    out = tmp_path_factory.mktemp("bench") / "capa-seed0"
    write_benchmark(bench, out)
    return bench, out


@pytest.fixture(scope="module")
def swe_bundled(tmp_path_factory):
    """The bundled ask-or-guess dataset in a private cache, for one test module (its
    repositories are found through the cache, so the module runs with it set):
    (jsonl, instances)."""
    from capabench.swe.data.bundled import bundled_dataset
    from capabench.swe.data.datasets import load_instances

    mp = pytest.MonkeyPatch()
    mp.setenv("CAPABENCH_CACHE", str(tmp_path_factory.mktemp("swe-cache")))
    try:
        path = bundled_dataset()
        yield path, load_instances(path)
    finally:
        mp.undo()
