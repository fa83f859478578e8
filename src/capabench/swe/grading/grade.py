"""A grade, and the rules every grader shares: agent-edited test files stripped from the
patch, localization against the gold patch's files."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel

from capabench.swe.swe_records import Instance, patch_files

# not_gradable: the instance's controls failed here (its gold patch doesn't resolve it, or
# its empty patch does): no grade of it says anything about the agent.
Status = Literal["scored", "error", "timeout", "not_evaluated", "not_gradable"]
GRADER_VERSION = "local-2"  # the local grader's (grading/local.py)


class Grade(BaseModel):
    """A judgement about a patch; `resolved` is None unless `status` is scored."""

    status: Status
    resolved: bool | None = None
    # test id -> passed | failed | error | skipped | xfail | not run (never run: not failed)
    tests: dict[str, str] = {}
    localization_hit: bool | None = None
    source_files: tuple[str, ...] = ()
    stripped_test_files: tuple[str, ...] = ()
    detail: str = ""
    grader: str = GRADER_VERSION
    isolation: str = ""
    duration_s: float = 0.0


def is_test_file(path: str) -> bool:
    """Test files by the conventions pytest and SWE-bench repositories use."""
    parts = Path(path).parts
    name = parts[-1] if parts else ""
    return (
        any(p in ("tests", "test", "testing") for p in parts[:-1])
        or name.startswith("test_")
        or name.endswith(("_test.py", "_tests.py"))
        or name == "conftest.py"
    )


def split_patch(patch: str) -> tuple[str, list[str], list[str]]:
    """(the patch without its test-file sections, source files, stripped test files)."""
    sections, current = [], []
    for line in patch.splitlines(keepends=True):
        if line.startswith("diff --git ") and current:
            sections.append("".join(current))
            current = []
        current.append(line)
    if current:
        sections.append("".join(current))
    kept, sources, tests = [], [], []
    for section in sections:
        files = patch_files(section)
        if files and is_test_file(files[0]):
            tests.append(files[0])
        else:
            kept.append(section)
            sources.extend(files)
    return "".join(kept), sources, tests


def graded_part(instance: Instance, patch: str) -> tuple[str, dict]:
    """(the patch a grader applies: test files stripped, the fields every grade carries:
    source and stripped files, localization against the gold patch's files)."""
    source_patch, sources, stripped = split_patch(patch)
    common = {
        "source_files": tuple(sources),
        "stripped_test_files": tuple(stripped),
        "localization_hit": bool(set(instance.gold_files()) & set(sources)) if sources else False,
    }
    return source_patch, common
