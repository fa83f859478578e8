"""Run directories: a manifest, and results appended one finished session at a time."""

from capabench.store.run_dir import RunDirError, RunStore

__all__ = ["RunDirError", "RunStore"]
