"""The shared message reader: what the simulated user, both ask classifiers and code
extraction agree a message's blocks, spans, items and sentences are."""

from __future__ import annotations

from capabench.messages import (
    code_spans,
    fences,
    is_blockquote,
    is_list_item,
    is_table_row,
    paragraphs,
    sentences,
    without_bullet,
    without_fences,
    without_inline_code,
)


def test_fences_give_their_info_tag_and_body():
    message = "Here:\n```Python title=a.py\ndef f():\n    return 1\n```\nand ~~~\nx\n~~~ done"
    first, second = fences(message)
    assert (first.language, first.info, first.body) == (
        "python",
        "Python title=a.py",
        "def f():\n    return 1\n",
    )
    assert (second.language, second.body, second.one_line) == ("", "x\n", False)
    assert without_fences(message) == "Here:\n\n\n\nand \n\n done"


def test_a_fence_opens_mid_line_closes_at_its_own_run_and_may_be_cut_off():
    (block,) = fences("Try this: ```py\nx = 1```")
    assert block.body == "x = 1" and block.language == "py"
    (outer,) = fences("````md\n```python\nx\n```\n````")
    assert outer.body == "```python\nx\n```\n"
    (cut,) = fences("```python\ndef f():\n    pass")
    assert cut.body == "def f():\n    pass"
    (inline,) = fences("Reply with one ```bash``` block.")
    assert inline.one_line and inline.info == "bash"
    # the closing fence's indentation is not part of the body
    assert fences("  ```python\n  x = 1\n  ```")[0].body == "  x = 1\n"


def test_inline_code_and_code_spans():
    text = "Use `a.b()` or ``, see:\n```python\nx = `y`\n```"
    assert without_inline_code("Use `a.b()` here", "CODE") == "Use CODE here"
    assert code_spans(text) == ["```python\nx = `y`\n```", "`a.b()`"]


def test_sentences_keep_abbreviations_dotted_words_and_inline_code_whole():
    assert sentences("Sort it, e.g. by name, i.e. a-z? Then v1.2 and `x.y()` stay. Done") == [
        "Sort it, e.g. by name, i.e. a-z?",
        "Then v1.2 and `x.y()` stay.",
        "Done",
    ]
    assert sentences("Is it `f?` or not? Ok.") == ["Is it `f?` or not?", "Ok."]


def test_titles_and_numbers_protect_a_period_only_where_they_are_abbreviations():
    assert sentences("It took 12 ms. Then Ms. Smith left.") == [
        "It took 12 ms.",
        "Then Ms. Smith left.",
    ]
    assert sentences("Is it No. 3? You said yes or no. Should it be a bool?") == [
        "Is it No. 3?",
        "You said yes or no.",
        "Should it be a bool?",
    ]


def test_a_sentence_ends_after_closing_quotes_brackets_and_emphasis():
    assert sentences('**Does it affect 2.x?** No. He said "ok." Then') == [
        "**Does it affect 2.x?",
        "No.",
        'He said "ok.',
        "Then",
    ]


def test_list_items_blockquotes_tables_and_paragraphs():
    for line in ("- a", "* a", "• a", "1. a", "2) a", "(a) a", "b. a", "-"):
        assert is_list_item(line), line
    for line in ("-1 is returned", "1.5 is the value", "*Note*: x", "**bold**", "abc. def"):
        assert not is_list_item(line), line
    assert without_bullet("  (2) two") == "two"
    assert is_blockquote("  > quoted") and not is_blockquote("a > b")
    assert is_table_row("| a | b |") and not is_table_row("a | b")
    assert paragraphs("a\nb\n\n  \n\nc\n\n") == ["a\nb", "c"]
