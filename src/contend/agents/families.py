"""Model family from a model name, for backends that can serve any vendor's model.

The family is what the diversity check counts (a critic of the author's own family shares
its blind spots), so an unrecognised name yields "unknown", never a guess. OpenRouter-style
names ("meta-llama/llama-3.1-70b") are read by their vendor prefix first.
"""

from __future__ import annotations

import re

UNKNOWN = "unknown"

# Vendor prefixes as OpenRouter and Hugging Face write them ("vendor/model").
_VENDORS: dict[str, str] = {
    "openai": "openai",
    "anthropic": "anthropic",
    "google": "google",
    "meta-llama": "meta",
    "meta": "meta",
    "mistralai": "mistral",
    "qwen": "alibaba",
    "deepseek": "deepseek",
    "deepseek-ai": "deepseek",
}

# First match wins. Order matters where names mix: "deepseek-r1-distill-llama" is DeepSeek's
# model (trained on a Llama base), so vendor-specific names come before base-model names.
_RULES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"claude"), "anthropic"),
    (re.compile(r"gemini|gemma"), "google"),
    (re.compile(r"deepseek"), "deepseek"),
    (re.compile(r"qwen|qwq"), "alibaba"),
    (re.compile(r"mistral|mixtral|codestral|devstral|ministral|magistral"), "mistral"),
    (re.compile(r"llama"), "meta"),
    (re.compile(r"gpt|^o[1-9](?![0-9])"), "openai"),
)


def family_of(model: str) -> str:
    """The vendor family of `model` ("meta", "alibaba", ...), or "unknown"."""
    name = model.strip().lower()
    vendor, slash, rest = name.partition("/")
    if slash:
        known = _VENDORS.get(vendor)
        if known is not None:
            return known
        name = rest
    for pattern, family in _RULES:
        if pattern.search(name):
            return family
    return UNKNOWN
