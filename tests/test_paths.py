"""The shared atomic write: every layer's whole-or-nothing file (run manifests, memories, SWE
results, the judge's cache, the trained weights) goes through it."""

from __future__ import annotations

import os
import stat

import pytest

from capabench.paths import write_atomically


def test_an_atomic_write_replaces_the_file_whole(tmp_path):
    target = tmp_path / "deep" / "result.json"
    write_atomically(target, "first\n")
    write_atomically(target, b"second\n", durable=True)
    assert target.read_text() == "second\n"
    assert os.listdir(target.parent) == ["result.json"]  # no staging file left behind


def test_an_atomic_write_that_fails_leaves_the_old_file_and_nothing_else(tmp_path):
    target = tmp_path / "result.json"
    target.write_text("old\n")
    with pytest.raises(TypeError):
        write_atomically(target, 12345)  # type: ignore[arg-type]
    assert target.read_text() == "old\n"
    assert os.listdir(tmp_path) == ["result.json"]


def test_an_atomic_write_has_the_mode_a_plain_write_would_have(tmp_path):
    plain, atomic = tmp_path / "plain", tmp_path / "atomic"
    plain.write_text("x")
    write_atomically(atomic, "x")
    assert stat.S_IMODE(atomic.stat().st_mode) == stat.S_IMODE(plain.stat().st_mode)


def test_an_exclusive_write_leaves_a_file_already_there_as_it_was(tmp_path):
    target = tmp_path / "run.json"
    write_atomically(target, "first\n", exclusive=True)
    with pytest.raises(FileExistsError):
        write_atomically(target, "second\n", durable=True, exclusive=True)
    assert target.read_text() == "first\n"
    assert os.listdir(tmp_path) == ["run.json"]
