"""The `ray` executor on a real multi-node cluster on this machine (Ray's own test cluster:
separate raylets, one CPU each): results identical to a local run, sessions spread over
nodes, a node lost mid-run, a driver killed and resumed, workers that can't start."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter

import pytest

ray = pytest.importorskip("ray")

from ray.cluster_utils import Cluster  # noqa: E402

from capabench.executors import WorkerStartError, make_executor  # noqa: E402
from capabench.models import ModelOptions  # noqa: E402
from capabench.runner import RunConfig, Runner  # noqa: E402
from capabench.testing.executors import NapSpec  # noqa: E402
from capabench.testing.fake_openai import FakeOpenAI  # noqa: E402


@pytest.fixture(scope="module")
def cluster():
    os.environ.setdefault("RAY_DEDUP_LOGS", "0")
    c = Cluster(initialize_head=True, head_node_args={"num_cpus": 1})
    c.add_node(num_cpus=1)
    c.add_node(num_cpus=1)
    c.wait_for_nodes()
    ray.init(address=c.address, include_dashboard=False, log_to_driver=False)
    yield c
    ray.shutdown()
    c.shutdown()


def _records(path) -> dict[str, dict]:
    out = {}
    for line in (path / "results.jsonl").read_text().splitlines():
        record = json.loads(line)
        record.pop("duration_s")
        assert record["key"] not in out, f"{record['key']} stored twice"
        out[record["key"]] = record
    return out


def test_a_ray_run_stores_what_a_local_run_stores(cluster, built, pool, tmp_path):
    bench, _ = built
    base = dict(
        model="baseline/history-reader", conditions=["none", "same-user"], limit=24, concurrency=3
    )
    Runner(RunConfig(**base), bench, tmp_path / "local", pool=pool).run()
    runner = Runner(
        RunConfig(**base, executor="ray", ray_address=cluster.address), bench, tmp_path / "ray"
    )
    runner.run()
    assert _records(tmp_path / "ray") == _records(tmp_path / "local")
    assert len(_records(tmp_path / "ray")) == 48
    assert len([n for n in runner.nodes if n]) >= 2  # played on more than one node


def _answers(bench):
    by_request = {s.request: s.reference for s in bench.sessions}
    return lambda messages: f"```python\n{by_request.get(messages[1]['content'], 'pass')}```"


def test_a_node_lost_mid_run_loses_and_duplicates_nothing(cluster, built, tmp_path):
    bench, _ = built
    doomed = cluster.add_node(num_cpus=1)
    cluster.wait_for_nodes()
    with FakeOpenAI(_answers(bench), latency_s=0.15) as server:
        config = RunConfig(
            model="openai/fake",
            conditions=["none"],
            limit=40,
            concurrency=4,
            options=ModelOptions(base_url=server.base_url, api_key="none", concurrency=4),
            executor="ray",
            ray_address=cluster.address,
        )
        seen = []

        def progress(result):
            seen.append(result.key)
            if len(seen) == 4:
                cluster.remove_node(doomed)  # its actor dies with sessions in flight

        Runner(config, bench, tmp_path).run(progress)
    records = _records(tmp_path)  # asserts each key once
    assert len(records) == 40
    assert all(r["status"] == "completed" for r in records.values())
    assert sorted(seen) == sorted(records)


def test_the_driver_killed_then_rerun_resumes_exactly(cluster, built, tmp_path):
    bench, bench_dir = built
    run_dir = tmp_path / "run"
    with FakeOpenAI(_answers(bench), latency_s=0.3) as server:
        command = [
            sys.executable, "-m", "capabench.cli", "run", "--model", "openai/fake",
            "--conditions", "none", "--limit", "30", "--concurrency", "2", "--quiet",
            "--benchmark", str(bench_dir), "--run-dir", str(run_dir), "--no-cache",
            "--base-url", server.base_url, "--api-key", "none",
            "--executor", "ray", "--ray-address", cluster.address,
        ]  # fmt: skip
        first = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 120
        results = run_dir / "results.jsonl"
        while time.monotonic() < deadline and first.poll() is None:
            if results.exists() and len(results.read_text().splitlines()) >= 5:
                break
            time.sleep(0.1)
        first.send_signal(signal.SIGKILL)
        first.wait()
        killed_at = len(results.read_text().splitlines())
        assert 5 <= killed_at < 30, first.stderr.read().decode()[-2000:]
        second = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert second.returncode == 0, second.stderr[-2000:]
    records = _records(run_dir)  # asserts each key once
    assert len(records) == 30 and all(r["status"] == "completed" for r in records.values())


def test_the_executor_retries_lost_work_and_reports_bugs(cluster):
    executor = make_executor("ray", address=cluster.address)
    jobs = [f"job-{i}" for i in range(12)] + ["bug"]
    outcomes = list(executor.map(NapSpec(delay=0.05), jobs, in_flight=3))
    assert outcomes[-1].job == "bug" and "a bug in the harness" in outcomes[-1].error
    played = Counter(o.job for o in outcomes if o.result is not None)
    assert set(played.values()) <= {1}


def test_a_worker_that_cannot_start_names_its_node(cluster):
    executor = make_executor("ray", address=cluster.address)
    with pytest.raises(
        WorkerStartError, match=r"Ray node \w+ could not start: ModuleNotFoundError.*an_extra"
    ):
        list(executor.map(NapSpec(broken=True), ["a", "b"], in_flight=2))


def test_work_that_needs_docker_goes_where_docker_is(cluster):
    """E.g. the official harness's grades: a recipe naming a custom resource is played on the
    node that offers it, and refused with the reason when none does."""
    docker = cluster.add_node(num_cpus=1, resources={"docker": 1})
    cluster.wait_for_nodes()
    executor = make_executor("ray", address=cluster.address)
    outcomes = list(executor.map(NapSpec(0.01, resources={"docker": 1}), ["a", "b"], in_flight=2))
    assert {o.node for o in outcomes} == {docker.node_id}
    with pytest.raises(WorkerStartError, match="no node of the Ray cluster offers tpu"):
        list(executor.map(NapSpec(0.01, resources={"tpu": 1}), ["a"], in_flight=1))
    cluster.remove_node(docker)


def test_an_unreachable_cluster_is_one_clear_line(tmp_path):
    command = [sys.executable, "-m", "capabench.cli", "run", "--model", "baseline/oracle",
               "--limit", "2", "--run-dir", str(tmp_path / "r"), "--executor", "ray",
               "--ray-address", "127.0.0.1:9"]  # fmt: skip
    env = {**os.environ, "RAY_ADDRESS": ""}
    done = subprocess.run(command, capture_output=True, text=True, timeout=300, env=env)
    assert done.returncode == 2, done.stderr[-2000:]
    assert "can't reach the Ray cluster (127.0.0.1:9)" in done.stderr
    assert "Traceback" not in done.stderr


def _swe_fixer(messages):
    """A scripted agent over HTTP: asks once, writes the gold source, submits."""
    from capabench.swe.data.bundled_repos import LIBRARIES

    task = messages[1]["content"]
    lib = next(lib for lib in LIBRARIES if lib.ambiguous in task or lib.full in task)
    done = sum(m["role"] == "assistant" for m in messages)
    if done == 0:
        return "Before I change anything:\n```ask_user\nWhich behaviour do you want?\n```"
    if done == 1:
        ((path, text),) = lib.gold.items()
        return f"```bash\ncat > {path} <<'CAPA_EOF'\n{text}CAPA_EOF\n```"
    return "Done.\n```submit\n```"


def test_a_swe_batch_on_ray_stores_what_a_local_batch_stores(cluster, swe_bundled, tmp_path):
    from capabench.swe.agents import RunnerOptions
    from capabench.swe.batch import RunnerRecipe, batch
    from capabench.swe.data.bundled import bundled_dir
    from capabench.swe.evaluate import evaluate
    from capabench.swe.store import SweStore

    _, instances = swe_bundled
    repos = bundled_dir() / "repos"  # the workers' environment lacks this test's cache setting
    summaries, patches, grades = {}, {}, {}
    with FakeOpenAI(_swe_fixer) as server:
        options = RunnerOptions(model=ModelOptions(base_url=server.base_url, api_key="none"))
        recipe = RunnerRecipe("openai/fake", options)
        for name in ("local", "ray"):
            store = SweStore(tmp_path / name)
            runs = batch(
                instances[:2],
                ["ambiguous", "full"],
                "openai/fake",
                recipe.build(),
                store,
                repos=repos,
                executor=(executor := make_executor(name, address=cluster.address)),
                recipe=recipe,
                in_flight=2,
            )
            keep = lambda s: s.model_dump(exclude={"run_id", "started", "duration_s"})  # noqa: E731
            summaries[name] = sorted((keep(s) for s in runs), key=lambda s: str(s))
            patches[name] = sorted(store.patch(s.run_id) for s in store.summaries())
            assert len(store.summaries()) == 4 and all(s.asked for s in store.summaries())
            graded = evaluate(instances[:2], store, repos=repos, executor=executor, in_flight=2)
            by_run = {s.run_id: (s.instance_id, s.condition) for s in store.summaries()}
            grades[name] = sorted((by_run[r], g.resolved, g.status) for r, g in graded.items())
    assert summaries["ray"] == summaries["local"]
    assert grades["ray"] == grades["local"] and len(grades["ray"]) == 4
    assert patches["ray"] == patches["local"] and all(patches["ray"])
