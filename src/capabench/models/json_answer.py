"""The JSON object in a model's answer, read one way by every caller that asks for one."""

from __future__ import annotations

import json
import re

_SPAN = re.compile(r"\{.*\}", re.S)


def json_answer(text: str, *, anywhere: bool = False) -> dict | None:
    """The JSON object a model answered, or None. The answer is the object (a code fence
    around it allowed); with `anywhere`, the object is the first {...} span in a chattier
    answer (what models without a JSON mode write)."""
    if anywhere:
        match = _SPAN.search(text or "")
        if match is None:
            return None
        text = match.group(0)
    else:
        text = (text or "").strip().removeprefix("```json").removeprefix("```").removesuffix("```")
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None
