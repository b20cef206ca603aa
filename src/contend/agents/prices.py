"""The built-in price table of the API backends: USD per million tokens, input and output.

APPROXIMATE and DATED: list prices as published by the vendors, checked on PRICES_AS_OF.
Vendors change prices and add models; a model that is not listed here costs 0.0 with
`cost_known: false` recorded in its exchange, never a guessed number. Users override or
add entries in config (`[prices."MODEL"] input_per_mtok = ..., output_per_mtok = ...`),
which always wins. Cached-input discounts and batch prices are not modelled.

Names are matched exactly, then with a trailing snapshot date removed
("gpt-4.1-2025-04-14" -> "gpt-4.1", "claude-sonnet-4-5-20250929" -> "claude-sonnet-4-5").
Only the first-party providers are listed: a model served by Ollama, vLLM or OpenRouter has
the host's price, not the vendor's, so those backends use config prices only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

PRICES_AS_OF = "2025-11-15"

Provider = Literal["openai", "anthropic"]


@dataclass(frozen=True, slots=True)
class ModelPrice:
    input_per_mtok: float
    output_per_mtok: float
    source: str  # "config" or "built-in <date>"

    def cost(self, tokens_in: int, tokens_out: int) -> float:
        return (tokens_in * self.input_per_mtok + tokens_out * self.output_per_mtok) / 1e6


BUILTIN: dict[Provider, dict[str, tuple[float, float]]] = {
    "openai": {
        "gpt-5": (1.25, 10.00),
        "gpt-5-mini": (0.25, 2.00),
        "gpt-5-nano": (0.05, 0.40),
        "gpt-4.1": (2.00, 8.00),
        "gpt-4.1-mini": (0.40, 1.60),
        "gpt-4.1-nano": (0.10, 0.40),
        "gpt-4o": (2.50, 10.00),
        "gpt-4o-mini": (0.15, 0.60),
        "o3": (2.00, 8.00),
        "o4-mini": (1.10, 4.40),
        "o3-mini": (1.10, 4.40),
        "o1": (15.00, 60.00),
    },
    "anthropic": {
        "claude-opus-4-5": (5.00, 25.00),
        "claude-opus-4-1": (15.00, 75.00),
        "claude-opus-4-0": (15.00, 75.00),
        "claude-opus-4": (15.00, 75.00),
        "claude-sonnet-4-5": (3.00, 15.00),
        "claude-sonnet-4-0": (3.00, 15.00),
        "claude-sonnet-4": (3.00, 15.00),
        "claude-3-7-sonnet": (3.00, 15.00),
        "claude-haiku-4-5": (1.00, 5.00),
        "claude-3-5-haiku": (0.80, 4.00),
    },
}

_SNAPSHOT = re.compile(r"-(\d{4}-\d{2}-\d{2}|\d{8})$")


def builtin_price(provider: Provider, model: str) -> ModelPrice | None:
    """The built-in list price of `model` at `provider`, or None when it is not listed."""
    table = BUILTIN[provider]
    for name in (model, _SNAPSHOT.sub("", model), _SNAPSHOT.sub("", model).removesuffix("-latest")):
        entry = table.get(name)
        if entry is not None:
            return ModelPrice(entry[0], entry[1], source=f"built-in {PRICES_AS_OF}")
    return None
