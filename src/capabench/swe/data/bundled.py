"""The bundled dataset: six little libraries made into git repositories at build time
(deterministic commits), their issues in both forms, gold and test patches, written as
interactive-swe JSONL and validated by the local grader before use."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from pathlib import Path

from capabench.paths import cache_dir, one_at_a_time
from capabench.swe.data import bundled_repos
from capabench.swe.data.bundled_repos import LIBRARIES, Library
from capabench.swe.data.datasets import load_instances
from capabench.swe.git import apply_patch, checkout, git
from capabench.swe.grading.local import grade_locally, run_tests
from capabench.swe.swe_records import Instance

INSTANCES = "instances.jsonl"


def bundled_dir() -> Path:
    """Where the bundled dataset lives, keyed by the source that defines it."""
    digest = hashlib.sha256(Path(bundled_repos.__file__).read_bytes()).hexdigest()[:12]
    return cache_dir() / "swe" / f"bundled-{digest}"


def bundled_dataset() -> Path:
    """The bundled dataset's JSONL, built and validated on first use."""
    root = bundled_dir()
    if not (root / INSTANCES).is_file():
        # One builder at a time: a second process waits and then finds the dataset built.
        with one_at_a_time(root.parent / f"{root.name}.lock"):
            if not (root / INSTANCES).is_file():
                build_bundled(root)
    return root / INSTANCES


def repo_dir(instance: Instance, repos: Path | None = None) -> Path:
    """The git repository an instance's checkouts are cloned from: `repos/<owner>__<name>`
    (or `repos/<name>`), or, for the bundled dataset, its own repositories."""
    owner, _, name = instance.repo.partition("/")
    repos = Path(repos).absolute() if repos else None  # clones are made from other folders
    candidates = [repos / f"{owner}__{name}", repos / name] if repos else []
    # where `capabench swe prepare` clones from GitHub when no --repos is given
    candidates.append(cache_dir() / "swe" / "repos" / f"{owner}__{name}")
    candidates.append(bundled_dir() / "repos" / name)
    for path in candidates:
        if (path / ".git").exists() or (path / "HEAD").is_file():
            return path
    hint = (
        f"clone it to {candidates[0]} (or a mirror: git clone --mirror), or run capabench swe "
        f"prepare --repos {repos}"
        if repos
        else "run capabench swe prepare (clones it from GitHub), or pass --repos DIR with "
        "<owner>__<name> clones"
    )
    raise FileNotFoundError(f"no repository for {instance.repo}: {hint}")


def ensure_repos(instances, repos: Path | None = None) -> None:
    """On a host that hasn't built the bundled repositories yet (a Ray node), build them
    when an instance needs one and `repos` doesn't have it."""
    names = {lib.name for lib in LIBRARIES}
    for instance in instances:
        try:
            repo_dir(instance, repos)
        except FileNotFoundError:
            if instance.repo.partition("/")[2] in names:
                bundled_dataset()
                return


def build_bundled(root: Path) -> list[Instance]:
    """Make the repositories and the JSONL under `root` (atomically: a half-built dataset
    is never found), after checking every instance with the grader."""
    staging = Path(tempfile.mkdtemp(prefix=".staging-", dir=_parent(root)))
    try:
        made = [_make(lib, staging / "repos" / lib.name) for lib in LIBRARIES]
        (staging / INSTANCES).write_text("".join(json.dumps(row) + "\n" for row, _ in made))
        instances = load_instances(staging / INSTANCES)
        for instance, lib, (_, guess) in zip(instances, LIBRARIES, made, strict=True):
            _validate(instance, staging / "repos" / lib.name, guess)
        if root.exists():
            shutil.rmtree(root)
        os.replace(staging, root)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return load_instances(root / INSTANCES)


def _parent(root: Path) -> Path:
    root.parent.mkdir(parents=True, exist_ok=True)
    return root.parent


def _write(repo: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = repo / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def _make(lib: Library, repo: Path) -> tuple[dict, str]:
    """The library's repository with one commit, its instance as an interactive-swe row, and
    the patch of the other reading (kept out of the dataset)."""
    repo.mkdir(parents=True)
    git("init", "--quiet", "--initial-branch=main", cwd=repo)
    _write(repo, lib.base)
    git("add", "-A", cwd=repo)
    git("commit", "--quiet", "-m", f"{lib.name} 0.1.0", cwd=repo)
    base = git("rev-parse", "HEAD", cwd=repo).strip()
    patches = {}
    for kind, files in (("patch", lib.gold), ("test_patch", lib.tests), ("guess", lib.guess)):
        _write(repo, files)
        patches[kind] = git("diff", cwd=repo)
        git("checkout", "--quiet", ".", cwd=repo)
    row = {
        "instance_id": f"capabench__{lib.name}-1",
        "repo": f"capabench/{lib.name}",
        "base_commit": base,
        "problem_statement": lib.ambiguous,
        "original_issue": lib.full,
        "FAIL_TO_PASS": json.dumps(list(lib.fail_to_pass)),
        "PASS_TO_PASS": json.dumps(list(lib.pass_to_pass)),
        "patch": patches["patch"],
        "test_patch": patches["test_patch"],
        "hints_text": "",
        "difficulty": lib.difficulty,
    }
    return row, patches["guess"]


def _validate(instance: Instance, repo: Path, guess: str) -> None:
    """The gold patch resolves the instance and the other reading doesn't (the ambiguous
    issue leaves a real decision open); without a fix FAIL_TO_PASS fails and PASS_TO_PASS
    passes (so the tests measure the fix and nothing else)."""
    gold = grade_locally(instance, instance.patch, repo)
    if not gold.resolved:
        raise RuntimeError(f"{instance.instance_id}: the gold patch doesn't resolve it: {gold}")
    other = grade_locally(instance, guess, repo)
    if other.status != "scored" or other.resolved or not guess.strip():
        raise RuntimeError(f"{instance.instance_id}: the other reading resolves it too: {other}")
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp) / "repo"
        checkout(repo, instance.base_commit, work)
        if problem := apply_patch(work, instance.test_patch):
            raise RuntimeError(f"{instance.instance_id}: test patch: {problem}")
        outcome, detail, _ = run_tests(work, [*instance.fail_to_pass, *instance.pass_to_pass], 120)
    if outcome is None:
        raise RuntimeError(f"{instance.instance_id}: tests did not run: {detail}")
    wrong = [t for t in instance.fail_to_pass if outcome.get(t) == "passed"]
    wrong += [t for t in instance.pass_to_pass if outcome.get(t) != "passed"]
    if wrong:
        raise RuntimeError(f"{instance.instance_id}: unexpected outcomes before the fix: {wrong}")
