"""History conditions: what an assistant is shown of earlier sessions before a held-out one.
Each condition is one registered method; a new method is one new file."""

from capabench.history import amem as _amem  # noqa: F401  (registers amem)
from capabench.history import gated as _gated  # noqa: F401  (registers gated, gated-llm)
from capabench.history import mem0 as _mem0  # noqa: F401  (registers mem0)
from capabench.history import raw as _raw  # noqa: F401  (none, same-user, shuffled, same-user-k0..k5)
from capabench.history import retrieval as _retrieval  # noqa: F401  (retrieval, retrieval-dense)
from capabench.history.base import (
    CONDITIONS,
    HistoryContext,
    HistoryEnv,
    condition,
    render_session,
)

__all__ = ["CONDITIONS", "HistoryContext", "HistoryEnv", "condition", "render_session"]
