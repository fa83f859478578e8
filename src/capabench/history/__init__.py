"""History conditions: what an assistant is shown of earlier sessions before a held-out one.
Each condition is one registered builder; a new method is one new file."""

from capabench.history import raw as _raw  # noqa: F401  (registers none, same-user, shuffled)
from capabench.history.base import CONDITIONS, HistoryContext, condition, render_session

__all__ = ["CONDITIONS", "HistoryContext", "condition", "render_session"]
