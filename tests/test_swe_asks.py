"""The final-message ask classifiers: v1 (its fixture corpus and layers, kept by name), v2
(speech acts and the reconsidered edit gate), reclassification, harvest and hand labels."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from capabench.swe.asks.detection import CONFIG, Classifier, classifier, load, prose
from capabench.swe.asks.reclassify import reclassify
from capabench.swe.store import RunSummary, SweStore

DATA = Path(__file__).parent / "data"
CORPUS = json.loads((DATA / "ask_messages.json").read_text())  # v1's own fixtures
V1 = classifier("v1")


@pytest.mark.parametrize("case", CORPUS, ids=[f"{i}-{c['label']}" for i, c in enumerate(CORPUS)])
def test_classifier_scores_its_fixture_corpus(case):
    assert V1.classify(case["text"], edited=case["edited"]).asked is case["label"]


def test_corpus_exercises_every_layer():
    clf = V1
    fired, blocked, gated = set(), set(), 0
    for case in CORPUS:
        d = clf.classify(case["text"], edited=case["edited"])
        fired |= set(d.categories)
        blocked |= set(d.blocked)
        gated += d.questions_with_edits
    assert fired == {"question", "info_request", "option_list"}
    assert {"tag_question", "offer_more_help", "rhetorical"} <= blocked
    assert gated >= 2  # edited turns whose text asked anyway: recorded, not counted
    assert sum(c["label"] for c in CORPUS) >= 15 and sum(not c["label"] for c in CORPUS) >= 15


def test_code_inline_code_and_quotes_are_not_prose():
    text = "Done.\n```py\nx = a ? b : c\n```\nUses `re.match(r'a?')`.\n> Should it be X?\nThanks."
    assert "?" not in prose(text)
    assert not V1.classify(text).asked and not classifier().classify(text).asked


def _store_with_finals(tmp_path, clf):
    store = SweStore(tmp_path / "swe")
    events = [
        {
            "kind": "final",
            "text": c["text"],
            "edited": c["edited"],
            "detection": clf.classify(c["text"], edited=c["edited"]).model_dump(),
        }
        for c in CORPUS
    ]
    summary = RunSummary(
        run_id="r1",
        instance_id="i",
        condition="ambiguous",
        model="gpt-x",
        runner="codex-cli",
        runner_version="t",
        repo="o/r",
        base_commit="0" * 40,
        prompt_sha256="0" * 64,
        started="2026-01-01T00:00:00",
        duration_s=1.0,
        stop_reason="completed",
        asked=True,
        asks=[],
        turns=len(events),
        input_tokens=0,
        output_tokens=0,
        tools=[],
    )
    store.write_once(
        store.path("sessions", "r1") / "events.jsonl", "".join(json.dumps(e) + "\n" for e in events)
    )
    store.write_once(store.path("runs", "r1"), summary.model_dump_json())
    return store


def test_reclassify_reproduces_stored_verdicts_and_finds_changes(tmp_path):
    store = _store_with_finals(tmp_path, V1)
    same = reclassify(store, V1)
    assert (same.runs, same.messages, same.disagreements) == (1, len(CORPUS), [])
    assert same.firing["question"] >= 10 and same.firing["tag_question"] >= 1
    # A config without the tag-question blocker disagrees exactly on the tag question.
    config = json.loads(CONFIG.read_text())
    del config["blockers"]["tag_question"]
    config["version"] = 99
    edited = tmp_path / "ask.json"
    edited.write_text(json.dumps(config))
    changed = reclassify(store, Classifier.load(edited))
    assert changed.version == "v99" and len(changed.disagreements) == 1
    assert "right?" in changed.disagreements[0]["text"] and changed.disagreements[0]["now"] is True


# -- v2: speech acts --------------------------------------------------------------------------


def test_v1_and_v2_stay_available_by_name_and_v3_is_the_default():
    assert classifier().version == "v3" and classifier("v1").version == "v1"
    assert classifier("v2").version == "v2"
    assert load(CONFIG).version == "v1"


WRITTEN_ON = ["tune", "heldout3", "heldout4"] + [f"dev{i}" for i in range(1, 39)]


@pytest.mark.parametrize("part", WRITTEN_ON)
def test_v2_reads_the_parts_of_the_corpus_it_was_written_on(part):
    """The parts v2 was written on: the acceptance bar as a regression guard (held-out parts
    are measured by benchmarks/ask_detection.py, not asserted)."""
    data = json.loads((DATA / "ask_messages" / f"{part}.json").read_text())
    got = [(classifier().classify(m["text"], edited=m["edited"]).asked, m["ask"]) for m in data]
    tp = sum(g and w for g, w in got)
    assert tp / sum(g for g, _ in got) >= 0.95 and tp / sum(w for _, w in got) >= 0.90


@pytest.mark.parametrize(
    "text",
    [
        "I'll need one example of the old tool's output before I can implement this.",
        "Waiting on your call on whether to drop the index in this migration.",
        "Two options, pick one:\n\n- **A**: keep it lenient\n- **B**: make it strict",
        "Plan:\n1. Move the helpers\n2. Re-export them\n\nLet me know if this plan looks good and I'll start.",
        "I'd key it by `tenantId`, not `userId`, per tenant, right?",
        "Tell me whether existing users should be rehashed on next login.",
        'Reply "go" and I\'ll do the upgrade in one commit.',
        "Which do you prefer:\n* keep accented letters\n* strip them to ASCII",
    ],
)
def test_v2_hears_asks_without_a_plain_question(text):
    d = classifier().classify(text)
    assert d.asked, d


@pytest.mark.parametrize(
    "text",
    [
        "Does it affect 2.x? No, the parser there is separate (`legacy/parse.py`).",
        'The script now asks "Overwrite existing release? [y/N]" before it deletes anything.',
        "How can `len(items)` be 0? `load_items()` returns a generator, so it is consumed twice.",
        "> Why are my .JPG files skipped?\n\nThe filter compared suffixes case-sensitively; fixed.",
        "**Is the API output affected?** No, still ISO 8601 UTC.",
        "Reporter asks:\n1. Can retries be disabled? → Yes, `opts.retry = 0`.\n2. Are they logged? → at debug level.",
        "Moved from 2.x to 3.x. Does it break anything? I ran all the tests and they pass, so no.",
        "Newest items now come first, as the issue asked.\n\nDoes that make sense?",
    ],
)
def test_v2_does_not_hear_questions_that_are_not_asks(text):
    d = classifier().classify(text)
    assert not d.asked, d


def test_v2_edit_gate_blocked_edits_ask_finished_ones_do_not():
    """Both sides of the reconsidered gate, on edited turns."""
    blocked = (
        "Done so far: added `RetryPolicy` in `retry.go`.\n\nNot done: the backoff cap. "
        "30s or 5m? Stopping here until you pick."
    )
    partial = (
        "I changed the default port to 3000. The Dockerfile still exposes 8080, so the "
        "container will not work until they match. Should I update it, or revert?"
    )
    finished = (
        "Fixed: the CSV writer now quotes fields with commas; `go test ./...` passes.\n\n"
        "Let me know if you'd like the TSV exporter updated the same way."
    )
    offer = "Done. All 26 tests pass.\n\nWould you like me to also add a changelog entry?"
    optional = "Fixed the CSV quoting; `go test ./...` passes. Should the TSV exporter get the same change?"
    clf = classifier()
    assert clf.classify(blocked, edited=True).asked
    assert clf.classify(partial, edited=True).asked
    for text in (finished, offer, optional):
        d = clf.classify(text, edited=True)
        assert not d.asked and d.gate == "edited", d
    # The same optional question with nothing edited and nothing finished is still heard.
    assert clf.classify("Should the TSV exporter be updated the same way?").asked
    # v1 ruled out every edited turn; v2 records the text's question when it doesn't count.
    assert not V1.classify(blocked, edited=True).asked
    assert clf.classify(optional, edited=True).questions_with_edits


def test_v2_units_survive_dotted_words_abbreviations_and_indented_code():
    from capabench.swe.asks.reading import units

    texts = [
        u.text
        for u in units(
            "Does it affect 2.x? It may, e.g. in v1.2 builds.\n\n    x = input('Go? ')\n"
        )
    ]
    assert texts == ["Does it affect 2.x?", "It may, e.g. in v1.2 builds."]


# -- v2: issue 28's hard classes (examples from dev5-dev10, never from a held-out part) -------


FINISHED = "Fixed the off-by-one in `Paginator.pages()`; added a regression test, suite passes.\n\n"


@pytest.mark.parametrize(
    "offer",
    [
        "Shall I open a PR for this?",
        "Shall I commit it?",
        "Do you want me to also remove the alias in the next major version?",
        "Should I push the branch as well, or will you take it from here?",
        "Also, shall I add the same expansion to `--config`?",
        "Any interest in a lint rule that forbids `utcnow` going forward?",
        "Should the robots.txt get the sitemap URL too?",
        "Is it worth adding a `--sort` option? Happy to do it if so.",
    ],
)
def test_v2_an_optional_offer_after_finished_work_is_not_an_ask(offer):
    d = classifier().classify(FINISHED + offer, edited=True)
    assert not d.asked and d.blocked.get("offer"), d


@pytest.mark.parametrize(
    "text",
    [
        "I prepared the fix on a branch but haven't merged it. Shall I merge it into `main`?",
        "Do you want me to also update the Helm chart? The new env var is required, so the "
        "deploy will fail without it, and the chart lives in a repo I can't push to.",
        "Shall I squash-merge it? CI is green but the branch protection needs a maintainer's "
        "approval, which I can't give myself.",
        "Added the endpoint. Before I wire it into the UI: shall I put it under Settings or "
        "under Account?",
    ],
)
def test_v2_the_same_words_ask_when_the_work_is_stuck(text):
    assert classifier().classify(text, edited=True).asked


@pytest.mark.parametrize(
    "text",
    [
        "Is the old `/v1/login` route still used anywhere? Only by `tests/legacy/`, which I "
        "pointed at `/v2/login`.",
        "How many callers rely on the old default? Three, all inside this repo.",
        "Do we still need the `six` import? No other module uses it, so I removed it.",
        "Did the upgrade change any behaviour? I diffed the 40 golden outputs: identical.",
        "Was the regression from the 4.2 upgrade? Yes and no: 4.2 changed a default that our "
        "override hid.",
    ],
)
def test_v2_a_question_the_next_sentence_answers_is_not_an_ask(text):
    d = classifier().classify(text)  # no edits: the answer, not the edit gate, decides
    assert not d.asked and d.blocked.get("self_answered"), d


@pytest.mark.parametrize(
    "text",
    [
        "Which is better here, a lock or a queue? A queue: the producers never need the result.",
        "Memoize or precompute? Precomputing was simpler: the table has 256 entries.",
        "Should this be a warning or an error? I went with a warning, since configs in the "
        "wild set the key.",
        "Two ways to fix it: invalidate on write, or give entries a short TTL. Which is better? "
        "Invalidate on write, since every write goes through `Repo.save()`.",
        "Options considered:\n- patch the vendored library (rejected)\n- wrap the call and "
        "retry (chosen)",
    ],
)
def test_v2_a_choice_posed_and_then_decided_is_not_an_ask(text):
    d = classifier().classify(text)
    assert not d.asked, d


@pytest.mark.parametrize(
    "text",
    [
        "Polling or webhooks? Webhooks are cleaner, but they need a public URL, and I don't "
        "know if the self-hosted installs have one.",
        "Should the limit be 100 or 1000? Both appear in the issue thread. The next step "
        "depends on it.",
        "Is the `v2` field still sent by the mobile app? If it is, removing it breaks old "
        "clients, so I held off on that part.",
        "Should old sessions be invalidated when the password changes? That's the one thing "
        "left; the reset flow itself is done.",
    ],
)
def test_v2_a_question_followed_by_context_that_keeps_it_open_asks(text):
    assert classifier().classify(text).asked
    assert classifier().classify(text, edited=True).asked


@pytest.mark.parametrize(
    "text",
    [
        "Need the staging DB URL to reproduce this.",
        "Blocked: no access to the private `acme/schemas` repo the build pulls from.",
        "A valid token is needed to go further.",
        "Waiting for the expected JSON shape of the error response.",
        "Still missing the expected output for case 3 of the spec.",
        "Stuck on one detail: the issue says round to the cent but not which way halves go.",
        "No access to the prod logs from here, so the exact error text has to come from you.",
        "A sample `.sqlite` file from an affected install is what I need next.",
        "Can't reproduce on Linux. Your OS and Python version would help.",
    ],
)
def test_v2_a_short_statement_of_need_asks(text):
    assert classifier().classify(text).asked


@pytest.mark.parametrize(
    "text",
    [
        "Options for the duplicate-email case:\n1. reject the signup with a 409\n2. merge "
        "into the existing account\n3. allow it and flag for review",
        "The retry loop can end two ways:\n\n- **A**: give up after 5 attempts\n- **B**: "
        "retry forever\n\nA or B.",
        "Here is what I can do for the flaky test:\n- retry the upload\n- mock the backend"
        "\n\nUp to you.",
        "Renamed the table; the model still uses the old name. Next choice: alias the old "
        "name in the ORM, or update the 14 queries.",
    ],
)
def test_v2_an_option_list_without_a_question_word_asks(text):
    assert classifier().classify(text).asked
    assert classifier().classify(text, edited=True).asked


@pytest.mark.parametrize(
    "text",
    [
        "If you could send me the exact command that fails, I can reproduce it.",
        "If you let me know which locale should be the fallback, I'll finish `i18n/load.py`.",
        "It would help if you could share the `pytest --version` output.",
        "If you get a chance, run `make diag` on the build box and paste the output here.",
        "If it's OK with you, I'll drop the `legacy_id` column as step 3.",
        "Provided you're fine with a breaking change in 3.0, I'll remove the old signature.",
        "If the old columns must stay in order for downstream tools, tell me and I'll keep them.",
    ],
)
def test_v2_a_request_phrased_as_a_conditional_asks(text):
    assert classifier().classify(text).asked


@pytest.mark.parametrize(
    "question",
    [
        "Should archived projects still count toward the plan limit?",
        "What should happen for locales the library has no data for: Monday or Sunday?",
        "Clients still call `/orders`; keep a redirect, or return 410 Gone?",
        "The old page had an undocumented advanced toggle. Keep it?",
    ],
)
def test_v2_after_edits_a_question_about_what_the_task_should_do_asks(question):
    """Even when the rest reads finished: the answer decides the work, unlike an offer of
    more work."""
    d = classifier().classify(FINISHED + question, edited=True)
    assert d.asked and "requirement" in d.categories, d


@pytest.mark.parametrize(
    "check",
    [
        "Does this look right to you?",
        "Is that what you were after?",
        "Clear enough? It mirrors how the frontend tooling does it.",
        "Any questions about it?",
    ],
)
def test_v2_a_confirmation_check_after_the_work_is_not_an_ask(check):
    assert not classifier().classify(FINISHED + check, edited=True).asked


def test_v2_a_question_answered_in_the_next_paragraph_is_not_an_ask():
    text = (
        "Changed the default page size to 50.\n\nDoes this break the mobile app?\n\n"
        "No, it sends `page_size` explicitly on every request."
    )
    d = classifier().classify(text, edited=True)
    assert not d.asked and d.blocked.get("self_answered"), d


def test_v2_an_offer_of_something_that_would_help_is_optional_after_finished_work():
    text = FINISHED + "Would a short note in CHANGELOG.md help, or is this too minor?"
    assert not classifier().classify(text, edited=True).asked
    text = FINISHED + "Would a retry help, or should it fail fast?"
    assert classifier().classify(text, edited=True).asked


def test_v2_a_conditional_offer_after_finished_work_is_not_an_ask():
    text = FINISHED + "If you want, I can also add a `--json` flag to `status` for scripting."
    assert not classifier().classify(text, edited=True).asked


@pytest.mark.parametrize(
    "text",
    [
        "Could the cache just be cleared on every deploy? That throws warm entries away. "
        "Swapped the key to include the build hash, so stale entries stop matching.",
        "## Fix\n\nSound familiar? Same race as the upload test.\n\n- `jobs/queue.py` now "
        "flushes before returning\n- Extracted the wait into `jobs/sync.py`",
        "Do we really need a restart to reload the certs? The server now reloads them on "
        "SIGHUP; I tested it with a new cert.",
        "What's the fix, in short? Close the handle in `finally`. The leak test now shows a "
        "flat count.",
    ],
)
def test_v2_after_edits_a_question_the_agent_settles_with_its_own_change_is_not_an_ask(text):
    """The turn goes on past the question to report the change that answers it."""
    d = classifier().classify(text, edited=True)
    assert not d.asked and d.questions_with_edits, d


@pytest.mark.parametrize(
    "text",
    [
        # the report turns to a doubt, or says the work waits
        "Could the cache just be cleared on every deploy? Swapped the key to include the "
        "build hash, but the CDN still keys on the path alone.",
        "Could the cache just be cleared on every deploy? Swapped the key for now.",
        "Could the index be built at night instead? The migration now needs a 5-minute lock.",
    ],
)
def test_v2_after_edits_a_report_that_leaves_the_question_open_still_asks(text):
    assert classifier().classify(text, edited=True).asked


def test_v2_a_report_of_the_agents_own_work_requests_nothing():
    """Request words inside a one-clause report ("to pick", "to say yes") ask nothing; a
    request in a clause of its own does."""
    clf = classifier()
    for report in (
        "I changed the scheduler to pick a free worker. p99 went from 900 ms to 240 ms.",
        'Updated the FAQ entry "Can I run two workers?" to say yes since 2.3.',
    ):
        assert not clf.classify(report, edited=True).asked, report
        assert not clf.classify(report).asked, report
    assert clf.classify("I've drafted the migration; say yes and I'll run it.", edited=True).asked


def test_v2_a_need_posed_as_a_question_and_answered_is_not_an_ask():
    text = "Need a migration? Yes, added `0042_add_index.py`; it's instant on Postgres."
    d = classifier().classify(text, edited=True)
    assert not d.asked and d.blocked.get("self_answered"), d
    assert classifier().classify("Need a migration?", edited=True).asked


def test_v2_a_comprehension_tag_after_an_explanation_is_not_an_ask():
    text = "Same locks, one consistent order, no cycle - makes sense? The stress test ran clean."
    d = classifier().classify(text, edited=True)
    assert not d.asked and d.blocked.get("comprehension_check"), d


@pytest.mark.parametrize(
    "text",
    [
        "Done:\n- `api/users.py`: email lower-cased on save\n\nOpen:\n- old rows are mixed "
        "case. Backfill them, or lower-case at lookup time? Both are cheap.",
        "Fixed the crash. The second half of the issue needs a decision:\n\n- (A) drop the "
        "rows\n- (B) log them\n\nDone otherwise.",
        "Fixed the crash, tests pass. Tell me which palette the dark mode should use and "
        "I'll finish the styles.",
        "Fixed the crash, tests pass. If you give me the bucket name, I can finish the deploy "
        "script.",
    ],
)
def test_v2_after_edits_an_open_item_or_a_request_to_finish_asks(text):
    assert classifier().classify(text, edited=True).asked


@pytest.mark.parametrize(
    "text",
    [
        "Added the /settings route to app.py. Please add templates/base.html to the chat so I "
        "can put the nav link there too.",
        "I changed the loader to read APP_ENV. Add config/defaults.toml to the chat and I'll "
        "update the keys.",
        "The migration is written and tested on a copy, but it locks the table for a minute. "
        "Say the word and I'll run it tonight.",
    ],
)
def test_v2_after_edits_a_request_the_agent_goes_on_from_asks(text):
    """A request that says the agent continues with the answer ("so I can ...", "and I'll
    ...") stops the work, even after edits that read finished."""
    assert classifier().classify(text, edited=True).asked


@pytest.mark.parametrize(
    "text",
    [
        "Fixed the flaky test; 50 runs pass.\n\nThings I could look at next, if useful:\n- the "
        "same pattern in the download test\n- a shared fixture\n\nJust say the word.",
        "Fixed the bug, tests pass. If you'd rather have B, say so and I'll switch.",
    ],
)
def test_v2_a_request_made_optional_by_the_offer_before_it_is_not_an_ask(text):
    assert not classifier().classify(text, edited=True).asked


def test_v2_a_heading_that_names_the_decision_the_section_reports_is_not_an_ask():
    section = (
        "\n\nValidate in the API layer (A) or in the model (B)? {}\n\n## Changes\n\n"
        "- `models/order.py`: the checks\n\nAll tests pass."
    )
    decided = "## Decision: where to validate" + section.format("I went with (B): one path.")
    d = classifier().classify(decided, edited=True)
    assert not d.asked and d.blocked.get("decided"), d
    undecided = "## Decision needed: where to validate" + section.format(
        "The issue doesn't say which path the rows came from."
    )
    assert classifier().classify(undecided, edited=True).asked


@pytest.mark.parametrize(
    ("text", "edited"),
    [
        (
            "Who knew a trailing slash could break this much? Fixed in router.py: routes now "
            "match with or without it.",
            True,
        ),
        (
            "You might wonder: why not just cache node_modules? Because the runners use different "
            "Node versions, and native modules won't load across them. I haven't changed anything.",
            False,
        ),
        (
            "Short answer: yes, it's safe to upgrade sqlalchemy to 2.0.30. The changelog lists bug "
            "fixes only.",
            False,
        ),
        (
            "The worker blocked on queue.get() with no timeout. It now polls a stop flag; the "
            "shutdown test passes.",
            True,
        ),
        (
            "Client() now verifies certificates. Note: this changes the default, so anyone on "
            "self-signed endpoints will need to pass verify_ssl=False. Tests pass.",
            True,
        ),
    ],
)
def test_v2_exclamations_answers_and_reports_that_read_like_asks_are_not(text, edited):
    assert not classifier().classify(text, edited=edited).asked


@pytest.mark.parametrize(
    "text",
    [
        "Safe to delete old_reports/? Nothing imports it, but it's 400 files.",
        "I'm blocked on the staging credentials: the test needs STAGING_TOKEN.",
        "The fix depends on the expected timezone for due_date, which I don't have.",
        "If you have the original crash log, that would settle whether it's the parser.",
    ],
)
def test_v2_the_asks_beside_them_still_ask(text):
    assert classifier().classify(text).asked


def test_v2_questions_listed_under_an_optional_heading_are_offers():
    text = (
        "## Summary\n\n- `cli/main.py`: `--verbose` now raises the http log level\n\n"
        "## Next steps (optional)\n\n- Document the flag?\n- Drop the old `-V` alias?"
    )
    d = classifier().classify(text, edited=True)
    assert not d.asked and d.blocked.get("offer") == 2, d


def test_v2_options_labelled_on_their_own_lines_ask_until_one_is_taken():
    options = "A: keep `--force` as an alias.\nB: remove it and print a hint.\n\n"
    assert classifier().classify(options + "Either is a small change.").asked
    listed = "Two approaches were possible:\n\n1. patch at import time\n2. a custom adapter\n\n"
    d = classifier().classify(listed + "I used the adapter. Tests pass.", edited=True)
    assert not d.asked and d.blocked.get("decided"), d


@pytest.mark.parametrize(
    "text",
    [
        "Any regressions? None in the 312-test suite. The change is confined to the queue.",
        "Could this double-send emails? Not anymore. The send is keyed on message_id now.",
        "Each request now gets its own session, closed in finally - so no session outlives its "
        "request, right? That's the invariant the new test asserts.",
    ],
)
def test_v2_after_edits_a_question_answered_by_none_or_its_own_test_is_not_an_ask(text):
    assert not classifier().classify(text, edited=True).asked


@pytest.mark.parametrize(
    "text",
    [
        "Without the production API key I can't go further; the sandbox returns canned data.",
        "Can't reproduce without the customer's dataset. The synthetic one passes.",
        "If you can grab a HAR file from the failing browser, I can see which header is missing.",
        "This should be per tenant, right? That's how the quota table is keyed, but the issue "
        'says "per account".',
    ],
)
def test_v2_needs_conditionals_and_tag_questions_about_the_task_ask(text):
    assert classifier().classify(text).asked


@pytest.mark.parametrize(
    ("text", "edited"),
    [
        ("Token needed for the private registry.", False),
        ("Still no access to the infra repo, so the Terraform side is untouched.", True),
        ("I'd want a second opinion on the locking before this goes further.", True),
        (
            "The import can treat duplicate SKUs three ways:\n\n- skip them\n- merge them\n"
            "- reject the file\n\nOne of these has to be chosen before the import can run.",
            False,
        ),
        (
            "Why does the worker pull from both queues? The README says only `high`, the code "
            "pulls both. I didn't change the worker.",
            False,
        ),
    ],
)
def test_v2_short_needs_an_option_still_to_be_chosen_and_sources_that_disagree_ask(text, edited):
    assert classifier().classify(text, edited=edited).asked


@pytest.mark.parametrize(
    "text",
    [
        "Possible fixes:\n\n1. a bigger pool\n2. release the connection early\n\nI did 2; "
        "1 only hides the leak. Tests pass.",
        "I followed the issue's rounding. Tell me if the spec should win and I'll switch it.",
        "I updated the copy. Should the 500 page match? Not needed for this ticket.",
    ],
)
def test_v2_after_edits_an_option_taken_by_number_or_an_offer_to_revise_is_not_an_ask(text):
    assert not classifier().classify(text, edited=True).asked


@pytest.mark.parametrize(
    "text",
    [
        "Let me know what the max payload should be. I've stubbed the validator where the limit "
        "goes.",
        "Want me to also apply the same fix to v1? Without it, the v1 endpoints keep returning "
        "500, and the issue lists v1 as affected.",
    ],
)
def test_v2_after_edits_a_request_about_the_task_or_an_offer_the_task_needs_asks(text):
    assert classifier().classify(text, edited=True).asked


@pytest.mark.parametrize(
    ("text", "edited"),
    [
        ("pls share the .env.example you use, the app wont start without the keys", False),
        ("Open issue: I can't tell if strict=True should also reject unknown values.", True),
        (
            "Everything's implemented except the email template, which needs copy from "
            "marketing. I used placeholder text.",
            True,
        ),
    ],
)
def test_v2_casual_requests_open_issues_and_needs_from_others_ask(text, edited):
    assert classifier().classify(text, edited=edited).asked


@pytest.mark.parametrize(
    "text",
    [
        "Next steps:\n1. Review the diff\n2. Merge when CI is green\n\nNothing else is needed "
        "from me.",
        'Three readings of "sort by date": created, modified, due. The screenshot highlights '
        "due, so I sorted by due date.",
    ],
)
def test_v2_after_edits_a_need_denied_or_a_reading_acted_on_is_not_an_ask(text):
    assert not classifier().classify(text, edited=True).asked


@pytest.mark.parametrize(
    "text",
    [
        "Done. One question out of curiosity, no action needed: was the 255-char limit chosen "
        "for MySQL? I kept it.",
        "Both paths validate the slug now. Shall I squash the three commits, or keep them "
        "separate? They're small either way.",
    ],
)
def test_v2_after_edits_an_aside_or_a_housekeeping_offer_is_not_an_ask(text):
    assert not classifier().classify(text, edited=True).asked


@pytest.mark.parametrize(
    "text",
    [
        "Holding the PR as draft until the upstream fix is released. Want me to ship the "
        "workaround anyway?",
        "ok i changed the handler but the test still fails. should i update the fixture or is "
        "the old schema supposed to still work",
        "The timezone bug is fixed. The rounding fix would change existing totals. OK to "
        "include it here, or separate issue?",
    ],
)
def test_v2_after_edits_held_work_an_unmarked_question_and_a_go_ahead_to_include_ask(text):
    assert classifier().classify(text, edited=True).asked


@pytest.mark.parametrize(
    ("text", "edited"),
    [
        ("Won't be able to finish the export without the customer's column mapping.", True),
        ("(A) migrate now, short downtime\n(B) migrate in the background", False),
        (
            "So... should I keep going with the refactor? It's grown past the issue's scope and "
            "I'd rather check before touching the public API.",
            True,
        ),
        (
            "Checklist:\n\n- [x] parser accepts `1e3`\n- [ ] changelog entry: which section, "
            '"Fixed" or "Changed"?',
            True,
        ),
    ],
)
def test_v2_needs_lettered_options_a_go_on_question_and_an_open_checkbox_ask(text, edited):
    assert classifier().classify(text, edited=edited).asked


@pytest.mark.parametrize(
    "text",
    [
        "Ways this could be fixed:\n\n- cap retries at 3\n- cap retries by elapsed time\n\n"
        "A count cap wouldn't help; I capped by elapsed time. Test added.",
        "Does the new endpoint need auth? I went by the other admin endpoints: all require "
        "the admin scope, so this one does too.",
        "Next steps\n- [ ] Should we drop the old client? (not needed for this fix)\n\nThe "
        "fix is merged and tests are green.",
        "Updated the CLI so it will confirm before deleting. Added tests.",
    ],
)
def test_v2_after_edits_an_option_reported_done_or_a_question_settled_by_analogy_is_not(text):
    assert not classifier().classify(text, edited=True).asked


def test_v2_an_options_heading_over_a_list_asks_until_one_is_taken():
    text = "## Options\n\n- redirect them\n- show an empty report\n- return 403\n\n{}"
    assert classifier().classify(text.format("Each of these is a product decision.")).asked
    d = classifier().classify(text.format("I went with the redirect. Tests pass."), edited=True)
    assert not d.asked, d


@pytest.mark.parametrize(
    "text",
    [
        "Renamed the internal helpers. Your thoughts on renaming `load()` too? It's the last "
        "piece of the issue and it breaks callers.",
        "If that's acceptable, I'll proceed with deleting the 800 orphaned rows.",
        "Short of the credentials, there's nothing more I can do here. The code side is done.",
    ],
)
def test_v2_after_edits_an_opinion_the_task_waits_on_and_a_conditional_go_ahead_ask(text):
    assert classifier().classify(text, edited=True).asked


def test_v2_need_anything_else_is_a_pleasantry():
    text = "Need anything else? Just ping me. The importer now handles BOMs."
    d = classifier().classify(text, edited=True)
    assert not d.asked and d.blocked.get("pleasantry"), d


def test_v2_after_edits_a_yes_no_follow_up_under_next_steps_is_an_offer():
    report = "Summary\n- `cli/filters.py:31`: normalise to UTC\n- 3 tests\n\nNext steps\n- {}"
    d = classifier().classify(report.format("backport to `1.4`? same code"), edited=True)
    assert not d.asked and d.blocked.get("offer"), d
    asked = "Getting under 2s means caching or a lighter renderer. Which do you prefer?"
    assert classifier().classify(report.format(asked), edited=True).asked


@pytest.mark.parametrize(
    "text",
    [
        "The test expects ValueError, the docs say TypeError. Which should it raise? I've "
        "fixed the rest of the validation.",
        "It needs a cache or a new renderer. I don't want to add a dependency without checking.",
    ],
)
def test_v2_after_edits_the_rest_done_or_a_change_held_for_a_check_asks(text):
    assert classifier().classify(text, edited=True).asked


@pytest.mark.parametrize(
    ("text", "edited"),
    [
        ("API key please.", False),
        ("Can't proceed: no write access to `infra/`.", True),
        ("One thing I still need: the list of tenants to exclude from the backfill.", True),
        ("Candidates for the default sort: newest, most relevant, alphabetical.", False),
        ("If someone on your side can confirm the webhook URL, I'll register it.", True),
        (
            "Added the Retry-After handling, but the old fallback still runs first. Can I drop "
            "the fallback? It's the part that makes the fix actually work.",
            True,
        ),
    ],
)
def test_v2_terse_needs_inline_options_and_a_permission_the_fix_waits_on_ask(text, edited):
    assert classifier().classify(text, edited=edited).asked


@pytest.mark.parametrize(
    "text",
    [
        "Where do the stray temp files come from? export_pdf() never deleted its scratch dir. "
        "It uses TemporaryDirectory() now.",
        "Alternatives considered:\n\n- `select_related`\n- a prefetch\n\n`select_related` was "
        "enough: one query instead of 51. Done in `blog/views.py`.",
        "Alternatives: quarantine the test, or delete it (it duplicates another). I deleted it.",
        "Added the Retry-After handling. Can I also drop the old fallback? Nothing uses it now.",
    ],
)
def test_v2_after_edits_a_diagnosis_or_an_option_reported_taken_is_not_an_ask(text):
    assert not classifier().classify(text, edited=True).asked


def test_v2_bold_lettered_options_ask_and_a_question_continued_after_its_mark_is_one():
    options = "## Options\n\n**A.** Return partial results.\n**B.** Fail the whole batch.\n\n"
    d = classifier().classify(options + "I'd lean A, but it changes the contract.")
    assert d.asked and "choice" in d.categories, d
    d = classifier().classify("Works on 1.x? and 2.x? Both, the code is shared.", edited=True)
    assert not d.asked and d.blocked.get("self_answered") == 2, d


# -- reclassify, harvest, labels --------------------------------------------------------------


def test_reclassify_by_version_prints_the_verdicts_that_change(tmp_path):
    from typer.testing import CliRunner

    from capabench.cli import app

    store = _store_with_finals(tmp_path, V1)
    result = CliRunner().invoke(
        app, ["swe", "reclassify", "--runs", str(store.root), "--config", "v2"]
    )
    assert result.exit_code == 0, result.output
    changed = [
        c
        for c in CORPUS
        if V1.classify(c["text"], edited=c["edited"]).asked
        != classifier().classify(c["text"], edited=c["edited"]).asked
    ]
    assert f"{len(changed)} verdict(s) change" in result.output
    same = CliRunner().invoke(
        app, ["swe", "reclassify", "--runs", str(store.root), "--config", "v1"]
    )
    assert "0 verdict(s) change" in same.output
    bad = CliRunner().invoke(
        app, ["swe", "reclassify", "--runs", str(store.root), "--config", "v9"]
    )
    assert bad.exit_code != 0 and "--config v9" in bad.output


def test_harvest_then_labels_scores_match_a_hand_count(tmp_path):
    import csv

    from typer.testing import CliRunner

    from capabench.cli import app

    store = _store_with_finals(tmp_path, classifier())
    out = tmp_path / "harvest.csv"
    result = CliRunner().invoke(
        app, ["swe", "harvest", "--runs", str(store.root), "--out", str(out)]
    )
    assert result.exit_code == 0 and f"wrote {len(CORPUS)}" in result.output, result.output
    again = CliRunner().invoke(
        app, ["swe", "harvest", "--runs", str(store.root), "--out", str(out)]
    )
    assert again.exit_code != 0 and "won't overwrite" in again.output
    rows = list(csv.DictReader(out.open()))
    assert len(rows) == len(CORPUS) and {r["stored_version"] for r in rows} == {"v3"}
    # Label by the fixture's truth, then flip two labels and leave one row unlabelled.
    for row, case in zip(rows, CORPUS, strict=True):
        row["label"] = "ask" if case["label"] else "not"
    rows[0]["label"] = "not" if rows[0]["label"] == "ask" else "ask"
    rows[1]["label"] = "not" if rows[1]["label"] == "ask" else "ask"
    rows[2]["label"] = ""
    labelled = tmp_path / "labels.csv"
    with labelled.open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=rows[0].keys())
        writer.writeheader()
        writer.writerows(rows)
    # The hand count: v2's verdict on every labelled row against the label.
    tp = fp = fn = 0
    for row in rows[:2] + rows[3:]:
        got = classifier().classify(row["text"], edited=row["edited"] == "True").asked
        want = row["label"] == "ask"
        tp, fp, fn = tp + (got and want), fp + (got and not want), fn + (want and not got)
    result = CliRunner().invoke(app, ["swe", "reclassify", "--labels", str(labelled), "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["overall"]["n"] == len(CORPUS) - 1
    assert (report["overall"]["tp"], report["overall"]["fp"], report["overall"]["fn"]) == (
        tp,
        fp,
        fn,
    )
    assert report["precision"] == pytest.approx(tp / (tp + fp))
    assert report["recall"] == pytest.approx(tp / (tp + fn))
    table = CliRunner().invoke(app, ["swe", "reclassify", "--labels", str(labelled)])
    assert f"{tp / (tp + fp):.2f}" in table.output and "after edits" in table.output
    rows[4]["label"] = "maybe"
    with labelled.open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=rows[0].keys())
        writer.writeheader()
        writer.writerows(rows)
    bad = CliRunner().invoke(app, ["swe", "reclassify", "--labels", str(labelled)])
    assert bad.exit_code != 0 and "row 5" in bad.output and "maybe" in bad.output


def test_ask_judge_reads_json_under_its_schema_and_falls_back_to_the_rules():
    from capabench.models import InfraError
    from capabench.models.scripted import ScriptedModel
    from capabench.swe.asks.ask_judge import SCHEMA, AskJudge

    ask = "Which value is right, 60 or 600 seconds?"
    model = ScriptedModel(['{"ask": false, "reason": "the agent answers it"}'])
    d = AskJudge(model, "fake").classify(ask, edited=True)
    assert (d.asked, d.version, d.gate, d.note) == (
        False,
        "judge:fake",
        "edited",
        "the agent answers it",
    )
    assert model.schemas == [SCHEMA] and "changed files" in model.calls[0][0].content
    for answer in ("sure, it asks", '{"ask": "yes"}', "```json\n[true]\n```"):
        d = AskJudge(ScriptedModel([answer]), "fake").classify(ask)
        assert d.asked and d.version == "judge:fake->v3" and "unreadable" in d.note

    def broken(messages):
        raise InfraError("connection refused")

    d = AskJudge(ScriptedModel(broken), "fake").classify("All done; tests pass.")
    assert not d.asked and d.version == "judge:fake->v3" and "connection refused" in d.note
