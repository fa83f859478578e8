"""Environments per (repository, version), built from swebench's specs as SWE-bench builds
its images: a virtual environment with the spec's Python (found through pyenv, uv or PATH),
the spec's packages and the requirements at the environment's commit from PyPI, then a
checkout of the repository at the instance's base commit installed as the spec says (which
may move a dependency: pylint 2.15's base commits pin an older astroid than its
environment's requirements). Instances whose base commits declare the same dependencies
(setup.py, setup.cfg, pyproject.toml) share one environment. Built once, on the host (it needs PyPI), and reused; `env.json`, written last,
says whether it was built and, if not, why. Grading binds a fresh checkout over the
installed one inside the sandbox (grading/env_tests.py), so the installed package is the
graded tree, as in SWE-bench's /testbed."""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from pydantic import BaseModel

from capabench.paths import cache_dir, one_at_a_time
from capabench.swe.containment import PASSTHROUGH
from capabench.swe.git import checkout, git
from capabench.swe.grading.specs import EnvSpec, requirements_text
from capabench.swe.swe_records import Instance

RECORD = "env.json"
# A spec step that needs what a per-user virtual environment can't give (root packages,
# conda): the environment is reported as not buildable here, never half-built.
UNSUPPORTED_STEP = re.compile(r"\b(apt-get|apt|yum|conda|locale-gen|sudo)\b")


class EnvProblem(RuntimeError):
    """An instance can't be graded locally: no environment, or one that failed to build."""


class EnvRecord(BaseModel):
    key: str
    repo: str
    version: str
    status: Literal["built", "failed"]
    reason: str = ""
    spec_sha256: str
    commit: str  # the checkout installed: the first instance's base commit
    requirements_commit: str = ""  # where requirements.txt was read (environment_setup_commit)
    python: str = ""  # the interpreter the venv was made from
    python_version: str = ""
    built_at: str = ""
    build_s: float = 0.0
    size_bytes: int = 0  # the whole folder: venv, installed checkout (with its .git), logs
    venv_bytes: int = 0
    isolation: str = "host"  # the build needs PyPI; grading is contained


DEPENDENCY_FILES = ("setup.py", "setup.cfg", "pyproject.toml")


def envs_root() -> Path:
    return cache_dir() / "swe" / "envs"


def install_fingerprint(repo: Path, commit: str) -> str:
    """What the install step reads at `commit`: the files that declare dependencies."""
    digest = hashlib.sha256()
    for name in DEPENDENCY_FILES:
        try:
            text = git("show", f"{commit}:{name}", cwd=repo)
        except RuntimeError:
            text = ""
        digest.update(f"{name}\0{text}\0".encode())
    return digest.hexdigest()[:10]


def env_key(spec: EnvSpec, repo: Path, instance: Instance) -> str:
    return f"{spec.key}__{install_fingerprint(repo, instance.base_commit)}"


def env_dir(key: str) -> Path:
    return envs_root() / key


def spec_sha256(spec: EnvSpec) -> str:
    # what the build reads (the CPUs a test run gets are no part of it)
    return hashlib.sha256(spec.model_dump_json(exclude={"nano_cpus"}).encode()).hexdigest()


def read_record(key: str) -> EnvRecord | None:
    path = env_dir(key) / RECORD
    return EnvRecord.model_validate_json(path.read_text()) if path.is_file() else None


def ready_env(instance: Instance, spec: EnvSpec, repo: Path) -> Path:
    """The built environment's folder, or EnvProblem saying what to do."""
    key = env_key(spec, repo, instance)
    record = read_record(key)
    if record is None or record.spec_sha256 != spec_sha256(spec):
        raise EnvProblem(
            f"no environment for {spec.repo} {spec.version} (needed by {instance.instance_id}): "
            "run capabench swe prepare --dataset FILE [--repos DIR] first"
        )
    if record.status != "built":
        raise EnvProblem(
            f"the environment for {spec.repo} {spec.version} could not be built: {record.reason}"
        )
    return env_dir(key)


def find_python(version: str) -> Path:
    """An interpreter of `version` (X.Y): pyenv's newest X.Y.*, else uv's, else pythonX.Y on
    PATH; a missing one is named with what was searched and how to install it."""
    looked = []
    root = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv"))
    found = sorted(
        (root / "versions").glob(f"{version}.*"),
        key=lambda p: [int(x) if x.isdigit() else 0 for x in p.name.split(".")],
    )
    found = [p / "bin" / f"python{version}" for p in found if re.fullmatch(r"[\d.]+", p.name)]
    found = [p for p in found if p.is_file()]
    if found:
        return found[-1]
    looked.append(f"pyenv ({root}/versions/{version}.*: none)")
    uv = shutil.which("uv")
    if uv:
        proc = subprocess.run([uv, "python", "find", version], capture_output=True, text=True)
        if proc.returncode == 0 and proc.stdout.strip():
            return Path(proc.stdout.strip())
        looked.append(f"uv (no {version})")
    else:
        looked.append("uv (not installed)")
    on_path = shutil.which(f"python{version}")
    if on_path:
        return Path(on_path)
    looked.append(f"PATH (no python{version})")
    raise EnvProblem(
        f"no Python {version} on this machine; looked in {', '.join(looked)}. Install it "
        f"with `pyenv install {version}` or `uv python install {version}`"
    )


def build_env_vars(venv: Path, home: Path) -> dict[str, str]:
    """The build's environment: the venv first on PATH, a private home, the host's locale,
    certificates, proxies and pip settings (an index mirror), a shared pip cache."""
    env = {k: os.environ[k] for k in PASSTHROUGH if k in os.environ}
    env |= {k: v for k, v in os.environ.items() if k.startswith("PIP_")}
    env |= {
        "PATH": f"{venv / 'bin'}:/usr/local/bin:/usr/bin:/bin",
        "HOME": str(home),
        "VIRTUAL_ENV": str(venv),
        "PIP_CACHE_DIR": str(cache_dir() / "swe" / "pip-cache"),
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
    }
    user_conf = Path.home() / ".config" / "pip" / "pip.conf"
    if "PIP_CONFIG_FILE" not in env and user_conf.is_file():  # the private home hides it
        env["PIP_CONFIG_FILE"] = str(user_conf)
    env.setdefault("LANG", "C.UTF-8")
    return env


def folder_size(path: Path) -> int:
    total = 0
    for root, _, files in os.walk(path):
        for name in files:
            p = Path(root) / name
            if not p.is_symlink():
                total += p.stat().st_size
    return total


def build_env(
    spec: EnvSpec,
    instance: Instance,
    repo: Path,
    *,
    log: Callable[[str], None] = print,
    step_timeout_s: float = 1800.0,
) -> EnvRecord:
    """Build (or rebuild) the environment in place; its record says how it went. Editable
    installs record absolute paths, so the environment is built where it will live."""
    key = env_key(spec, repo, instance)
    root = env_dir(key)
    commit = instance.base_commit  # installed, as in SWE-bench's instance image
    requirements_commit = instance.environment_setup_commit or instance.base_commit
    start = time.monotonic()
    common = {
        "key": key,
        "repo": spec.repo,
        "version": spec.version,
        "spec_sha256": spec_sha256(spec),
        "commit": commit,
        "requirements_commit": requirements_commit,
    }
    if root.exists():
        shutil.rmtree(root)
    root.mkdir(parents=True)
    build_log = root / "build.log"

    def failed(reason: str, **extra) -> EnvRecord:
        record = EnvRecord(
            status="failed",
            reason=reason,
            built_at=datetime.now(UTC).isoformat(timespec="seconds"),
            build_s=round(time.monotonic() - start, 1),
            **common,
            **extra,
        )
        (root / RECORD).write_text(record.model_dump_json(indent=1))
        return record

    steps = [s for s in (*spec.pre_install, spec.install) if UNSUPPORTED_STEP.search(s)]
    if spec.packages == "environment.yml":
        return failed(
            "the spec builds a conda environment (environment.yml); conda is not used here"
        )
    if steps:
        return failed(f"the spec runs a system step capabench doesn't run: {steps[0]!r}")
    try:
        python = find_python(spec.python)
    except EnvProblem as exc:
        return failed(str(exc))
    venv, home, testbed = root / "venv", root / "home", root / "testbed"
    home.mkdir()
    env = build_env_vars(venv, home)

    def run(label: str, command: list[str] | str, cwd: Path) -> str:
        """'' when the step succeeded, else why not."""
        log(f"    {label}")
        shell = isinstance(command, str)
        with build_log.open("a") as fh:
            fh.write(f"\n$ {command if shell else ' '.join(command)}\n")
            fh.flush()
            try:
                proc = subprocess.run(
                    ["bash", "-c", command] if shell else command,
                    cwd=cwd,
                    env=env,
                    stdout=fh,
                    stderr=subprocess.STDOUT,
                    timeout=step_timeout_s,
                )
            except subprocess.TimeoutExpired:
                return f"{label}: timed out after {step_timeout_s:.0f} s"
        if proc.returncode != 0:
            tail = build_log.read_text(errors="replace").strip().splitlines()[-3:]
            return f"{label} exited {proc.returncode}: {' | '.join(tail)[-400:]}"
        return ""

    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "--no-input"]
    if problem := run(
        f"python {spec.python}: {python}", [str(python), "-m", "venv", str(venv)], root
    ):
        return failed(problem, python=str(python))
    version = subprocess.run(
        [str(venv / "bin" / "python"), "-c", "import platform; print(platform.python_version())"],
        capture_output=True,
        text=True,
    ).stdout.strip()
    extra = {"python": str(python), "python_version": version}
    try:
        checkout(repo, commit, testbed)
    except RuntimeError as exc:
        return failed(f"checkout at {commit[:12]}: {exc}", **extra)
    plan: list[tuple[str, list[str] | str, Path]] = []
    if spec.packages == "requirements.txt":

        def read(path: str) -> str | None:
            try:
                return git("show", f"{requirements_commit}:{path}", cwd=testbed)
            except RuntimeError:
                return None

        try:
            reqs = requirements_text(read, spec)
        except FileNotFoundError as exc:
            return failed(str(exc), **extra)
        (root / "requirements.txt").write_text(reqs + "\n")
        plan.append(("requirements", [*pip, "-r", str(root / "requirements.txt")], root))
    elif spec.packages.strip():  # conda package names; PyPI has these under the same names
        plan.append(("packages", [*pip, *spec.packages.split()], root))
    if spec.pip_packages:
        plan.append(("pip packages", [*pip, *spec.pip_packages], root))
    plan += [(f"pre_install: {s}", s, testbed) for s in spec.pre_install]
    if spec.install:
        plan.append((f"install: {spec.install}", spec.install, testbed))
    for label, command, cwd in plan:
        if problem := run(label, command, cwd):
            return failed(problem, **extra)
    record = EnvRecord(
        status="built",
        built_at=datetime.now(UTC).isoformat(timespec="seconds"),
        build_s=round(time.monotonic() - start, 1),
        size_bytes=folder_size(root),
        venv_bytes=folder_size(venv),
        **common,
        **extra,
    )
    (root / RECORD).write_text(record.model_dump_json(indent=1))
    return record


def ensure_env(
    spec: EnvSpec, instance: Instance, repo: Path, *, rebuild: bool = False, log=print
) -> tuple[EnvRecord, bool]:
    """(the environment's record, whether it was reused). One builder at a time per
    environment; a failed one is rebuilt only on request."""
    key = env_key(spec, repo, instance)
    with one_at_a_time(envs_root() / f"{key}.lock"):
        record = read_record(key)
        if record is not None and record.spec_sha256 == spec_sha256(spec) and not rebuild:
            return record, True
        return build_env(spec, instance, repo, log=log), False
