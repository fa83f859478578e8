"""Where a local model's turn goes. For the embedded model (or `--model local/<file.gguf>`):
load time, prompt-evaluation and generation tokens per second, and for played CAPA sessions
the time per turn split into the model (prompt evaluation, generation), the judge, the
simulated user's reading and bookkeeping, with the prompt tokens llama.cpp evaluated at each
turn (only the new ones once the dialogue's prefix is kept). Each setting runs in a fresh
process; `--beside` runs a second llama.cpp process generating beside it.

    python benchmarks/local_model.py [--threads 1,2] [--beside] [--sessions 2]
        [--interleave] [--max-tokens 256] [--turns 4] [--condition same-user]

`--interleave` plays two sessions taking turns on one model (what the runner did before a
local model played one session at a time): each turn then evaluates its whole dialogue.
Figures depend on the machine and on what else runs: say which when you quote them.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

_FILLER = "def add(a, b):\n    return a + b\n" * 40  # ~600 tokens of plain code


def _model(threads: int, max_tokens: int):
    from capabench.models.local import LocalModel, embedded_gguf

    return LocalModel(embedded_gguf(), max_tokens=max_tokens, threads=threads)


def speeds(threads: int) -> dict:
    from capabench.models import Message

    model = _model(threads, 128)
    out = {"threads": threads, "load_s": round(model.load_s, 2)}
    model.llm.reset()
    model.complete([Message(role="user", content="Summarise this code:\n" + _FILLER)])
    t = model.last
    out["prompt_tok_s"] = round(t.prompt_tokens / max(t.prompt_s, 1e-9), 1)
    out["generate_tok_s"] = round(t.generated_tokens / max(t.generate_s, 1e-9), 1)
    out["simd_missing"] = __import__("capabench.models.local", fromlist=["x"]).missing_simd()
    return out


def played(
    threads: int,
    sessions: int,
    max_tokens: int,
    turns: int,
    cond: str,
    interleave: bool,
    bench_dir: str | None = None,
):
    """Play `sessions` held-out sessions and split each turn's time."""
    from capabench.benchmark import cached_default, load_benchmark
    from capabench.judge.sandbox import SandboxPool
    from capabench.models import ModelOptions
    from capabench.player import Player, RunConfig, select_sessions
    from capabench.simulate.user import SimulatedUser

    bench = load_benchmark(bench_dir) if bench_dir else cached_default()
    config = RunConfig(
        model="local",
        conditions=[cond],
        budget=turns,
        options=ModelOptions(max_tokens=max_tokens, threads=threads),
    )
    pool = SandboxPool(2)
    player = Player(config, bench, pool)
    model = player.model
    log: list[dict] = []
    local = threading.local()
    judge_run, respond = pool.run, SimulatedUser.respond
    complete = model.complete

    def timed_complete(*a, **k):
        started = time.perf_counter()
        result = complete(*a, **k)
        t = model.last
        local.turn = {
            "session": local.session,
            "model_s": time.perf_counter() - started,
            "prompt_tokens": t.prompt_tokens,
            "prompt_s": t.prompt_s,
            "generated_tokens": t.generated_tokens,
            "generate_s": t.generate_s,
            "judge_s": 0.0,
        }
        return result

    def timed_judge(*a, **k):
        started = time.perf_counter()
        try:
            return judge_run(*a, **k)
        finally:
            if getattr(local, "turn", None) is not None:
                local.turn["judge_s"] += time.perf_counter() - started

    def timed_respond(self, message):
        started = time.perf_counter()
        try:
            return respond(self, message)
        finally:
            turn = local.turn
            turn["user_s"] = time.perf_counter() - started - turn["judge_s"]
            log.append(turn)
            local.turn = None

    model.complete = timed_complete
    pool.run = timed_judge
    SimulatedUser.respond = timed_respond
    chosen = select_sessions(bench, sessions)
    totals = {}

    def one(session):
        local.session, local.turn = session.id, None
        started = time.perf_counter()
        run = player.play(session, cond, 0)
        totals[session.id] = (time.perf_counter() - started, run.status)

    try:
        if interleave:
            workers = [threading.Thread(target=one, args=(s,)) for s in chosen]
            for w in workers:
                w.start()
            for w in workers:
                w.join()
        else:
            for s in chosen:
                one(s)
    finally:
        SimulatedUser.respond = respond
        pool.close()
    for sid, (total, status) in totals.items():
        mine = [t for t in log if t["session"] == sid]
        busy = sum(t["model_s"] + t["judge_s"] + t["user_s"] for t in mine)
        for t in mine:
            t["bookkeeping_s"] = round((total - busy) / max(1, len(mine)), 3)
        totals[sid] = {"total_s": round(total, 1), "status": status, "turns": len(mine)}
    return {"threads": threads, "interleave": interleave, "sessions": totals, "turns": log}


def _beside():
    """A second llama.cpp process generating without pause."""
    from capabench.models import Message

    model = _model(int(os.environ.get("BESIDE_THREADS", "2")), 256)
    while True:
        model.llm.reset()
        model.complete([Message(role="user", content="Write a long story about compilers.")])


def _print(result: dict) -> None:
    if "turns" not in result:
        print(
            f"threads {result['threads']}: load {result['load_s']} s, prompt "
            f"{result['prompt_tok_s']} tok/s, generation {result['generate_tok_s']} tok/s"
            + (f", llama.cpp lacks {result['simd_missing']}" if result["simd_missing"] else "")
        )
        return
    mode = "interleaved" if result["interleave"] else "one at a time"
    print(f"threads {result['threads']}, sessions {mode}: {result['sessions']}")
    print("  session     turn  prompt-tok  prompt-s  gen-tok  gen-s  judge-s  user-s  book-s")
    per = {}
    for t in result["turns"]:
        per.setdefault(t["session"], []).append(t)
    for sid, turns in per.items():
        for i, t in enumerate(turns, 1):
            print(
                f"  {sid:10s}  {i:4d}  {t['prompt_tokens']:10d}  {t['prompt_s']:8.2f}  "
                f"{t['generated_tokens']:7d}  {t['generate_s']:5.1f}  {t['judge_s']:7.2f}  "
                f"{t['user_s']:6.3f}  {t['bookkeeping_s']:6.3f}"
            )
    later = [t["prompt_tokens"] for ts in per.values() for t in ts[1:]]
    if later:
        print(f"  later turns evaluate a median {statistics.median(later):.0f} prompt tokens")


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--threads", default=f"1,{len(os.sched_getaffinity(0))}")
    ap.add_argument("--sessions", type=int, default=2)
    ap.add_argument("--turns", type=int, default=4)
    ap.add_argument("--max-tokens", type=int, default=256)
    ap.add_argument("--condition", default="same-user")
    ap.add_argument("--interleave", action="store_true")
    ap.add_argument("--beside", action="store_true", help="a second llama.cpp process beside")
    ap.add_argument("--benchmark", help="a benchmark directory (default: the cached default)")
    ap.add_argument("--json", type=Path, help="also write the figures here")
    ap.add_argument("--one", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.one == "beside":
        _beside()
        return 0
    if args.one:
        kind, threads = args.one.split(":")
        if kind == "speed":
            result = speeds(int(threads))
        else:
            result = played(
                int(threads),
                args.sessions,
                args.max_tokens,
                args.turns,
                args.condition,
                args.interleave,
                args.benchmark,
            )
        print(json.dumps(result))
        return 0
    beside = None
    if args.beside:
        beside = subprocess.Popen([sys.executable, __file__, "--one", "beside"])
        time.sleep(5)  # it loads its weights
    results = []
    try:
        for threads in [int(t) for t in args.threads.split(",")]:
            for kind in ("speed", "played"):
                cmd = [sys.executable, __file__, "--one", f"{kind}:{threads}"]
                cmd += ["--sessions", str(args.sessions), "--turns", str(args.turns)]
                cmd += ["--max-tokens", str(args.max_tokens), "--condition", args.condition]
                cmd += ["--interleave"] if args.interleave else []
                cmd += ["--benchmark", args.benchmark] if args.benchmark else []
                out = subprocess.run(cmd, capture_output=True, text=True, check=True)
                result = json.loads(out.stdout.strip().splitlines()[-1])
                result["beside"] = args.beside
                results.append(result)
                _print(result)
    finally:
        if beside is not None:
            beside.kill()
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    multiprocessing.set_start_method("spawn", force=True)
    raise SystemExit(main(sys.argv[1:]))
