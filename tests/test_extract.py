from __future__ import annotations

import ast

from capabench.judge import extract_code

FN = "def add(a, b):\n    return a + b\n"


def _defines(code: str, name: str) -> bool:
    return any(isinstance(n, ast.FunctionDef) and n.name == name for n in ast.parse(code).body)


def test_fenced_with_and_without_language_tag():
    for fence in ("```python\n", "```\n", "```py\n", "~~~python\n", "```Python3 title='x'\n"):
        close = "~~~" if fence.startswith("~") else "```"
        message = f"Here you go:\n{fence}{FN}{close}\nHope it helps."
        assert extract_code(message, "add") == FN


def test_other_languages_are_skipped():
    message = (
        f"Run:\n```bash\npip install foo\n```\nthen\n```python\n{FN}```\nOutput:\n```text\n3\n```"
    )
    assert extract_code(message, "add") == FN


def test_last_defining_block_wins_and_helpers_come_along():
    message = (
        "First try:\n```python\ndef add(a, b):\n    return a - b\n```\n"
        "Helpers:\n```python\nimport math\n\nSCALE = 2\n\ndef _twice(x):\n    return x * SCALE\n\ndef unused():\n    pass\n```\n"
        "Fixed:\n```python\ndef add(a, b):\n    return _twice(a + b) // 2 + math.floor(0.5)\n```"
    )
    code = extract_code(message, "add")
    assert "return _twice(a + b)" in code and "a - b" not in code
    assert "import math" in code and "def _twice" in code and "SCALE = 2" in code
    assert "def unused" not in code
    namespace: dict = {}
    exec(code, namespace)
    assert namespace["add"](2, 3) == 5


def test_demo_code_is_dropped():
    message = (
        "```python\nimport sys\n\ndef add(a, b):\n    '''Sum.'''\n    return a + b\n\n"
        "print(add(1, 2))\nassert add(1, 1) == 3\nif __name__ == '__main__':\n    add(int(input()), 2)\n```"
    )
    code = extract_code(message, "add")
    assert "print(" not in code and "assert" not in code and "__main__" not in code
    assert "import sys" in code and _defines(code, "add")


def test_block_without_the_entry_point_is_not_a_submission():
    message = "Do you want it sorted? For example:\n```python\nsorted(xs, reverse=True)\n```"
    assert extract_code(message, "add") is None
    assert extract_code("Which logger should I use, `acme` or the root one?", "add") is None
    assert extract_code("", "add") is None


def test_unfenced_code_fallback():
    message = f"Sure! Here is the function:\n\n{FN}\nIt adds two numbers."
    code = extract_code(message, "add")
    assert code is not None and _defines(code, "add") and "It adds" not in code
    assert extract_code(f"from typing import List\n{FN}", "add").startswith(
        "from typing import List"
    )


def test_unclosed_fence_is_taken_to_the_end():
    assert extract_code(f"```python\n{FN}", "add") == FN


def test_broken_block_that_defines_the_entry_point_is_still_submitted():
    broken = "def add(a, b):\n    return (a + b\n"
    assert extract_code(f"```python\n{broken}```", "add") == broken


def test_without_entry_point_last_python_block():
    message = f"```python\nx = 1\n```\n```python\n{FN}```"
    assert extract_code(message) == FN
