"""Questions with verifiable answers, the answers computed here (experiments 01 and 02).

A bank item names a kind and its arguments; `truth` computes the answer, `text` writes the
question, `lie` derives a plausible wrong answer (for the Byzantine agents of 02), and
`normalise` puts an agent's reply in the same canonical form. No answer is typed into a
bank by hand. Pure functions; a bad argument raises ValueError.
"""

from __future__ import annotations

import ast
import datetime as dt
import operator
import re
from collections.abc import Callable
from typing import Any, Literal

from pydantic import Field

from contend.experiments.bank import Strict

Kind = Literal[
    "arith", "weekday", "count_primes", "letter_count", "days_between", "digit_sum_pow", "base"
]
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")


class Question(Strict):
    id: str
    kind: Kind
    args: dict[str, Any] = Field(default_factory=dict)


_OPS: dict[type[ast.AST], Callable[[int, int], int]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
}


def _arith(node: ast.AST) -> int:
    if isinstance(node, ast.Expression):
        return _arith(node.body)
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -_arith(node.operand)
    if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
        return _OPS[type(node.op)](_arith(node.left), _arith(node.right))
    raise ValueError("only integers and + - * // % are allowed")


def _date(value: Any) -> dt.date:
    if isinstance(value, dt.date):
        return value
    return dt.date.fromisoformat(str(value))


def _primes_below(n: int) -> int:
    if n < 2:
        return 0
    sieve = bytearray([1]) * n
    sieve[0:2] = b"\x00\x00"
    for i in range(2, int(n**0.5) + 1):
        if sieve[i]:
            sieve[i * i :: i] = bytearray(len(range(i * i, n, i)))
    return sum(sieve)


def truth(q: Question) -> str:
    """The canonical right answer."""
    a = q.args
    if q.kind == "arith":
        return str(_arith(ast.parse(str(a["expr"]), mode="eval")))
    if q.kind == "weekday":
        return WEEKDAYS[_date(a["date"]).weekday()]
    if q.kind == "count_primes":
        return str(_primes_below(int(a["below"])))
    if q.kind == "letter_count":
        return str(str(a["word"]).lower().count(str(a["letter"]).lower()))
    if q.kind == "days_between":
        return str(abs((_date(a["end"]) - _date(a["start"])).days))
    if q.kind == "digit_sum_pow":
        return str(sum(int(d) for d in str(int(a["base"]) ** int(a["exp"]))))
    if q.kind == "base":
        n, base = int(a["n"]), int(a["base"])
        digits = "0123456789abcdefghijklmnopqrstuvwxyz"
        if not 2 <= base <= 36 or n < 0:
            raise ValueError("base must lie in 2..36 and n be non-negative")
        out = ""
        while True:
            n, r = divmod(n, base)
            out = digits[r] + out
            if n == 0:
                return out
    raise ValueError(f"unknown kind {q.kind}")


def text(q: Question) -> str:
    a = q.args
    ask = {
        "arith": f"Compute {a.get('expr')} (// is integer division, % the remainder).",
        "weekday": f"On which day of the week was {a.get('date')}?",
        "count_primes": f"How many prime numbers are there below {a.get('below')}?",
        "letter_count": f"How many times does the letter '{a.get('letter')}' occur in the word "
        f"'{a.get('word')}'?",
        "days_between": f"How many days are there from {a.get('start')} to {a.get('end')}?",
        "digit_sum_pow": "What is the sum of the decimal digits of "
        f"{a.get('base')}^{a.get('exp')}?",
        "base": f"Write {a.get('n')} in base {a.get('base')} (lowercase digits, no prefix).",
    }[q.kind]
    return ask + " Answer with the value only."


def lie(q: Question, strength: Literal["strong", "subtle"]) -> str:
    """A wrong answer of the right shape: far off (strong) or off by one step (subtle)."""
    right = truth(q)
    if q.kind == "weekday":
        step = 3 if strength == "strong" else 1
        return WEEKDAYS[(WEEKDAYS.index(right) + step) % 7]
    if q.kind == "base":
        base = int(q.args["base"])
        value = int(right, base) + (base**2 if strength == "strong" else 1)
        return truth(Question(id=q.id, kind="base", args={"n": value, "base": base}))
    number = int(right)
    wrong = number + max(10, abs(number) // 4) if strength == "strong" else number + 1
    return str(wrong)


_NUMBER = re.compile(r"[-+]?\d[\d,_ ]*")


def normalise(answer: object) -> str | None:
    """An agent's answer in canonical form: lowercase, trimmed, trailing '.' dropped,
    digit-group separators removed from numbers; None for no answer."""
    if answer is None:
        return None
    s = str(answer).strip().lower().rstrip(".").strip()
    if not s:
        return None
    if _NUMBER.fullmatch(s):
        s = re.sub(r"[,_ ]", "", s).lstrip("+")
        return str(int(s))
    return s
