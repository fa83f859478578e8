"""Records of the ask-or-guess arm: dataset instances and the task an agent is given."""

from __future__ import annotations

import hashlib
from enum import StrEnum
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

Condition = Literal["ambiguous", "full"]
CONDITIONS: tuple[Condition, ...] = ("ambiguous", "full")

PROMPT = "Resolve the following issue in this repository:\n\n{issue}"


class Instance(BaseModel):
    """One issue of a repository at a commit, in its two forms, with its oracles.

    `problem_statement` is the ambiguous form and `original_issue` the full one (the
    interactive-swe schema). The gold patch, tests and hints are for grading and the
    dashboard only: `task()` is all an agent ever sees."""

    model_config = ConfigDict(frozen=True)

    instance_id: str
    repo: str
    base_commit: str
    problem_statement: str  # ambiguous
    original_issue: str  # full
    fail_to_pass: tuple[str, ...] = Field(min_length=1)
    pass_to_pass: tuple[str, ...] = ()
    patch: str  # gold
    test_patch: str = ""
    hints_text: str = ""
    difficulty: str = ""
    # SWE-bench's keys to an instance's environment (swebench's specs per repository and
    # version, requirements read at environment_setup_commit); empty for the bundled ones.
    version: str = ""
    environment_setup_commit: str = ""
    source: str = ""  # the dataset it came from
    extra: dict[str, str] = Field(default_factory=dict)  # e.g. missing-info categories

    def issue(self, condition: Condition) -> str:
        return self.problem_statement if condition == "ambiguous" else self.original_issue

    def task(self, condition: Condition) -> AgentTask:
        prompt = PROMPT.format(issue=self.issue(condition))
        return AgentTask(
            instance_id=self.instance_id,
            repo=self.repo,
            base_commit=self.base_commit,
            condition=condition,
            prompt=prompt,
            prompt_sha256=hashlib.sha256(prompt.encode()).hexdigest(),
        )

    def gold_files(self) -> tuple[str, ...]:
        return patch_files(self.patch)


class AgentTask(BaseModel):
    """What an agent receives: the repository at its commit and the prompt. Nothing else."""

    model_config = ConfigDict(frozen=True)

    instance_id: str
    repo: str
    base_commit: str
    condition: Condition
    prompt: str
    prompt_sha256: str


def patch_files(patch: str) -> tuple[str, ...]:
    """The files a unified diff touches, in order, each once."""
    seen: dict[str, None] = {}
    for line in patch.splitlines():
        if line.startswith("diff --git "):
            parts = line.split(" b/", 1)
            if len(parts) == 2:
                seen[parts[1].strip()] = None
    return tuple(seen)


class Ask(BaseModel):
    """One question the agent put to the user, and what it was told."""

    turn: int  # the model reply (1-based) that asked
    question: str
    answer: str | None  # None: over the cap (the session ended instead), or refused
    edited_before: bool  # the workspace had changed when it asked
    channel: str  # e.g. "ask_user action", "AskUserQuestion", "final message"
    detection: dict = Field(default_factory=dict)  # classifier version and evidence, if any
    # The harness refused the ask tool (Codex's request_user_input in exec mode): the agent
    # asked, nobody could answer. Counted as asked; never certifies a channel.
    refused: bool = False


class EventKind(StrEnum):
    """The kinds of session event that readers rely on: the transcript (model, final),
    reclassify and harvest (final), the dashboard's trace (all). Every runner writes them
    through agents.recorder.SessionRecorder; a runner's own kinds (its raw stream, permission
    prompts, ...) are kept as they are and shown by name."""

    MODEL = "model"  # a model message (in the Codex arm: one before the turn's last)
    ASK = "ask"  # a question through an ask channel (the session's asks carry its answer)
    ANSWER = "answer"  # what the user was told
    COMMAND = "command"  # a command or tool call, with its exit status and output
    FINAL = "final"  # a turn's last message, with the ask detection's verdict (Codex)
    REFUSED_ASK = "refused_ask"  # an ask tool the harness refused: asked, never answered


# A turn is one model reply, in every arm; `step_limit` is the turn budget, `time_limit`
# the wall-time budget.
StopReason = Literal[
    "completed", "step_limit", "time_limit", "max_ask_rounds", "no_action", "error"
]


class Budget(BaseModel):
    """One session's limits, the same for every arm: model replies and wall time."""

    model_config = ConfigDict(frozen=True)

    turns: int = Field(30, ge=1)
    wall_s: float = Field(3600.0, gt=0)


# The CLI arms' default turn budget: frontier agents take many replies on a real issue; the
# built-in agent's default (Budget().turns) suits the small models it runs.
CLI_TURNS = 150

Containment = Literal["bwrap", "none"]


class AgentSetup(BaseModel):
    """How the agent was run: what it could reach, what it was told, what it was offered."""

    containment: Containment = "none"
    # What its network reached: "<host:port> only" (contained CLIs), "none" (the built-in
    # agent's commands: its model calls are capabench's), "host" (--no-sandbox); "" unknown.
    network: str = ""
    system_prompt: str = ""  # which one: "claude_code preset", "bare", "codex default", ...
    tools_offered: list[str] = []  # the tool names in the model's request, as sent
    budget: Budget | None = None


class AgentWarning(BaseModel):
    """Something the harness said about its own setup that degrades the run."""

    kind: str  # e.g. "fallback_model_metadata", "unrecognized_model"
    text: str


class SessionFacts(BaseModel):
    """What one agent session did, as its run summary keeps it (swe.store.RunSummary adds
    which session it was; SessionOutcome adds the event stream and the harness's files)."""

    stop_reason: StopReason
    asks: list[Ask] = []
    turns: int = 0  # model replies
    input_tokens: int = 0
    output_tokens: int = 0
    error: str = ""
    tools: list[str] = []  # the roster the agent had
    setup: AgentSetup | None = None  # None: the runner broke before it said
    warnings: list[AgentWarning] = []
    runner_version: str = ""

    def facts(self) -> dict:
        """These fields as they are (records stay records), for a record built on them."""
        return {name: getattr(self, name) for name in SessionFacts.model_fields}


class SessionOutcome(SessionFacts):
    """What one agent session did: its facts, the stream and the harness's own records."""

    # The stream, as stored (events.jsonl): {"kind", "text", "t", ...} per event, kinds above.
    events: list[dict] = []
    files: dict[
        str, str
    ] = {}  # the harness's own session records (name -> text), copied at capture

    @property
    def asked(self) -> bool:
        return bool(self.asks)

    def transcript(self) -> str:
        """The agent's own messages, in order (no tool output)."""
        said = (EventKind.MODEL, EventKind.FINAL)
        return "\n\n".join(e["text"] for e in self.events if e.get("kind") in said)
