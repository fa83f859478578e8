"""The main job sizes a local model's slice by its measured speed."""

from __future__ import annotations

from capabench.models.local_slice import CHOICES, Speed, choose, session_s


def test_a_slower_machine_gets_a_smaller_slice_that_still_fits():
    fast = choose(Speed(2.0, 800.0, 80.0), budget_s=240)
    slow = choose(Speed(4.0, 150.0, 15.0), budget_s=240)
    assert fast.fits and (fast.sessions, fast.max_tokens) == CHOICES[0]
    assert slow.fits and slow.estimate_s <= 240
    assert CHOICES.index((slow.sessions, slow.max_tokens)) > 0


def test_too_slow_a_machine_gets_the_smallest_slice_and_is_told():
    crawl = choose(Speed(10.0, 10.0, 1.0), budget_s=60)
    assert not crawl.fits and (crawl.sessions, crawl.max_tokens) == CHOICES[-1]


def test_a_history_costs_its_prompt_once():
    speed = Speed(1.0, 100.0, 10.0)
    assert session_s(speed, 256, True) > session_s(speed, 256, False)


def test_a_filling_context_slows_every_later_turn():
    """llama.cpp slows as its context fills: measured at two lengths, a same-user session
    (thousands of tokens of history) costs more per turn than its short-context speed says."""
    flat = Speed(1.0, 200.0, 25.0)
    filling = Speed(1.0, 200.0, 25.0, 300, 2700, 160.0, 20.0)
    assert filling.generate_s(100, 0) == flat.generate_s(100, 0)  # below the short context
    assert (
        filling.generate_s(100, 5000) > filling.generate_s(100, 2000) > flat.generate_s(100, 2000)
    )
    slower = {h: session_s(filling, 512, h) - session_s(flat, 512, h) for h in (False, True)}
    assert 0 < slower[False] < slower[True]
    # a long measurement no slower than the short one never makes a turn cheaper
    faster = Speed(1.0, 200.0, 25.0, 300, 2700, 400.0, 50.0)
    assert session_s(faster, 512, True) == session_s(flat, 512, True)
