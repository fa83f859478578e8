"""The run-manifest record: the identity fields and their flags in one place, and the
manifests of run directories written before it still resume."""

from __future__ import annotations

import json

import pytest
import typer

from capabench.store import RunDirError, RunStore
from capabench.store.manifest import RunManifest


def _manifest(**changes) -> RunManifest:
    fields = dict(
        model="baseline/oracle",
        conditions=["none"],
        epochs=1,
        limit=None,
        seed=0,
        decoding="free text",
        user_model=None,
        user_matcher="learned",
        budget=5,
        benchmark_hash="abc",
        benchmark_seed=0,
        capabench_version="0",
        python="3",
        judge_isolation="process",
        base_url=None,
        prices=None,
        top_k=2,
        temperature=0.0,
        max_tokens=2048,
        context=None,
    )
    return RunManifest(**{**fields, **changes})


def test_every_identity_flag_is_an_option_of_capabench_run():
    from capabench.cli import app

    run = typer.main.get_command(app).commands["run"]
    options = {o for p in run.params for o in p.opts}
    flags = RunManifest.identity().values()
    named = {f for flag in flags for f in flag.split("/") if f.startswith("--")}
    assert named and named <= options, named - options


def test_a_manifest_written_before_the_record_resumes(tmp_path):
    """An old manifest.json is a plain JSON object (sorted, perhaps with fields of its own):
    the same settings resume it, a changed one is refused by name and flag."""
    old = {**_manifest().model_dump(mode="json"), "written_by": "an older capabench"}
    tmp_path.joinpath("manifest.json").write_text(json.dumps(old, sort_keys=True))
    store = RunStore(tmp_path)
    grown = store.check(_manifest(conditions=["none", "same-user"], epochs=2))
    assert grown["conditions"] == ["none", "same-user"] and grown["epochs"] == 2
    assert grown["written_by"] == "an older capabench"
    with pytest.raises(RunDirError, match=r"temperature=0\.0, not 0\.7 \(--temperature\)"):
        store.check(_manifest(temperature=0.7))
