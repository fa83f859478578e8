"""A GGUF model's first replies to a file of requests (one JSON object a line, with `n`,
`session` and `request`), under one system prompt. Issue 27: real model questions for
tests/data/real_questions from any model llama.cpp runs here (the `local-qwen2.5-coder-1.5b`
parts: the `he` parts' HumanEval requests under framing E, tests/data/real_questions/README.md;
the default system prompt is framing B, HumanEvalComm's setting in words of our own).

    PYTHONPATH=src python scripts/gguf_replies.py MODEL.gguf REQUESTS.jsonl OUT.jsonl
        [--system-file F] [--temperatures 0] [--threads 2] [--max-tokens 300] [--until HH:MM]

Each reply ends where its first code block would begin (the prose, where a reply asks, comes
first; the code is most of the time on a 2-core machine): each record says so. Appends one line
per reply (a rerun skips what OUT holds) and starts none after --until (UTC), so a run cut
short keeps what it made. Seed 0 at every temperature; the thread count is recorded (llama.cpp's
numerics depend on it).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import sys
import time
from pathlib import Path

from capabench.models import Message, ReplyOptions
from capabench.models.local import LocalModel
from capabench.simulate.model_assistant import STOPS

FRAMING_B = (
    "You are an expert software developer who writes Python code. If the problem description "
    "is unclear, incomplete or inconsistent, ask clarifying questions instead of writing "
    "code. If it is clear, write the code."
)


def past(until: str | None) -> bool:
    if not until:
        return False
    now = dt.datetime.now(dt.UTC)
    return (now.hour, now.minute) >= tuple(map(int, until.split(":")))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("gguf", type=Path)
    ap.add_argument("requests", type=Path)
    ap.add_argument("out", type=Path)
    ap.add_argument("--system-file", type=Path, help="the system prompt (default: framing B)")
    ap.add_argument("--temperatures", default="0")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--max-tokens", type=int, default=300)
    ap.add_argument("--until", default=None, help="UTC HH:MM: start no reply after it")
    args = ap.parse_args()
    for path in (args.gguf, args.requests, args.system_file):
        if path is not None and not path.is_file():
            print(f"no such file: {path}", file=sys.stderr)
            return 1
    system = args.system_file.read_text().strip() if args.system_file else FRAMING_B
    requests = [json.loads(line) for line in args.requests.read_text().splitlines() if line]
    if any({"n", "session", "request"} - set(r) for r in requests):
        print(f"{args.requests}: every line needs n, session and request", file=sys.stderr)
        return 1
    done = set()
    if args.out.is_file():
        done = {(r["session"], r["temperature"]) for r in map(json.loads, args.out.open())}
    model = LocalModel(args.gguf, max_tokens=args.max_tokens, threads=args.threads)
    setting = {
        "gguf": args.gguf.name,
        "threads": model.threads,
        "seed": 0,
        "max_tokens": args.max_tokens,
        "cut_before_code": True,
        "system": system,
    }
    with args.out.open("a") as out:
        # a request's temperatures in a row: llama.cpp keeps the evaluated prompt
        for request in requests:
            for temperature in map(float, args.temperatures.split(",")):
                if (request["session"], temperature) in done:
                    continue
                if past(args.until):
                    return 0
                model.temperature = temperature
                messages = [
                    Message(role="system", content=system),
                    Message(role="user", content=request["request"]),
                ]
                started = time.perf_counter()
                completion = model.complete(messages, ReplyOptions(stop=("```", *STOPS)))
                out.write(
                    json.dumps(
                        {
                            "n": request["n"],
                            "session": request["session"],
                            "temperature": temperature,
                            "text": completion.text,
                            "truncated": completion.truncated,
                            "output_tokens": completion.output_tokens,
                            "seconds": round(time.perf_counter() - started, 2),
                            **setting,
                        }
                    )
                    + "\n"
                )
                out.flush()
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:  # every reply written is kept (one flushed line each)
        sys.exit("interrupted: the replies written so far are kept; the same command carries on")
