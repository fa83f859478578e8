"""The evaluation prompt (the same for every model and condition, as in the paper)."""

from __future__ import annotations

from capabench.history import HistoryContext
from capabench.records import TURN_BUDGET

SYSTEM = """You are a coding assistant working with a returning user in a multi-turn coding session.

Each turn, do one of two things (or both):
- ask a clarification question, if something you need is underdetermined; or
- submit your solution: one complete Python code block defining the requested function.

Answer directly when you can infer what the user wants; ask only about what you cannot infer.
The session ends when a submission passes the user's checks, or after {budget} of your turns."""

HISTORY = """Below are your earlier resolved sessions with this user. The same user tends to leave the
same things unsaid; use what these sessions show.

{history}"""


def system_prompt(context: HistoryContext | None = None, budget: int = TURN_BUDGET) -> str:
    text = SYSTEM.format(budget=budget)
    if context is not None and context.text:
        text += "\n\n" + HISTORY.format(history=context.text)
    return text
