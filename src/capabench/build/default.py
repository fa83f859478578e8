"""The default benchmark: built on first use and cached under its source fingerprint."""

from __future__ import annotations

from capabench.benchmark import Benchmark, default_benchmark_path, load_benchmark, write_benchmark
from capabench.build.builder import Progress, build
from capabench.judge.sandbox import SandboxPool
from capabench.paths import one_at_a_time


def default_benchmark(
    seed: int = 0, *, pool: SandboxPool | None = None, progress: Progress | None = None
) -> Benchmark:
    """The benchmark for `seed`, built on first use and cached by source fingerprint."""
    path = default_benchmark_path(seed)
    if not (path / "manifest.json").is_file():
        # One builder at a time: a second process waits and then finds it built (two
        # writers would each replace the other's directory under a reader's feet).
        with one_at_a_time(path.parent / f".{path.name}.lock"):
            if not (path / "manifest.json").is_file():
                write_benchmark(build(seed, pool=pool, progress=progress), path)
    return load_benchmark(path)
