"""An instance's tests in its prepared environment, as SWE-bench runs them: the spec's
test command on the test patch's files, between swebench's output markers, read by the
repository's swebench log parser (get_logs_eval). Contained: bubblewrap, no network, the
environment read-only, the graded checkout bound over the installed one (so the installed
package is the graded tree) and a private temporary directory writable."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import signal
import subprocess
import tempfile
from pathlib import Path

from capabench.judge.sandbox import bwrap_available
from capabench.swe.containment import bwrap_argv, limits
from capabench.swe.git import git
from capabench.swe.grading.specs import EnvSpec, run_command
from capabench.swe.swe_records import Instance

# swebench.harness.constants (5.x): the markers its grading reads.
START = ">>>>> Start Test Output"
END = ">>>>> End Test Output"
EXIT = ">>>>> Test Exit Code"
LOG_CAP = 8 << 20  # a runaway test's output is cut, not kept whole


class TestsDidNotRun(RuntimeError):
    """No test result could be read: the reason is the grade's detail."""


def copy_generated(testbed: Path, work: Path) -> None:
    """Files the installation generated in the installed checkout (a `_version.py`, egg
    metadata, built extensions), which a fresh checkout lacks."""
    listed = git("ls-files", "--others", "-z", cwd=testbed)
    for rel in filter(None, listed.split("\0")):
        if "__pycache__" in rel or rel.startswith(".tox/"):
            continue
        src, dest = testbed / rel, work / rel
        if src.is_file() and not dest.exists():
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest, follow_symlinks=False)


def pre_install(spec: EnvSpec, work: Path) -> str:
    """The spec's pre-install steps (file edits such as tox.ini's `pytest -rA`), applied to the
    graded checkout as SWE-bench applies them to its /testbed; '' or why they failed."""
    for step in spec.pre_install:
        proc = subprocess.run(["bash", "-c", step], cwd=work, capture_output=True, text=True)
        if proc.returncode != 0:
            return f"pre_install {step!r} exited {proc.returncode}: {proc.stderr.strip()[:300]}"
    return ""


def tox_shims(spec: EnvSpec, work: Path, venv: Path) -> None:
    """`tox --current-env` links .tox/<env>/bin/python to the running interpreter; a link to
    a venv's python starts the base interpreter without the venv (SWE-bench's conda python
    has no such layer). Wrappers that exec the venv's python are left in place by tox."""
    found = re.search(r"tox --current-env -e\s*(\S+)", spec.test_cmd)
    if not found:
        return
    bindir = work / ".tox" / found.group(1) / "bin"
    bindir.mkdir(parents=True, exist_ok=True)
    major_minor = spec.python
    for name in ("python", f"python{major_minor.split('.')[0]}", f"python{major_minor}"):
        shim = bindir / name
        shim.write_text(f'#!/bin/sh\nexec {shlex.quote(str(venv / "bin" / "python"))} "$@"\n')
        shim.chmod(0o755)


def script(instance: Instance, spec: EnvSpec) -> str:
    exports = [c for c in spec.eval_commands if c.startswith("export ")]  # the rest need root
    return "\n".join(
        [
            *exports,
            f"echo {shlex.quote(START)}",
            run_command(instance, spec),
            "code=$?",
            f"echo {shlex.quote(END)}",
            f'echo "{EXIT}: $code"',
            "",
        ]
    )


CFS = Path("/sys/fs/cgroup/cpu")  # cgroup v1: cpu.cfs_quota_us, cpu.cfs_period_us
CPU_MAX = Path("/sys/fs/cgroup/cpu.max")  # cgroup v2: "<quota> <period>"


def cpu_binds(spec: EnvSpec, tmp: Path) -> list[tuple[Path, str]]:
    """The spec's CPUs (nano_cpus) as docker gives them, a CFS quota the tests can read
    (pylint's `_cpu_count`), where this host has that many; none otherwise."""
    cpus = spec.nano_cpus // 1_000_000_000
    if cpus < 1 or (os.cpu_count() or 1) < cpus:
        return []
    period = 100_000
    files = {}
    if (CFS / "cpu.cfs_quota_us").is_file() and (CFS / "cpu.cfs_period_us").is_file():
        files = {CFS / "cpu.cfs_quota_us": cpus * period, CFS / "cpu.cfs_period_us": period}
    elif CPU_MAX.is_file():
        files = {CPU_MAX: f"{cpus * period} {period}"}
    binds = []
    for n, (target, value) in enumerate(files.items()):
        source = tmp / f"cgroup-{n}"
        source.write_text(f"{value}\n")
        binds.append((source, str(target)))
    return binds


def python_home(env: Path) -> Path:
    """The interpreter installation the venv was made from (pyvenv.cfg's home)."""
    for line in (env / "venv" / "pyvenv.cfg").read_text().splitlines():
        key, _, value = line.partition("=")
        if key.strip() == "home":
            return Path(value.strip()).resolve().parent
    return Path("/usr")


def run_env_tests(
    instance: Instance, spec: EnvSpec, env: Path, work: Path, timeout_s: float
) -> tuple[str, str]:
    """(the run's log, isolation); TimeoutError past `timeout_s`, TestsDidNotRun where the
    run can't be contained."""
    ok, why = bwrap_available()
    if not ok:
        raise TestsDidNotRun(
            f"grading in a prepared environment needs bubblewrap, which does not work here ({why})"
        )
    mount = env / "testbed"  # where the environment's editable install points
    venv = env / "venv"
    tox_shims(spec, work, venv)
    with tempfile.TemporaryDirectory(prefix="capabench-tmp-") as tmp:
        (Path(tmp) / "run.sh").write_text(script(instance, spec))
        argv = bwrap_argv(
            ["bash", str(Path(tmp) / "run.sh")],
            writable=[Path(tmp)],
            chdir=mount,
            expose=[env, python_home(env)],
            # the graded checkout over the installed one (mounted after the environment's)
            writable_at=[(work, str(mount))],
            binds=cpu_binds(spec, Path(tmp)),
        )
        environ = {
            "PATH": f"{venv / 'bin'}:/usr/bin:/bin",
            "VIRTUAL_ENV": str(venv),
            "HOME": tmp,
            "TMPDIR": tmp,
            "LANG": "C.UTF-8",
            "PYTHONDONTWRITEBYTECODE": "1",
            "PYTHONHASHSEED": "0",
        }
        log = Path(tmp) / "test_output.txt"
        with log.open("wb") as fh:
            proc = subprocess.Popen(
                argv, cwd=work, env=environ, stdout=fh, stderr=subprocess.STDOUT, preexec_fn=limits
            )
            try:
                proc.wait(timeout=timeout_s)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
                raise TimeoutError(f"the test run exceeded {timeout_s:.0f} s") from None
        with log.open("rb") as fh:
            text = fh.read(LOG_CAP).decode(errors="replace")
    return text, "bwrap"


def status_map(instance: Instance, spec: EnvSpec, log: str) -> dict[str, str]:
    """swebench's reading of the log: {test: PASSED|FAILED|...} by the repository's parser;
    TestsDidNotRun where swebench finds no valid run (no markers, nothing parsed and no sign
    the suite ran, or an exit status the results contradict)."""
    try:
        from swebench.harness.grading import get_logs_eval
        from swebench.harness.log_parsers import PARSER_REGISTRY
        from swebench.harness.log_parsers.python import MAP_REPO_TO_PARSER_PY
        from swebench.types import TestSpec
    except ImportError:
        raise TestsDidNotRun(
            "reading a SWE-bench repository's test log needs swebench 5.x: pip install "
            "'capabench[swebench]'"
        ) from None
    parser = MAP_REPO_TO_PARSER_PY.get(instance.repo)
    name = next((k for k, v in PARSER_REGISTRY.items() if v is parser), None)
    if name is None:
        raise TestsDidNotRun(f"swebench has no log parser for {instance.repo}")
    test_spec = TestSpec(
        instance_id=instance.instance_id,
        image="",
        eval_script_list=[],
        repo=instance.repo,
        version=spec.version,
        FAIL_TO_PASS=list(instance.fail_to_pass),
        PASS_TO_PASS=list(instance.pass_to_pass),
        log_parser=name,
        eval_type="pass_and_fail",
    )
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as fh:
        fh.write(log)
    try:
        found, ok = get_logs_eval(test_spec, fh.name)
    finally:
        os.unlink(fh.name)
    if not ok:
        tail = " | ".join(log.strip().splitlines()[-4:])[-400:]
        raise TestsDidNotRun(f"swebench found no valid test run in the log: {tail}")
    return found
