from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from math import prod
from pathlib import Path

import pytest

from capabench.conventions import REGISTRY
from capabench.metrics import summarize
from capabench.models import PLAIN, ModelOptions
from capabench.models.retry import RetryPolicy
from capabench.records import SessionRun
from capabench.report import load_runs
from capabench.report.render import write_report
from capabench.runner import RunConfig, Runner, select_sessions
from capabench.store import RunDirError, RunStore
from capabench.testing.browser import chromium, dump_dom
from capabench.testing.fake_openai import FakeOpenAI

CONDITIONS = ["none", "same-user", "shuffled"]


def _summaries(results):
    return {c: summarize([r for r in results if r.condition == c]) for c in CONDITIONS}


@pytest.fixture(scope="module")
def policy_runs(built, pool, tmp_path_factory):
    bench, _ = built
    out = {}
    for name in ("oracle", "history-reader", "guesser"):
        runner = Runner(
            RunConfig(model=f"baseline/{name}", conditions=CONDITIONS, concurrency=3),
            bench,
            tmp_path_factory.mktemp(name),
            pool=pool,
        )
        out[name] = _summaries(runner.run())
    return out


def test_oracle_is_perfect_everywhere(policy_runs):
    for s in policy_runs["oracle"].values():
        assert (s.n, s.es, s.ft_es, s.ttc) == (300, 1.0, 1.0, 1.0)


def test_history_reader_needs_the_users_own_history(policy_runs):
    s = policy_runs["history-reader"]
    assert s["same-user"].ft_es >= 0.95
    assert s["none"].ft_es <= 0.2 and s["shuffled"].ft_es == 0.0  # the control carries no answer
    assert s["same-user"].ttc < s["none"].ttc and s["same-user"].ttc < s["shuffled"].ttc
    assert s["same-user"].needless_ask_rate == 0.0


def test_guesser_is_at_chance_without_history(policy_runs, built):
    bench, _ = built
    heldout = [x for x in bench.sessions if x.split == "heldout"]
    chance = sum(
        1 / prod(len(REGISTRY[s.family].alternatives) for s in x.slots) for x in heldout
    ) / len(heldout)
    assert abs(policy_runs["guesser"]["none"].ft_es - chance) < 0.06
    assert policy_runs["guesser"]["none"].ask_rate == 0.0


def test_faulty_endpoint_loses_no_session(built, pool, tmp_path):
    bench, _ = built
    sessions = select_sessions(bench, 6)
    by_request = {s.request: s for s in sessions}
    doomed = sessions[0].request

    def answer(messages):
        request = next(m["content"] for m in messages if m["role"] == "user")
        return f"```python\n{by_request[request].reference}```"

    with FakeOpenAI(answer) as server:
        # Every kind of fault, in order, on the first requests; and one session whose every
        # request fails however often it is retried.
        server.faults.extend(["429", "500", "drop", "malformed", "timeout", "500"])
        fail_always = {"on": True}
        options = ModelOptions(
            base_url=server.base_url,
            timeout_s=1.0,
            concurrency=4,
            retry=RetryPolicy(attempts=4, base_s=0.01, cap_s=0.02, sleep=lambda s: None),
        )
        prices = tmp_path / "prices.json"
        prices.write_text(json.dumps({"openai/fake": [1.0, 2.0]}))
        config = RunConfig(
            model="openai/fake",
            conditions=["none", "same-user"],
            limit=6,
            concurrency=4,
            options=options,
            prices=str(prices),
        )
        runner = Runner(config, bench, tmp_path / "run", pool=pool)
        real_complete = runner.player.model.complete

        def complete(messages, reply=PLAIN):
            if fail_always["on"] and any(m.content == doomed for m in messages):
                from capabench.models import InfraError

                raise InfraError("endpoint down for this session")
            return real_complete(messages, reply)

        runner.player.model.complete = complete
        results = runner.run()
    assert len(results) == 12 and {r.key for r in results} == {
        f"{s.id}|{c}|0" for s in sessions for c in ("none", "same-user")
    }
    errors = [r for r in results if r.status == "infra_error"]
    assert {r.session_id for r in errors} == {sessions[0].id} and all(
        "endpoint down" in r.error for r in errors
    )
    assert all(r.solved_turn == 1 for r in results if r.status == "completed")
    assert all(
        r.cost_usd == pytest.approx((r.input_tokens + 2 * r.output_tokens) / 1e6) and r.input_tokens
        for r in results
        if r.status == "completed"
    )
    # Resuming retries only the infrastructure errors.
    fail_always["on"] = False
    assert {r.key for r in runner.store.results() if r.status == "completed"} == {
        r.key for r in results if r.status == "completed"
    }
    assert len(runner.jobs()) == 2


def _children(pid: int) -> list[int]:
    """Live child processes of `pid`, from /proc."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            if int(stat.read_text().rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(stat.parent.name))
        except (OSError, ValueError):
            continue
    return found


def _strip(results):
    return sorted((r.model_dump(exclude={"duration_s"}) for r in results), key=lambda d: d["key"])


def test_kill_and_resume_matches_an_uninterrupted_run(built, tmp_path):
    from capabench.benchmark import default_benchmark_path, write_benchmark

    bench, _ = built
    env = {**os.environ, "CAPABENCH_CACHE": str(tmp_path / "cache")}
    os.environ["CAPABENCH_CACHE"], saved = env["CAPABENCH_CACHE"], os.environ.get("CAPABENCH_CACHE")
    try:
        write_benchmark(bench, default_benchmark_path(0))
    finally:
        if saved is None:
            os.environ.pop("CAPABENCH_CACHE")
        else:
            os.environ["CAPABENCH_CACHE"] = saved
    cli = [
        sys.executable,
        "-m",
        "capabench.cli",
        "run",
        "--model",
        "baseline/history-reader",
        "--conditions",
        "none,same-user,shuffled",
        "--limit",
        "40",
        "--concurrency",
        "2",
    ]
    whole, killed = tmp_path / "whole", tmp_path / "killed"
    subprocess.run([*cli, "--run-dir", str(whole)], env=env, check=True, capture_output=True)
    cli += ["--processes", "2"]  # the killed run plays in worker processes: same results
    proc = subprocess.Popen(
        [*cli, "--run-dir", str(killed)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    results = killed / "results.jsonl"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and (
        not results.exists() or results.read_text().count("\n") < 15
    ):
        time.sleep(0.05)
    workers = _children(proc.pid)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    deadline = time.monotonic() + 10
    while any(Path(f"/proc/{pid}").exists() for pid in workers) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(workers) >= 2 and not any(Path(f"/proc/{pid}").exists() for pid in workers)
    partial = results.read_text().count("\n")
    assert 15 <= partial < 120
    with results.open("ab") as fh:  # as if the kill had torn a line mid-write
        fh.write(b'{"key": "cell00-5|none|0", "sess')
    subprocess.run([*cli, "--run-dir", str(killed)], env=env, check=True, capture_output=True)
    lines = [json.loads(line) for line in results.read_text().splitlines()]
    assert (
        len(lines) == 120 and len({line["key"] for line in lines}) == 120
    )  # nothing lost, nothing twice
    assert _strip(RunStore(killed).results()) == _strip(RunStore(whole).results())


def test_store_refuses_a_different_run_and_reports_render(built, pool, tmp_path):
    bench, _ = built
    config = RunConfig(
        model="baseline/oracle", conditions=["none", "same-user"], limit=5, concurrency=2
    )
    Runner(config, bench, tmp_path / "run", pool=pool).run()
    with pytest.raises(RunDirError, match="started with model='baseline/oracle'"):
        Runner(
            RunConfig(model="baseline/asker", conditions=["none"], limit=5),
            bench,
            tmp_path / "run",
            pool=pool,
        ).run()
    guesser = RunConfig(
        model="baseline/guesser", conditions=["none", "same-user"], limit=5, epochs=2
    )
    Runner(guesser, bench, tmp_path / "guesser", pool=pool).run()
    files = write_report(load_runs([tmp_path / "run", tmp_path / "guesser"]), tmp_path / "report")
    expected = {
        "main.csv",
        "conditions.csv",
        "mechanisms.csv",
        "profiles.csv",
        "difficulty.csv",
        "pass_k.csv",
    }
    assert expected | {"report.json", "report.html", "by-condition.png"} <= set(files)
    report = json.loads((tmp_path / "report" / "report.json").read_text())
    oracle_levels = {
        r["difficulty"] for r in report["difficulty"] if r["model"] == "baseline/oracle"
    }
    assert oracle_levels == {"simple"}  # solved at turn 1 without history
    assert {(r["condition"], r["k"]) for r in report["pass_k"]} == {
        (c, k) for c in ("none", "same-user") for k in (1, 2)
    }
    assert {r["profile"] for r in report["profiles"]} <= {s.profile_id for s in bench.sessions}
    page = (tmp_path / "report" / "report.html").read_text()
    assert "baseline/oracle" in page and "data:image/png;base64," in page
    # Opens offline: nothing loaded from elsewhere (its scripts are inline; a dialogue may
    # quote a URL as text, never as a source).
    assert not re.search(
        r"""(?:src|href)\s*=\s*["']?(?:https?:)?//|<link\b|<script[^>]*\bsrc=|@import""", page
    )
    assert isinstance(
        SessionRun.model_validate_json(
            (tmp_path / "run" / "results.jsonl").read_text().splitlines()[0]
        ),
        SessionRun,
    )


@pytest.mark.skipif(
    shutil.which("chromium") is None, reason="needs chromium (scripts/setup.sh test installs it)"
)
def test_html_report_renders_in_headless_chromium(built, pool, tmp_path):
    bench, _ = built
    Runner(
        RunConfig(model="baseline/history-reader", conditions=["none", "same-user"], limit=6),
        bench,
        tmp_path / "run",
        pool=pool,
    ).run()
    write_report(load_runs([tmp_path / "run"]), tmp_path / "report")
    page = (tmp_path / "report" / "report.html").resolve().as_uri()
    browser = chromium(tmp_path / "profile")
    dom = dump_dom(tmp_path / "report" / "report.html", tmp_path / "profile")
    assert "Main table: no history vs same-user history" in dom and dom.count("<img") == 2
    assert "baseline/history-reader" in dom and "<td>100.0</td>" in dom
    shot = tmp_path / "shot.png"
    subprocess.run(
        [*browser, f"--screenshot={shot}", "--window-size=1200,1600", page],
        capture_output=True,
        timeout=120,
    )
    assert shot.stat().st_size > 20_000  # a rendered page with tables and plots, not a blank one


def test_a_harness_bug_stops_the_run_keeping_what_finished(built, pool, tmp_path, monkeypatch):
    bench, _ = built
    runner = Runner(
        RunConfig(model="baseline/oracle", conditions=["none"], limit=40, concurrency=2),
        bench,
        tmp_path,
        pool=pool,
    )
    played, play = [], runner.player.play
    bad = runner.jobs()[5][0]  # (session id, condition, epoch)

    def buggy(session, cond, epoch):
        played.append(session.id)
        if session.id == bad:
            raise KeyError("a bug")
        return play(session, cond, epoch)

    monkeypatch.setattr(runner.player, "play", buggy)
    with pytest.raises(KeyError):
        runner.run()
    stored = RunStore(tmp_path).results()
    assert bad not in {r.session_id for r in stored}
    assert len(stored) >= 5 and {r.session_id for r in stored} <= set(played)
    assert len(played) < 40  # the queue was dropped, not played unstored


def test_worker_processes_say_why_they_could_not_start(built, tmp_path):
    bench, _ = built
    config = RunConfig(model="baseline/oracle", conditions=["gated-llm"], limit=2, processes=2)
    with pytest.raises(RuntimeError, match="needs an LLM"):
        Runner(config, bench, tmp_path).run()


def test_epochs_resume_and_the_statistics_that_read_them(built, pool, tmp_path):
    """A deterministic policy played with 1 and with 3 epochs (the second resumed from 1):
    same intervals and p-values; pass^k reaches k = 3 from the results; the report names
    every method; paired n counts the sessions both conditions completed."""
    from capabench.metrics import paired_tests
    from capabench.report.tables import main_table_rows, pass_k_rows

    bench, _ = built
    conds = ["none", "same-user"]
    single = RunConfig(model="baseline/history-reader", conditions=conds, limit=20, concurrency=3)
    Runner(single, bench, tmp_path / "one", pool=pool).run()
    Runner(single, bench, tmp_path / "three", pool=pool).run()
    triple = RunConfig(
        model="baseline/history-reader", conditions=conds, limit=20, concurrency=3, epochs=3
    )
    resumed = Runner(triple, bench, tmp_path / "three", pool=pool).run()
    assert len(resumed) == 120
    one, three = load_runs([tmp_path / "one"])[0], load_runs([tmp_path / "three"])[0]
    for cond in conds:
        a, b = summarize(one.by_condition()[cond]), summarize(three.by_condition()[cond])
        assert a.ci == b.ci and a.n == b.n == 20 and b.attempts == 60
    tests = [
        paired_tests(r.by_condition()["none"], r.by_condition()["same-user"]) for r in (one, three)
    ]
    assert [(t.n, t.p_value) for t in tests[0]] == [(t.n, t.p_value) for t in tests[1]]
    assert {r["k"] for r in pass_k_rows([three])} == {1, 2, 3}  # the manifest still says epochs 1
    files = write_report([three], tmp_path / "report")
    report = json.loads(files["report.json"].read_text())
    assert {"interval ES", "interval TTC", "clusters", "test ES", "test TTC", "correction"} <= set(
        report["methods"]
    )
    assert (
        "Wilson" in report["methods"]["interval ES"] and "Holm" in report["methods"]["correction"]
    )
    # A session the history condition lost to an infrastructure error is not paired.
    store = RunStore(tmp_path / "one")
    lost = next(r for r in store.results() if r.condition == "same-user")
    rows = main_table_rows([replace_result(load_runs([tmp_path / "one"])[0], lost.key)])
    assert rows[0]["paired n"] == 19 and "p ES (Holm)" in rows[0]


def replace_result(run, key):
    """The run with one result turned into an infrastructure error."""
    results = [
        r.model_copy(update={"status": "infra_error"}) if r.key == key else r for r in run.results
    ]
    return type(run)(run.path, run.manifest, results)


def test_needless_asks_come_only_from_the_users_own_history(built, pool, tmp_path):
    bench, _ = built
    config = RunConfig(
        model="baseline/asker", conditions=["same-user", "shuffled"], limit=15, concurrency=3
    )
    results = Runner(config, bench, tmp_path / "asker", pool=pool).run()
    by = {c: summarize([r for r in results if r.condition == c]) for c in config.conditions}
    assert by["same-user"].needless_ask_rate == 1.0 and by["same-user"].needless_per_ask > 0
    assert (
        by["shuffled"].needless_ask_rate == 0.0
    )  # other users' histories never make an ask needless
    assert all(r.history_info["overlap"] == 0 for r in results if r.condition == "shuffled")


def test_importing_capabench_patches_nothing_and_sets_no_environment():
    """Side effects belong where they are needed: the AST lock with a sandbox pool, mem0's
    telemetry switch with the mem0 condition. Importing the package and its players does neither."""
    probe = """
import ast, os
parse, environ = ast.parse, dict(os.environ)
import capabench, capabench.history, capabench.history.mem0, capabench.runner, capabench.studies
assert ast.parse is parse, "ast.parse was patched on import"
changed = {k for k in {*environ, *os.environ} if environ.get(k) != os.environ.get(k)}
assert not changed, changed
"""
    env = {k: v for k, v in os.environ.items() if k != "MEM0_TELEMETRY"}
    done = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_a_local_model_plays_one_session_per_call_slot():
    """Sessions taking turns on one llama.cpp context would each re-evaluate their whole
    dialogue at every turn; remote endpoints get a quarter more sessions than calls."""
    from capabench.runner import sessions_in_flight

    assert sessions_in_flight(1, "local") == 1 and sessions_in_flight(3, "local/m.gguf") == 3
    assert sessions_in_flight(1, "openai/gpt") == 2 and sessions_in_flight(8) == 10


def test_a_policys_code_is_judged_once_per_run_a_models_each_time(built, pool, tmp_path):
    """The same harness-written code against the same tests in another condition is not run
    again; a model's submission always is."""
    from capabench.player import Player

    bench, _ = built
    session = next(s for s in bench.sessions if s.split == "heldout")
    oracle = Player(RunConfig(model="baseline/oracle", conditions=CONDITIONS), bench, pool)
    first = oracle.play(session, "none", 0)
    judged = len(oracle.verdicts)
    again = oracle.play(session, "shuffled", 0)
    assert judged >= 1 and len(oracle.verdicts) == judged
    assert first.solved_turn == again.solved_turn == 1
    replies = tmp_path / "replies.json"
    replies.write_text(json.dumps(["```python\ndef f():\n    return 1\n```"] * 10))
    model = Player(RunConfig(model=f"scripted:{replies}", conditions=["none"]), bench, pool)
    assert model.verdicts is None
