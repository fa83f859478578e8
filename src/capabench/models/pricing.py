"""Token prices, USD per million tokens (input, output). Longest matching prefix wins;
extend or override with a JSON file of the same shape (`capabench run --prices FILE`)."""

from __future__ import annotations

import json
from pathlib import Path

# Published list prices when this table was written; check your provider's before you trust a cost.
PRICES: dict[str, tuple[float, float]] = {
    "openai/gpt-4o-mini": (0.15, 0.60),
    "openai/gpt-4o": (2.50, 10.00),
    "openai/gpt-4.1-mini": (0.40, 1.60),
    "openai/gpt-4.1": (2.00, 8.00),
    "anthropic/claude-3-5-haiku": (0.80, 4.00),
    "anthropic/claude-3-5-sonnet": (3.00, 15.00),
    "local": (0.0, 0.0),
    "baseline": (0.0, 0.0),
    "scripted": (0.0, 0.0),
}


def load_prices(path: str | Path | None) -> dict[str, tuple[float, float]]:
    """The built-in table, extended or overridden by a JSON file {"prefix": [input, output]}."""
    prices = dict(PRICES)
    if not path:
        return prices
    try:
        data = json.loads(Path(path).read_text())
    except (OSError, ValueError) as exc:
        raise ValueError(f"{path}: can't read a price table: {exc}") from None
    if not isinstance(data, dict):
        raise ValueError(
            f'{path}: expected {{"model prefix": [input, output], ...}} in USD per million tokens'
        )
    for name, pair in data.items():
        try:
            price_in, price_out = (float(x) for x in pair)
        except (TypeError, ValueError):
            raise ValueError(
                f"{path}: {name!r}: expected [input, output] prices, got {pair!r}"
            ) from None
        if price_in < 0 or price_out < 0:
            raise ValueError(f"{path}: {name!r}: prices can't be negative")
        prices[name] = (price_in, price_out)
    return prices


def cost(
    model: str,
    input_tokens: int,
    output_tokens: int,
    prices: dict[str, tuple[float, float]] | None = None,
) -> float | None:
    """Dollars, or None when no price is known for the model."""
    table = prices or PRICES
    matches = [name for name in table if model == name or model.startswith(name)]
    if not matches:
        return None
    price_in, price_out = table[max(matches, key=len)]
    return (input_tokens * price_in + output_tokens * price_out) / 1_000_000
