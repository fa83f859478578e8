"""Worker recipes for executor tests: importable by Ray workers (tests/ isn't)."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass

from capabench import interrupt


@dataclass
class NapSpec:
    """Workers that take `delay` seconds per job and return the job; `broken` workers can't
    start (as on a host without an extra)."""

    delay: float = 0.1
    broken: bool = False
    resources: dict | None = None  # custom resources its host must offer (Ray)

    def build(self, threads: int, cpus: float) -> NapWorker:
        if self.broken:
            raise ModuleNotFoundError("No module named 'an_extra_this_host_lacks'")
        return NapWorker(self.delay)


@dataclass
class NapWorker:
    delay: float

    def play(self, job):
        if job == "long":  # a long call that ends early only when Ctrl-C asks it to
            deadline = time.monotonic() + 60
            while not interrupt.requested():
                if time.monotonic() > deadline:
                    return "not interrupted"
                time.sleep(0.01)
            raise interrupt.Interrupted("stopped")
        time.sleep(self.delay)
        if job == "bug":
            raise KeyError("a bug in the harness")
        if job == "die":
            os._exit(9)  # the worker's process is killed
        return job

    def close(self) -> None:
        pass
