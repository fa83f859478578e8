"""The extension points are one file each: an outside package (made here in a temporary
directory, registered through its entry points, as `pip install` would) adds a model
provider, a convention family, a history method and an agent runner without touching
capabench, and each is used through the command line. The commands run in a fresh
interpreter: what they register never reaches this process's registries."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from capabench.registry import DuplicateName, Registry

SRC = Path(__file__).resolve().parents[1] / "src"
POOL = Path(__file__).parent / "data" / "custom_tasks" / "pool.jsonl"
PACKAGE = "capabench_ext_demo"

PROVIDER = '''
from capabench.models import Completion, register


class Echo:
    """Answers every turn with the same submission."""

    endpoint = None  # in this process

    def __init__(self, name):
        self.name = name

    def complete(self, messages, reply=None):
        return Completion(text="```python\\ndef f():\\n    return 0\\n```", model=self.name,
                          input_tokens=7, output_tokens=5)


@register("myprov")
def make(rest, options):
    return Echo(f"myprov/{rest}")
'''

FAMILY = """
from capabench.conventions.base import Alternative, Family, Layer, Vocabulary, register
from capabench.records import Mechanism


@register
class VersionTag(Family):
    id = "version_tag"
    mechanism = Mechanism.HABITUAL
    layer = Layer.NAMING
    concept = "the version tag the user's codebase puts on every public function"
    vocabulary = Vocabulary(anchors=(r"\\bversion tag", r"\\bversion(?:ed)? (?:suffix|prefix)"))
    exemplars = ("Which version tag do your functions carry?",)
    question = "Which version tag does your codebase put on a public function?"
    alternatives = (
        Alternative("v2_suffix", "Our public functions end in _v2, e.g. parse_row_v2.", ("_v2",)),
        Alternative("next_prefix", "Our public functions start with next_, e.g. next_parse_row.",
                    ("next_",)),
    )

    def public_name(self, alt, base):
        return {"v2_suffix": f"{base}_v2", "next_prefix": f"next_{base}"}[alt]

    def wrap(self, alt, inner, ctx):
        raise AssertionError("a version tag renames the public function; it adds no layer")
"""

HISTORY = """
from capabench.history.base import HistoryContext, register_function


@register_function("mymethod")
def build(session, env):
    return HistoryContext(info={"method": "mine", "earlier": len(env.history_of(session))})
"""

AGENT = '''
from capabench.swe.agents import register
from capabench.swe.records import AgentSetup, SessionOutcome  # the old path, still served


@register("myagent-")
class MyAgent:
    """Asks once through the recorder, writes the answer, reports."""

    name = "my-agent"

    def __init__(self, model, budget):
        self.model, self.budget = model, budget

    @classmethod
    def from_options(cls, model, options, budget):
        return cls(model, budget)

    def run(self, task, ws):
        from capabench.swe.agents import SessionRecorder

        out = SessionOutcome(stop_reason="completed", setup=AgentSetup(budget=self.budget))
        record = SessionRecorder(ws, out)
        question = "Which spelling should notes.txt use?"
        record.model(question)
        answer = record.ask(question, turn=1, channel="my ask")
        out.turns = 2
        (ws.path / "notes.txt").write_text(answer + "\\n")
        record.final("Wrote notes.txt.")
        return out
'''

ENTRY_POINTS = f"""
[capabench.providers]
myprov = {PACKAGE}.provider

[capabench.families]
version_tag = {PACKAGE}.family

[capabench.history]
mymethod = {PACKAGE}.history

[capabench.agents]
myagent = {PACKAGE}.agent
"""


@pytest.fixture(scope="module")
def outside(tmp_path_factory):
    """The outside package, one file per extension, and the environment that finds it."""
    root = tmp_path_factory.mktemp("site")
    package = root / PACKAGE
    package.mkdir()
    (package / "__init__.py").write_text("")
    for name, source in (
        ("provider", PROVIDER),
        ("family", FAMILY),
        ("history", HISTORY),
        ("agent", AGENT),
    ):
        (package / f"{name}.py").write_text(textwrap.dedent(source))
    info = root / f"{PACKAGE}-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {PACKAGE}\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(ENTRY_POINTS)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(SRC), str(root)])}
    return env


def capabench(env, *args: str) -> subprocess.CompletedProcess:
    done = subprocess.run(
        [sys.executable, "-m", "capabench.cli", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done


def test_a_family_provider_and_history_method_from_outside_are_built_and_played(outside, tmp_path):
    bench = tmp_path / "bench"
    small = ["--profiles", "terse-expert,friendly-novice,academic", "--cells-per-pair", "1"]
    capabench(
        outside,
        *("build", "--tasks", str(POOL), *small, "--history", "1", "--heldout", "1"),
        *("--out", str(bench)),
    )
    sessions = [
        json.loads(line)
        for name in ("sessions-history.jsonl", "sessions-heldout.jsonl")
        for line in (bench / name).read_text().splitlines()
    ]
    mine = [s for s in sessions if any(x["family"] == "version_tag" for x in s["slots"])]
    assert mine, "the new family was never chosen"
    # Its alternative decides the name the hidden tests call.
    for s in mine:
        (slot,) = [x for x in s["slots"] if x["family"] == "version_tag"]
        tag = {"v2_suffix": "_v2", "next_prefix": "next_"}[slot["alternative"]]
        assert tag in s["entry_point"] and s["entry_point"] != s["base_entry_point"]

    run = tmp_path / "run"
    played = capabench(
        outside,
        *("run", "--benchmark", str(bench), "--model", "myprov/x", "--conditions", "mymethod"),
        *("--limit", "2", "--run-dir", str(run), "--no-cache", "--quiet"),
    )
    results = [json.loads(line) for line in (run / "results.jsonl").read_text().splitlines()]
    assert len(results) == 2
    for r in results:
        assert r["status"] == "completed" and r["condition"] == "mymethod"
        assert r["history_info"] == {"method": "mine", "earlier": 1}
        assert r["model"] == "myprov/x" and r["input_tokens"] > 0  # its model played
    # The default (learned) matcher wasn't trained on it: the rules read it, and say so.
    assert "learned intent weights don't know version_tag" in played.stderr


def test_an_agent_runner_from_outside_plays_a_batch(outside, swe_bundled, tmp_path):
    dataset, instances = swe_bundled
    runs = tmp_path / "swe"
    capabench(
        outside,
        *("swe", "batch", "--model", "myagent-x", "--dataset", str(dataset)),
        *("--count", "1", "--condition", "ambiguous", "--runs", str(runs)),
    )
    from capabench.swe.store import SweStore

    (summary,) = SweStore(runs).summaries()
    assert summary.runner == "my-agent" and summary.model == "myagent-x"
    assert summary.instance_id == instances[0].instance_id and summary.stop_reason == "completed"
    assert summary.asked


def test_a_registry_refuses_a_second_member_under_one_name():
    registry: Registry[int] = Registry("demo member")
    registry.add("one", 1, origin="first.py")
    with pytest.raises(DuplicateName, match=r"'one' is registered twice: by first\.py"):
        registry.add("one", 2, origin="second.py")
    assert dict(registry) == {"one": 1}
    with registry.scoped():
        registry.add("two", 2)
        assert "two" in registry
    assert "two" not in registry


def test_an_outside_family_is_part_of_the_default_benchmarks_cache_key(outside):
    def fingerprint(env) -> str:
        code = "from capabench.benchmark import source_fingerprint; print(source_fingerprint())"
        done = subprocess.run(
            [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300
        )
        assert done.returncode == 0, done.stderr
        return done.stdout.strip()

    alone = {**os.environ, "PYTHONPATH": str(SRC)}
    assert fingerprint(outside) != fingerprint(alone)


def test_a_lookup_from_another_thread_waits_for_the_whole_discovery(tmp_path, monkeypatch):
    """Builders look families up from worker threads: none may see half a registry."""
    import threading

    package = tmp_path / "capabench_slow_demo"
    package.mkdir()
    (package / "__init__.py").write_text(
        "from capabench.registry import Registry\n"
        "REG = Registry('slow member', package='capabench_slow_demo')\n"
    )
    for i in range(3):  # each module takes a while, then registers one member
        (package / f"m{i}.py").write_text(
            f"import time\nfrom capabench_slow_demo import REG\ntime.sleep(0.2)\nREG.add('m{i}', {i})\n"
        )
    monkeypatch.syspath_prepend(str(tmp_path))
    from capabench_slow_demo import REG  # type: ignore[import-not-found]

    seen: list[list[str]] = []
    threads = [threading.Thread(target=lambda: seen.append(sorted(REG))) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert seen == [["m0", "m1", "m2"]] * 4


def test_a_family_the_learned_weights_dont_know_is_read_by_the_rules():
    from capabench.conventions import REGISTRY
    from capabench.simulate.intent.learned import LearnedMatcher, load_weights
    from capabench.simulate.intent.rules import RulesMatcher

    full = load_weights()
    untrained = full.model_copy(
        update={
            name: {f: w for f, w in getattr(full, name).items() if f != "naming"}
            for name in ("families", "words_only")
        }
    )
    with pytest.warns(UserWarning, match="don't know naming: the rules matcher reads them"):
        matcher = LearnedMatcher(untrained)
    held = ["naming", "batch"]
    for message in (REGISTRY["naming"].question, "Should I add type hints?"):
        rules = RulesMatcher().read(message, held).targets(held)
        assert matcher.read(message, held).targets(held) == rules
    assert matcher.read(REGISTRY["naming"].question, held).targets(held) == ["naming"]


@pytest.mark.parametrize(
    "first", ["capabench.simulate.intent.rules", "capabench.conventions.families.tidy_list"]
)
def test_the_families_order_does_not_depend_on_what_was_imported_first(first):
    # a family's module imported before discovery registers it ahead of the rest; the registry
    # still lists its package's members in module order, or the policies that ask about every
    # family would word their questions in another order in another process
    order = "from capabench.conventions import REGISTRY; print(list(REGISTRY))"
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[1] / "src")}
    fresh = subprocess.run(
        [sys.executable, "-c", order], env=env, capture_output=True, text=True, check=True
    ).stdout
    after = subprocess.run(
        [sys.executable, "-c", f"import {first}; {order}"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert after == fresh and "naming" in fresh
