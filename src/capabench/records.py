"""Records shared by every part of capabench. Nothing here imports the rest of the package."""

from __future__ import annotations

import ast
from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

VerdictStatus = Literal["passed", "failed", "error", "timeout", "resource_limit", "no_code"]
Isolation = Literal["bwrap", "process"]

# Assistant turns a session may take (the paper's budget); TTC counts an unsolved session as this.
TURN_BUDGET = 8


class Mechanism(StrEnum):
    """The paper's six mechanisms of personalized coding ambiguity (its Table 7)."""

    POLYSEMY = "domain-cognitive polysemy"
    STRUCTURAL = "structural logic misalignment"
    HABITUAL = "habitual context omission"
    SYSTEM_BOUNDARY = "system-boundary misconception"
    CONVERSATIONAL = "conversational context misalignment"
    CONSTRAINT = "implicit constraint under-specification"


class Record(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Task(Record):
    """One programming problem: HumanEval's shape, with the tests as `check(candidate)`."""

    id: str = Field(min_length=1)
    prompt: str = Field(description="signature and docstring the user starts from")
    entry_point: str = Field(min_length=1)
    reference_solution: str = Field(
        description="completion that, appended to the prompt, solves the task"
    )
    test: str = Field(description="code defining check(candidate)")
    source: str = "custom"

    @field_validator("entry_point")
    @classmethod
    def _identifier(cls, value: str) -> str:
        if not value.isidentifier():
            raise ValueError(f"{value!r} is not a Python identifier")
        return value

    @property
    def reference_code(self) -> str:
        """The prompt completed by the reference solution: a whole module."""
        return self.prompt + self.reference_solution

    @model_validator(mode="after")
    def _parses(self) -> Task:
        for field, code in (("reference_solution", self.reference_code), ("test", self.test)):
            try:
                ast.parse(code)
            except SyntaxError as exc:
                where = "prompt + reference solution" if field == "reference_solution" else "test"
                raise ValueError(
                    f"{where} is not valid Python: {exc.msg} (line {exc.lineno})"
                ) from None
        return self

    @property
    def judge_tests(self) -> str:
        """The tests preceded by the task's own module context: the imports, helpers and
        constants of prompt + reference, without the entry point (some checks call helpers)."""
        code = self.reference_code
        lines = code.splitlines(keepends=True)
        kept = []
        for node in ast.parse(code).body:
            if (
                isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
                and node.name == self.entry_point
            ):
                continue
            first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
            kept.append("".join(lines[first - 1 : node.end_lineno]))
        return "\n".join([*kept, "", self.test])

    @property
    def signature(self) -> str:
        """`def name(args) -> ret:` of the entry point, as written in the prompt."""
        for node in ast.parse(self.prompt).body:
            if isinstance(node, ast.FunctionDef) and node.name == self.entry_point:
                line = self.prompt.splitlines()[node.lineno - 1 : node.body[0].lineno - 1]
                return "\n".join(line).strip()
        return f"def {self.entry_point}(...)"


class FailureCase(Record):
    """The first failing case, as far as it could be recovered."""

    input: str | None = Field(default=None, description="the call, e.g. `f([1, 2], 3)`")
    expected: str | None = None
    got: str | None = None


class CallRecord(Record):
    """One call the tests made to a submission, as the checker saw it (arguments copied
    before the call). Values are exact Python values: tuples stay tuples."""

    model_config = ConfigDict(frozen=True, extra="forbid", arbitrary_types_allowed=True)

    args: tuple[Any, ...]
    kwargs: dict[str, Any] = Field(default_factory=dict)
    returned: Any = None
    raised: str | None = Field(default=None, description="the built-in exception type it raised")
    stdout: str = ""
    stderr: str = ""
    logs: list[tuple[str, str, str]] = Field(default_factory=list)
    files: dict[str, str] = Field(default_factory=dict)


class Verdict(Record):
    """What the judge decided about one submission."""

    passed: bool
    status: VerdictStatus
    detail: str = ""
    duration_s: float = 0.0
    calls: int = Field(default=0, description="calls the tests made to the submission")
    case: FailureCase | None = None
    stdout: str = ""
    stderr: str = ""
    isolation: Isolation = "bwrap"


class Profile(Record):
    """A communication style: how a user phrases requests, answers and feedback."""

    id: str
    expertise: Literal["novice", "intermediate", "expert"]
    verbosity: Literal["terse", "moderate", "verbose"]
    tone: str
    opening: str = Field(
        description="request opener; {task} is the task's behaviour, {signature} its signature"
    )
    cue: str = Field(description="how a convention cue is worded; {cue}")
    closing: str
    answer: str = Field(description="answering a question; {statement}")
    unsure: str = Field(description="a question that targets nothing the user cares about")
    failure: str = Field(description="a submission that failed; {detail}")
    success: str


class Slot(Record):
    """One of the user's conventions, as a hidden slot of a session."""

    family: str
    mechanism: Mechanism
    alternative: str
    statement: str


class User(Record):
    id: str
    profile: Profile
    mechanisms: tuple[Mechanism, Mechanism]
    slots: tuple[Slot, ...] = Field(
        description="one convention per mechanism, fixed for all ten sessions"
    )


class Turn(Record):
    role: Literal["user", "assistant"]
    text: str
    revealed: tuple[str, ...] = Field(
        default=(), description="families whose statement this user turn gives"
    )
    verdict: VerdictStatus | None = Field(
        default=None, description="the judge's status when the assistant turn submitted"
    )


class UnansweredQuestion(Record):
    """A question of the assistant's that revealed nothing: what the simulated user's intent
    matcher thought it was closest to, so a second opinion can tell an assistant's vague
    question from a simulator's miss."""

    turn: int = Field(default=0, description="the assistant turn (1-based) that asked it")
    text: str
    best: str | None = Field(default=None, description="the closest family, held or not")
    score: float = 0.0
    matcher: str = ""


Split = Literal["history", "heldout"]


class Session(Record):
    id: str
    user_id: str
    profile_id: str
    cell: int
    index: int = Field(description="0-9 within the cell; 0-4 are history, 5-9 held out")
    split: Split
    task_id: str
    base_entry_point: str
    entry_point: str = Field(
        description="the name the hidden tests call (after the naming convention)"
    )
    signature: str
    request: str
    slots: tuple[Slot, ...]
    hidden_tests: str
    reference: str = Field(description="the task's solution composed with the user's conventions")
    original: str = Field(description="the task's plain solution, under its own name")
    trace: tuple[Turn, ...] = ()


class Cell(Record):
    index: int
    profile_id: str
    mechanisms: tuple[Mechanism, Mechanism]
    user_id: str
    session_ids: tuple[str, ...]


class Manifest(Record):
    """What a built benchmark directory holds; its hashes tie it to its files."""

    name: str = "capa"
    seed: int
    capabench_version: str
    models: dict[str, str] = Field(
        description="the LLM of each stage that used one (generator, assistant, user); empty: deterministic"
    )
    counts: dict[str, int]
    families: dict[str, int] = Field(description="sessions per convention family")
    excluded_tasks: dict[str, str] = Field(description="task id -> why it can't carry conventions")
    files: dict[str, str] = Field(description="file name -> sha256")
    content_hash: str
    tasks: str = Field(
        default="humaneval", description="the task pool: humaneval, or custom (tasks.jsonl)"
    )
    design: dict[str, Any] = Field(
        default_factory=dict,
        description="profiles, cells per pair, history, held-out (empty: the paper's)",
    )


class Played(Record):
    """What every played attempt keeps: its outcome, its dialogue and its cost."""

    epoch: int = 0
    model: str
    status: Literal["completed", "infra_error"]
    error: str = ""
    solved_turn: int | None = None
    turns: tuple[Turn, ...] = ()
    input_tokens: int = 0
    output_tokens: int = 0
    duration_s: float = 0.0

    @property
    def solved(self) -> bool:
        return self.solved_turn is not None


class SessionRun(Played):
    """One held-out session played under one condition: the unit a run appends."""

    key: str = Field(description="session|condition|epoch")
    session_id: str
    split: Literal["history", "heldout"] = "heldout"
    condition: str
    asks: int = Field(default=0, description="assistant turns that asked a question")
    submissions: int = 0
    needless_asks: int = Field(
        default=0, description="asks about conventions the given history already showed"
    )
    first_move: Literal["ask", "submit", "both", "neither"] = "neither"
    truncated_replies: int = Field(
        default=0,
        description="assistant replies cut at the token limit (a cut submission can't pass)",
    )
    user_questions: int = Field(
        default=0, description="asking sentences the simulated user read (not in a passing turn)"
    )
    unanswered: tuple[UnansweredQuestion, ...] = Field(
        default=(), description="those that revealed nothing: answered 'use your judgement'"
    )
    cost_usd: float | None = None
    history_tokens: int = 0
    history_info: dict[str, Any] = Field(
        default_factory=dict, description="what the history method did (gate decision, scores...)"
    )
    cell: int
    profile_id: str
    mechanisms: tuple[Mechanism, Mechanism]
    task_id: str


class BlankRun(Played):
    """One original task in the blank control: full specification, no user, test feedback."""

    key: str = Field(description="task|epoch")
    task_id: str
