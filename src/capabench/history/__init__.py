"""History conditions: what an assistant is shown of earlier sessions before a held-out one.
Each condition is one registered method; a new method is one new file here (or in an installed
package's `capabench.history` entry point), imported on the registry's first lookup."""

from capabench.history.base import (
    CONDITIONS,
    HistoryContext,
    HistoryEnv,
    condition,
    render_session,
)

__all__ = ["CONDITIONS", "HistoryContext", "HistoryEnv", "condition", "render_session"]
