"""The paper's blank control: the original tasks with their complete specifications, no
user and no ambiguity. The model writes a solution; a failure comes back as the concrete
test failure; it revises, up to eight submissions."""

from __future__ import annotations

import time

from capabench.judge import extract_code, judge_task
from capabench.judge.sandbox import SandboxPool
from capabench.models import ChatModel, InfraError, Message
from capabench.records import TURN_BUDGET, BlankRun, Task, Turn

SYSTEM = (
    "You are a coding assistant. Complete the function the user gives you. Reply with the "
    "complete function in one Python code block."
)
NO_CODE = "I don't see a Python code block defining `{name}`. Reply with the complete function."
FAILED = "That fails the tests: {detail}\nFix it and reply with the complete corrected function."


def play_blank(
    task: Task, model: ChatModel, pool: SandboxPool, *, epoch: int = 0, budget: int = TURN_BUDGET
) -> BlankRun:
    start = time.perf_counter()
    turns = [Turn(role="user", text=f"```python\n{task.prompt}```")]
    tokens_in = tokens_out = 0
    solved, status, error = None, "completed", ""
    try:
        for attempt in range(1, budget + 1):
            messages = [Message(role="system", content=SYSTEM)]
            messages += [Message(role=t.role, content=t.text) for t in turns]
            completion = model.complete(messages)
            tokens_in, tokens_out = (
                tokens_in + completion.input_tokens,
                tokens_out + completion.output_tokens,
            )
            code = extract_code(completion.text, task.entry_point)
            verdict = judge_task(task, code, pool=pool) if code else None
            turns.append(
                Turn(
                    role="assistant",
                    text=completion.text,
                    verdict=verdict.status if verdict else None,
                )
            )
            if verdict is not None and verdict.passed:
                solved = attempt
                break
            feedback = (
                FAILED.format(detail=verdict.detail)
                if verdict
                else NO_CODE.format(name=task.entry_point)
            )
            turns.append(Turn(role="user", text=feedback))
    except InfraError as exc:
        status, error = "infra_error", str(exc)
    return BlankRun(
        key=f"{task.id}|{epoch}",
        task_id=task.id,
        epoch=epoch,
        model=model.name,
        status=status,
        error=error,
        solved_turn=solved,
        turns=tuple(turns),
        input_tokens=tokens_in,
        output_tokens=tokens_out,
        duration_s=round(time.perf_counter() - start, 3),
    )
