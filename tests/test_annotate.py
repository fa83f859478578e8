"""The taxonomy validation kit end to end on the default benchmark: sheets in a cyclic design
that show no labels, three scripted raters (one agreeing with the labels, one with a known
confusion, one random), Fleiss' kappa against a hand computation, the HTML form's CSV."""

from __future__ import annotations

import csv
import html
import json
import random
import shutil
import subprocess
import urllib.parse

import pytest
from typer.testing import CliRunner

from capabench.cli import app

pytest.importorskip("statsmodels")
pytest.importorskip("krippendorff")


@pytest.fixture(scope="module")
def kit(built, tmp_path_factory):
    _, bench_dir = built
    out = tmp_path_factory.mktemp("annotate") / "kit"
    done = CliRunner().invoke(
        app,
        ["annotate", "sample", "--n", "36", "--annotators", "a1,a2,a3,a4", "--seed", "1",
         "--benchmark", str(bench_dir), "--out", str(out)],
    )  # fmt: skip
    assert done.exit_code == 0, done.output
    return out


def _sheet(kit, name):
    with (kit / "sheets" / f"{name}.csv").open(newline="") as f:
        return list(csv.DictReader(f))


def test_the_sheets_follow_a_cyclic_design_and_hide_the_labels(kit):
    key = json.loads((kit / "key.json").read_text())
    labels = [v["label"] for v in key["items"].values()]
    assert sorted(set(labels)) == sorted(key["mechanisms"])
    assert max(labels.count(m) for m in key["mechanisms"]) == 6  # 36 items: 6 per mechanism
    rated = {}
    for name in ("a1", "a2", "a3", "a4"):
        rows = _sheet(kit, name)
        assert len(rows) == 27  # 36 items x 3 labels / 4 annotators
        assert all(row["label"] == "" for row in rows)
        for row in rows:
            rated[row["item_id"]] = rated.get(row["item_id"], 0) + 1
        sheet = (kit / "sheets" / f"{name}.csv").read_text()
        assert not any(m in sheet for m in key["mechanisms"])
        page = (kit / "sheets" / f"{name}.html").read_text()
        # Every mechanism only as the options of every item (its value and its text): a leaked
        # label would make one mechanism appear more often than the others.
        assert {page.count(m) for m in key["mechanisms"]} == {2 * len(rows)}
    assert set(rated.values()) == {3} and len(rated) == 36


def _fleiss_by_hand(rows: list[list[str]], categories: list[str]) -> float:
    """Fleiss (1971), written out: P_i, their mean, and chance from the category shares."""
    n = len(rows[0])
    p_i = [(sum(r.count(c) ** 2 for c in categories) - n) / (n * (n - 1)) for r in rows]
    p_j = [sum(r.count(c) for r in rows) / (len(rows) * n) for c in categories]
    p_bar, p_e = sum(p_i) / len(rows), sum(p * p for p in p_j)
    return (p_bar - p_e) / (1 - p_e)


def test_agreement_of_three_scripted_raters_matches_a_hand_computation(kit, tmp_path):
    work = tmp_path / "kit"
    shutil.copytree(kit, work)
    key = json.loads((work / "key.json").read_text())
    mechs = key["mechanisms"]
    swap = {mechs[0]: mechs[1], mechs[1]: mechs[0]}  # a known confusion: the first two swapped
    rng = random.Random(7)
    raters = {
        "a1": lambda truth: truth,
        "a2": lambda truth: swap.get(truth, truth),
        "a3": lambda truth: rng.choice(mechs),
        "a4": lambda truth: truth,
    }
    given: dict[str, dict[str, str]] = {}
    (work / "labels").mkdir()
    for name, rate in raters.items():
        rows = _sheet(work, name)
        given[name] = {r["item_id"]: rate(key["items"][r["item_id"]]["label"]) for r in rows}
        with (work / "labels" / f"{name}.csv").open("w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["item_id", "label"])
            w.writerows(given[name].items())
    done = CliRunner().invoke(app, ["annotate", "agree", str(work)])
    assert done.exit_code == 0, done.output
    result = json.loads((work / "agreement.json").read_text())
    rows = [[given[r][i] for r in given if i in given[r]] for i in sorted(key["items"])]
    assert result["complete_items"] == 36 and all(len(r) == 3 for r in rows)
    expected = _fleiss_by_hand(rows, mechs)
    assert result["fleiss_kappa"] == pytest.approx(expected, abs=1e-9)
    assert f"Fleiss' kappa {expected:.3f}" in done.output
    bench = result["with_benchmark"]
    assert bench["a1"]["agree"] == 1.0 and bench["a4"]["agree"] == 1.0
    swapped = sum(key["items"][i]["label"] in swap for i in given["a2"])
    assert bench["a2"]["agree"] == pytest.approx(1 - swapped / len(given["a2"]), abs=1e-4)
    # The confusion table: a2's swap shows off the diagonal, in both directions.
    assert result["confusion"][mechs[0]].get(mechs[1], 0) >= 1
    assert result["confusion"][mechs[1]].get(mechs[0], 0) >= 1


def test_a_model_rates_as_one_more_rater(kit, tmp_path):
    from capabench.annotate.agree import read_kit
    from capabench.annotate.rater import rate_with_model
    from capabench.models.scripted import ScriptedModel

    work = tmp_path / "kit"
    shutil.copytree(kit, work)
    replies = iter(['{"mechanism": "habitual context omission"}', "no idea"] * 40)
    model = ScriptedModel(lambda messages: next(replies))
    _, unreadable = rate_with_model(model, work, "model-scripted")
    _, ratings = read_kit(work)
    assert len(model.calls) == 36 and unreadable == 18  # one call per item
    assert set(ratings["model-scripted"].values()) == {"habitual context omission"}
    assert model.json_calls == 36


def test_bad_sheets_are_named(kit, tmp_path):
    work = tmp_path / "kit"
    shutil.copytree(kit, work)
    (work / "labels").mkdir()
    (work / "labels" / "a1.csv").write_text("item_id,label\nitem-001,not a mechanism\n")
    done = CliRunner().invoke(app, ["annotate", "agree", str(work)])
    assert done.exit_code == 2 and "a1.csv:2: 'not a mechanism' is not one of" in done.output
    missing = CliRunner().invoke(app, ["annotate", "agree", str(tmp_path)])
    assert missing.exit_code == 2 and "not an annotation kit" in missing.output
    again = CliRunner().invoke(app, ["annotate", "sample", "--out", str(work)])
    assert again.exit_code == 2 and "is not empty" in again.output


@pytest.mark.skipif(shutil.which("chromium") is None, reason="needs chromium")
def test_the_html_form_saves_a_csv_that_reads_back(kit, tmp_path):
    from capabench.annotate.agree import read_labels
    from capabench.testing.browser import chromium

    key = json.loads((kit / "key.json").read_text())
    rows = _sheet(kit, "a2")
    fill = {r["item_id"]: key["mechanisms"][k % 6] for k, r in enumerate(rows) if k % 4}
    page = (kit / "sheets" / "a2.html").resolve().as_uri()
    url = page + "#fill=" + urllib.parse.quote(json.dumps(fill))
    dom = subprocess.run(
        [*chromium(tmp_path / "profile"), "--dump-dom", url],
        capture_output=True,
        text=True,
        timeout=120,
    ).stdout
    text = dom.split('<pre id="csv">', 1)[1].split("</pre>", 1)[0]
    saved = tmp_path / "a2-labels.csv"
    saved.write_text(html.unescape(text))
    assert read_labels(saved, key["mechanisms"]) == fill
    assert f"{len(fill)} of {len(rows)} labelled" in dom
