"""A dataset whose repositories are local (the bundled one, or clones under --repos) in the
official harness's own terms: a SWE-bench-format JSON (image, eval script and log parser per
instance) and one Docker image per instance with the repository at its base commit in
/testbed, built on a base image that has python3, pytest and git or can install them."""

from __future__ import annotations

import json
import shlex
import tempfile
from collections.abc import Callable
from pathlib import Path

from capabench.swe.git import checkout
from capabench.swe.swe_records import Instance, patch_files

DEFAULT_BASE_IMAGE = "python:3.11-slim"
HEREDOC = "EOF_114329324912"  # the delimiter SWE-bench's own eval scripts use

DOCKERFILE = """FROM {base}
RUN command -v git >/dev/null || (apt-get update && apt-get install -y --no-install-recommends git)
RUN python3 -m pytest --version >/dev/null 2>&1 || python3 -m pip install --no-cache-dir pytest
COPY repo /testbed
WORKDIR /testbed
RUN git config --global --add safe.directory /testbed
"""


def image_name(instance: Instance) -> str:
    name = instance.repo.rpartition("/")[2].lower()
    return f"capabench-swe/{name}:{instance.base_commit[:12]}"


def eval_script(instance: Instance) -> str:
    """Reset the instance's test files, apply its test patch, run its tests between the
    harness's markers with pytest's summary (the `parse_log_pytest` format), reset again."""
    files = " ".join(shlex.quote(f) for f in patch_files(instance.test_patch))
    ids = " ".join(shlex.quote(t) for t in (*instance.fail_to_pass, *instance.pass_to_pass))
    reset = f"git checkout {instance.base_commit} -- {files}" if files else ":"
    lines = ["#!/bin/bash", "set -uxo pipefail", "cd /testbed", reset]
    if instance.test_patch.strip():
        lines += [f"git apply -v - <<'{HEREDOC}'", instance.test_patch.rstrip("\n"), HEREDOC]
    lines += [
        ": '>>>>> Start Test Output'",
        f"python3 -m pytest -rA -p no:cacheprovider {ids}",
        ": '>>>>> End Test Output'",
        reset,
    ]
    return "\n".join(lines) + "\n"


def harness_record(instance: Instance) -> dict:
    return {
        "instance_id": instance.instance_id,
        "repo": instance.repo,
        "base_commit": instance.base_commit,
        "patch": instance.patch,
        "test_patch": instance.test_patch,
        "problem_statement": instance.problem_statement,
        "hints_text": instance.hints_text,
        "created_at": "",
        "version": "0",
        "environment_setup_commit": instance.base_commit,
        "FAIL_TO_PASS": list(instance.fail_to_pass),
        "PASS_TO_PASS": list(instance.pass_to_pass),
        "image": image_name(instance),
        "eval_script": eval_script(instance),
        "log_parser": "parse_log_pytest",
        "eval_type": "pass_and_fail",
    }


def prepare(
    instances: list[Instance],
    repo_of: Callable[[Instance], Path],
    out: Path,
    *,
    base_image: str = DEFAULT_BASE_IMAGE,
    log: Callable[[str], None] = print,
) -> Path:
    """Build the images that are missing (or were built on another base image) and write the
    dataset JSON for `--dataset_name`; returns its path. `repo_of(instance)` is the git
    repository to check out."""
    import docker

    client = docker.from_env()
    base = _image(client, base_image)
    base_id = base.id if base is not None else base_image  # pulled by the first build
    for instance in instances:
        tag = image_name(instance)
        built = _image(client, tag)
        if built is not None and built.labels.get("capabench.base") == base_id:
            continue
        log(f"building {tag} on {base_image}")
        with tempfile.TemporaryDirectory(prefix="capabench-image-") as tmp:
            context = Path(tmp)
            checkout(repo_of(instance), instance.base_commit, context / "repo")
            (context / "Dockerfile").write_text(DOCKERFILE.format(base=base_image))
            client.images.build(
                path=str(context), tag=tag, rm=True, labels={"capabench.base": base_id}
            )
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps([harness_record(i) for i in instances], indent=1))
    return out


def _image(client, name: str):
    """The local image of that name, or None."""
    import docker

    try:
        return client.images.get(name)
    except docker.errors.ImageNotFound:
        return None
