"""SWE-bench's environment specs per repository and version, and what follows from them:
the test command with its directives (the test files the test patch touches, as SWE-bench
runs them) and the requirements read at the environment's commit.

swebench 5.x ships no environment table (its datasets name prebuilt images); the table
here is swebench 4.1.0's MAP_REPO_VERSION_TO_SPECS_PY, kept as data in
`swe/data/swebench_specs.json` (written by `scripts/swebench_specs.py`, the wheel's sha256
inside). Log parsers and grading rules come from the installed swebench 5.x itself."""

from __future__ import annotations

import json
import re
from functools import cache
from importlib import resources

from pydantic import BaseModel, ConfigDict

from capabench.swe.swe_records import Instance

# swebench.harness.constants.NON_TEST_EXTS (5.x), for when the package is not installed:
# files of a test patch that are not test modules.
NON_TEST_EXTS = (
    ".json",
    ".png",
    "csv",
    ".txt",
    ".md",
    ".jpg",
    ".jpeg",
    ".pkl",
    ".yml",
    ".yaml",
    ".toml",
)


class EnvSpec(BaseModel):
    """One (repository, version)'s environment, as swebench specifies it."""

    model_config = ConfigDict(frozen=True)

    repo: str
    version: str
    python: str
    packages: str = ""  # conda package names, "requirements.txt" or "environment.yml"
    pip_packages: tuple[str, ...] = ()
    pre_install: tuple[str, ...] = ()
    install: str = ""
    eval_commands: tuple[str, ...] = ()
    test_cmd: str
    # CPUs the harness gives the container (docker's NanoCPUs): pylint's tests that need
    # two cores read them from the cgroup's CFS quota and skip themselves below two
    nano_cpus: int = 0

    @property
    def key(self) -> str:
        return f"{self.repo.replace('/', '__')}__{self.version}"


@cache
def _table() -> dict:
    text = resources.files("capabench.swe.data").joinpath("swebench_specs.json").read_text()
    return json.loads(text)


def specs_source() -> dict:
    """Which swebench wheel the table came from (name, sha256)."""
    return _table()["source"]


def spec_for(instance: Instance) -> EnvSpec | None:
    """The instance's spec, or None for a repository swebench has no spec for (the bundled
    ones). A SWE-bench repository with an unknown version raises."""
    specs = _table()["specs"].get(instance.repo)
    if specs is None:
        return None
    if not instance.version:
        raise KeyError(
            f"{instance.instance_id}: the dataset gives no version, which swebench's specs "
            f"for {instance.repo} are keyed by"
        )
    spec = specs.get(instance.version)
    if spec is None:
        raise KeyError(
            f"{instance.instance_id}: swebench has no spec for {instance.repo} "
            f"{instance.version} (it knows {', '.join(sorted(specs))})"
        )
    test_cmd = spec["test_cmd"]
    fields = {
        "repo": instance.repo,
        "version": instance.version,
        "python": spec["python"],
        "packages": spec.get("packages", ""),
        "pip_packages": tuple(spec.get("pip_packages", ())),
        "pre_install": tuple(spec.get("pre_install", ())),
        "install": spec.get("install", ""),
        "eval_commands": tuple(spec.get("eval_commands", ())),
        "test_cmd": test_cmd if isinstance(test_cmd, str) else " ; ".join(test_cmd),
        "nano_cpus": int(spec.get("nano_cpus", 0)),
    }
    return EnvSpec(**fields)


def requirements_paths(repo: str) -> list[str]:
    return list(_table()["requirements_paths"].get(repo, []))


def non_test_exts() -> tuple[str, ...]:
    try:
        from swebench.harness.constants import NON_TEST_EXTS as exts

        return tuple(exts)
    except ImportError:
        return NON_TEST_EXTS


def directives(instance: Instance) -> list[str]:
    """What SWE-bench appends to the test command: the test patch's files (data files
    left out); for Django, as its runner's module names."""
    files = re.findall(r"diff --git a/.* b/(.*)", instance.test_patch)
    exts = non_test_exts()
    files = [f for f in files if not f.endswith(exts)]
    if instance.repo == "django/django":
        files = [f.removesuffix(".py").removeprefix("tests/").replace("/", ".") for f in files]
    return files


def run_command(instance: Instance, spec: EnvSpec) -> str:
    return " ".join([spec.test_cmd, *directives(instance)])


def requirements_text(read: callable, spec: EnvSpec) -> str:
    """A `requirements.txt` spec's requirements, as swebench assembles them: the repository's
    first requirements file that exists at the environment's commit, its `-r` includes
    inlined, the checkout itself (`-e .`, `.[test]`) and comments left out. `read(path)`
    returns a file's text at that commit or None."""
    for path in requirements_paths(spec.repo):
        text = read(path)
        if text is not None:
            break
    else:
        raise FileNotFoundError(
            f"none of {requirements_paths(spec.repo)} exists in {spec.repo} at the environment's commit"
        )
    folder = path.rpartition("/")[0]

    def kept(line: str) -> bool:
        return not any(line.strip().startswith(x) for x in ("-e .", "#", ".[test"))

    own, included = [], []
    for line in text.splitlines():
        if line.strip().startswith("-r"):
            name = line.strip()[2:].strip()
            extra = read(f"{folder}/{name}" if folder else name) or ""
            included += [x for x in extra.splitlines() if kept(x)]
        elif kept(line):
            own.append(line)
    text = "\n".join([*included, *own])
    # swebench's REPLACE_REQ_PACKAGES: yanked from PyPI
    return re.sub(r"^types-pkg_resources([<>=!~]=?.*|$)", "types-setuptools", text, flags=re.M)
