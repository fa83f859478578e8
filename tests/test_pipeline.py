"""The main job's pipeline (scripts/pipeline.sh, what scripts/main.sh runs after the setup)
end to end against a local fake OpenAI-compatible server, so a broken step fails CI: the
policies, the model's slice, one report, and the ask-or-guess arm from preflight to
dashboard."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from capabench.testing.fake_openai import FakeOpenAI

ROOT = Path(__file__).resolve().parents[1]


def _answer(references: dict[str, str]):
    def answer(messages: list[dict]) -> str:
        request = next((m["content"] for m in messages if m["role"] == "user"), "")
        if request in references:  # a CAPA session: its reference
            return f"```python\n{references[request]}```"
        turn = sum(m["role"] == "assistant" for m in messages)
        if "notes.txt" in request:  # the preflight canary: ask, act on the answer, finish
            return (
                [
                    "```ask_user\nWhat should notes.txt say?\n```",
                    "```bash\necho ok > notes.txt\n```",
                ][turn]
                if turn < 2
                else "```submit\n```"
            )
        return "```bash\nls\n```" if turn == 0 else "```submit\n```"  # an issue: look, then stop

    return answer


def test_the_main_jobs_pipeline_runs_end_to_end(built, tmp_path):
    from capabench.benchmark import default_benchmark_path, write_benchmark

    bench, _ = built
    if not default_benchmark_path(0).exists():
        write_benchmark(bench, default_benchmark_path(0))
    references = {s.request: s.reference for s in bench.sessions}
    env = {
        **os.environ,
        "RUNS": str(tmp_path / "runs"),
        "REPORT": str(tmp_path / "report"),
        "POLICY_LIMIT": "10",
        "MODEL_LIMIT": "2",
        "SWE_COUNT": "1",
        "CAPABENCH": str(Path(sys.executable).parent / "capabench"),
    }
    with FakeOpenAI(_answer(references)) as server:
        done = subprocess.run(
            [
                "bash",
                str(ROOT / "scripts" / "pipeline.sh"),
                "openai/fake",
                "--base-url",
                server.base_url,
                "--api-key",
                "none",
            ],
            env=env,
            capture_output=True,
            text=True,
            timeout=900,
        )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    report = tmp_path / "report"
    assert {"report.html", "report.json", "main.csv", "swe-dashboard.html"} <= {
        p.name for p in report.iterdir()
    }
    main = (report / "main.csv").read_text()
    for model in (
        "baseline/oracle",
        "baseline/history-reader",
        "baseline/asker",
        "baseline/guesser",
        "openai/fake",
    ):
        assert model in main
    said = (done.stdout + done.stderr).replace("\n", " ")
    assert "openai/fake's ask channel was observed" in said
    page = (report / "swe-dashboard.html").read_text()
    assert "openai/fake" in page and '"passed": true' in page
