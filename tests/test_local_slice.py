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
