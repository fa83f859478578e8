"""The embedded local model's first replies on the default benchmark's held-out sessions under
the `none` condition, built as the player builds them: the evaluation system prompt with no
history, the session's request as the only user turn, the local model's stop strings (a reply
ends with its first code block). Issue 27: real model questions for tests/data/real_questions.

    PYTHONPATH=src python scripts/local_first_replies.py OUT.jsonl [--temperatures 0,0.7]
        [--start 0] [--limit 300] [--threads 1] [--max-tokens 1024] [--until 03:15]
        [--prose-only]

--prose-only ends each reply where its first code block would begin (the prose, where a reply asks,
comes first; on a busy machine the code is most of the time): each record says it was cut so.

Appends one JSON line per reply (a rerun skips what OUT already holds) and stops at --until
(UTC, HH:MM), so that a run cut short keeps what it made. Seed 0 at every temperature, as
LocalModel samples; llama.cpp's numerics depend on the thread count, which is recorded.
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import json
import sys
import time
from pathlib import Path

from capabench.benchmark import default_benchmark_path, load_benchmark
from capabench.history import HistoryEnv, condition
from capabench.models import Message, ReplyOptions
from capabench.models.local import LocalModel, embedded_gguf
from capabench.player import select_sessions
from capabench.records import TURN_BUDGET, Turn
from capabench.simulate import ModelAssistant
from capabench.simulate.model_assistant import STOPS
from capabench.simulate.prompt import system_prompt


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        while chunk := f.read(1 << 22):
            digest.update(chunk)
    return digest.hexdigest()


def past(until: str | None) -> bool:
    if not until:
        return False
    now = dt.datetime.now(dt.UTC)
    hour, minute = map(int, until.split(":"))
    return (now.hour, now.minute) >= (hour, minute)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("out", type=Path)
    ap.add_argument("--temperatures", default="0")
    ap.add_argument("--start", type=int, default=0)
    ap.add_argument("--limit", type=int, default=300)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--max-tokens", type=int, default=1024)
    ap.add_argument("--until", default=None, help="UTC HH:MM: start no reply after it")
    ap.add_argument("--sha256", action="store_true", help="hash the model file (slow)")
    ap.add_argument("--prose-only", action="store_true", help="end a reply before its code")
    args = ap.parse_args()

    bench_dir = default_benchmark_path()
    bench = load_benchmark(bench_dir)
    sessions = select_sessions(bench, None, "heldout")[args.start : args.start + args.limit]
    gguf = embedded_gguf()
    model = LocalModel(gguf, max_tokens=args.max_tokens, threads=args.threads)
    none = condition("none")(HistoryEnv(bench, model))
    done = set()
    if args.out.is_file():
        done = {
            (r["session_id"], r["temperature"], r.get("cut_before_code", False))
            for r in map(json.loads, args.out.read_text().splitlines())
        }
    setting = {
        "benchmark": bench_dir.name,
        "content_hash": bench.manifest.content_hash[:12],
        "gguf": gguf.name,
        "gguf_sha256": sha256(gguf) if args.sha256 else "not computed",
        "threads": model.threads,
        "max_tokens": args.max_tokens,
        "n_ctx": model.llm.n_ctx(),
        "seed": 0,
        "budget": TURN_BUDGET,
    }
    print(json.dumps(setting), file=sys.stderr)
    with args.out.open("a") as out:
        # Each session's temperatures in a row: llama.cpp keeps the evaluated prompt, so a
        # second sample of the same request costs only its generation.
        for session in sessions:
            for temperature in map(float, args.temperatures.split(",")):
                model.temperature = temperature
                if (session.id, temperature, args.prose_only) in done:
                    continue
                if past(args.until):
                    return
                context = none.context(session)  # `none`: no history text
                assistant = ModelAssistant(
                    model, system=system_prompt(context, TURN_BUDGET), stop_after_code=True
                )
                started = time.perf_counter()
                if args.prose_only:  # the same messages, one more stop string
                    messages = [Message(role="system", content=assistant.system)]
                    messages.append(Message(role="user", content=session.request))
                    completion = model.complete(messages, ReplyOptions(stop=("```", *STOPS)))
                    text = completion.text
                else:
                    text = assistant.reply([Turn(role="user", text=session.request)])
                    completion = assistant.completions[0]
                record = {
                    "session_id": session.id,
                    "task_id": session.task_id,
                    "temperature": temperature,
                    "text": text,
                    "truncated": completion.truncated,
                    "cut_before_code": args.prose_only,
                    "input_tokens": completion.input_tokens,
                    "output_tokens": completion.output_tokens,
                    "seconds": round(time.perf_counter() - started, 2),
                    "at": dt.datetime.now(dt.UTC).strftime("%H:%M:%S"),
                    **setting,
                }
                out.write(json.dumps(record) + "\n")
                out.flush()


if __name__ == "__main__":
    main()
