"""How faithfully the simulated user reads questions, per matcher and family, on the
public paraphrase bank (tests/data/user_questions, each part written independently of the
matchers by a separate writer: `tune` and `dev*` were used to write the rules and train the
learned matcher, `heldout*` were never looked at, only measured), and the time per respond().

    python benchmarks/user_fidelity.py [--matchers learned,rules,semantic] [--user-model local]
        [--bank FILE ...] [--per-side N] [--limit N] [--show-misses]
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from capabench.conventions import REGISTRY
from capabench.simulate.intent import make_matcher
from capabench.simulate.intent.fidelity import load_bank, measure

BANKS = Path(__file__).resolve().parents[1] / "tests" / "data" / "user_questions"


def bench_user(matcher, families: tuple[str, ...] = ("tidy_list", "batch")):
    """A simulated user holding the first alternative of each of `families`, on a stub task."""
    from capabench.records import Session, Slot
    from capabench.simulate import SimulatedUser

    slots = tuple(
        Slot(
            family=f,
            mechanism=REGISTRY[f].mechanism,
            alternative=REGISTRY[f].alternatives[0].id,
            statement=REGISTRY[f].alternatives[0].statement,
        )
        for f in families
    )
    session = Session(
        id="bench",
        user_id="u",
        profile_id="terse-expert",
        cell=0,
        index=5,
        split="heldout",
        task_id="t",
        base_entry_point="f",
        entry_point="f",
        signature="def f(x)",
        request="r",
        slots=slots,
        hidden_tests="",
        reference="",
        original="",
    )
    return SimulatedUser(session, matcher=matcher)


def respond_time(name: str, bank, repeat: int = 3) -> float:
    """Median milliseconds per respond() of a user holding two families, over the bank's
    messages without code, each read for the first time (a matcher keeps the readings of
    the messages it has read, so every pass gets a new one)."""
    prose = [e.text for e in bank if "```" not in e.text]  # a code block would time the judge
    times = []
    for _ in range(repeat):
        user = bench_user(make_matcher(name))
        start = time.perf_counter()
        for text in prose:
            user.respond(text)
        times.append((time.perf_counter() - start) / len(prose) * 1000)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--matchers", default="learned,rules")
    parser.add_argument("--bank", action="append", help="a bank file (default: every part)")
    parser.add_argument("--user-model", help="the llm matcher's model, e.g. local")
    parser.add_argument(
        "--per-side", type=int, help="sample this many users per side (slow matchers)"
    )
    parser.add_argument("--limit", type=int, help="an even spread of this many messages per bank")
    parser.add_argument("--show-misses", action="store_true")
    args = parser.parse_args()
    banks = [Path(b) for b in args.bank] if args.bank else sorted(BANKS.glob("*.json"))
    model = None
    if args.user_model:
        from capabench.models import ModelOptions, make_model
        from capabench.paths import cache_dir

        model = make_model(
            args.user_model,
            ModelOptions(max_tokens=64, context=4096, cache=str(cache_dir() / "responses.sqlite")),
        )
    for name in args.matchers.split(","):
        matcher = make_matcher(name, model=model)
        for path in banks:
            bank = load_bank(path)
            if args.limit and args.limit < len(bank):
                bank = [bank[i * len(bank) // args.limit] for i in range(args.limit)]
            start = time.perf_counter()
            fid = measure(matcher, bank, per_side=args.per_side)
            took = time.perf_counter() - start
            print(
                f"\n== matcher {name}, bank {path.name}: {fid.messages} messages, {fid.sends} sends ({took:.1f} s)"
            )
            print(
                f"recall {100 * fid.recall:.1f}%  false reveals {fid.false_reveals}/{fid.sends} "
                f"({100 * fid.false_reveal_rate:.2f}%)  off-target reveals {fid.off_target_reveals}/{fid.off_target_sends}"
            )
            worst = sorted(fid.per_family.values(), key=lambda f: f.recall)
            print(
                "per family recall: "
                + ", ".join(f"{f.family} {100 * f.recall:.0f}%" for f in worst)
            )
            false_by = {}
            for item in fid.false:
                false_by[item["family"]] = false_by.get(item["family"], 0) + 1
            if false_by:
                print(
                    "messages revealing an unasked family, by family: "
                    + ", ".join(f"{k} {v}" for k, v in sorted(false_by.items()))
                )
            if args.show_misses:
                for item in fid.misses:
                    print(f"  MISS {item['family']}: {item['text'][:160]!r}")
                for item in fid.false:
                    print(f"  FALSE {item['family']}: {item['text'][:160]!r}")
            if name != "llm":
                print(
                    f"respond(): {respond_time(name, bank):.3f} ms per message (median of 3 passes)"
                )


if __name__ == "__main__":
    main()
