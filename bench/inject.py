"""Defect-injecting operators that insert new code: security slips and hard-coded secrets.

A statement is inserted as the first statement (after the docstring) of a real function that
takes a parameter, so the slip uses real data; the import it needs goes after the module's
imports. Secrets are generated at run time from the seeded generator: no credential-shaped
literal is written in this repository (prefixes are assembled from pieces for the same
reason).
"""

from __future__ import annotations

import ast
import random
import string
from collections.abc import Callable

from splice import Edit, FunctionNode, Mutation, Operator, Source, first_body_stmt, functions, make

# -- security ----------------------------------------------------------------------------------


def _param_functions(src: Source) -> list[tuple[FunctionNode, str, ast.stmt]]:
    """Functions with a plain parameter (not self/cls) and a first statement to insert at."""
    found = []
    for func in functions(src.tree):
        names = [a.arg for a in func.args.args if a.arg not in ("self", "cls")]
        first = first_body_stmt(func)
        if names and first is not None and src.indent(first) is not None:
            found.append((func, names[0], first))
    return found


def _inserter(
    operator: str,
    label: str,
    imports: tuple[str, ...],
    lines: Callable[[str, random.Random], list[str]],
) -> Operator:
    def op(src: Source, rng: random.Random) -> list[Mutation]:
        imps = [src.import_edit(line) for line in imports]
        out = []
        for _func, param, first in _param_functions(src):
            at = src.line_offset(first.lineno)
            if any(imp is not None and at <= imp.start for imp in imps):
                continue
            indent = src.indent(first) or ""
            text = "".join(f"{indent}{line}\n" for line in lines(param, rng))
            out.append(make(operator, label, *imps, Edit(at, at, text)))
        return out

    return op


shell_true = _inserter(
    "shell_true",
    "security",
    ("import subprocess",),
    lambda p, r: [f'subprocess.call("process " + str({p}), shell=True)'],
)
eval_input = _inserter("eval_input", "security", (), lambda p, r: [f"{p} = eval({p})"])
yaml_load = _inserter(
    "yaml_load", "security", ("import yaml",), lambda p, r: [f"config = yaml.load({p})"]
)
pickle_loads = _inserter(
    "pickle_loads", "security", ("import pickle",), lambda p, r: [f"state = pickle.loads({p})"]
)
weak_hash = _inserter(
    "weak_hash",
    "security",
    ("import hashlib",),
    lambda p, r: [f"digest = hashlib.md5(str({p}).encode()).hexdigest()"],
)
sql_from_string = _inserter(
    "sql_from_string",
    "security",
    ("import sqlite3",),
    lambda p, r: [
        # contend: allow security -- the operator plants this injection in a corpus on purpose
        f"query = \"SELECT * FROM records WHERE name = '%s'\" % {p}",
        'rows = sqlite3.connect("cache.db").execute(query).fetchall()',
    ],
)
tls_unverified = _inserter(
    "tls_unverified",
    "security",
    ("import requests",),
    lambda p, r: [f"response = requests.get(str({p}), verify=False, timeout=10)"],
)


# -- secrets -----------------------------------------------------------------------------------

ALNUM = string.ascii_letters + string.digits


def _rand(rng: random.Random, alphabet: str, n: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def aws_key(rng: random.Random) -> tuple[str, str]:
    key_id = "AK" + "IA" + _rand(rng, string.ascii_uppercase + "234567", 16)
    secret = _rand(rng, ALNUM + "+/", 40)
    return key_id, secret


def _secret_lines(kind: str, rng: random.Random) -> list[str]:
    if kind == "aws":
        key_id, secret = aws_key(rng)
        return [f'aws_access_key_id = "{key_id}"', f'aws_secret_access_key = "{secret}"']
    if kind == "github":
        return [f'token = "{"gh" + "p_" + _rand(rng, ALNUM, 36)}"']
    if kind == "stripe":
        return [f'stripe_api_key = "{"sk" + "_live_" + _rand(rng, ALNUM, 24)}"']
    if kind == "slack":
        parts = [_rand(rng, string.digits, 12), _rand(rng, string.digits, 12)]
        return [f'slack_token = "{"xo" + "xb-" + "-".join(parts)}-{_rand(rng, ALNUM, 24)}"']
    if kind == "password":
        return [f'password = "{_rand(rng, ALNUM + "!#$%&*+-=?@^_", 20)}"']
    if kind == "db_url":
        return [f'database_url = "postgresql://admin:{_rand(rng, ALNUM, 18)}@db.internal:5432/app"']
    if kind == "bearer":
        return [f'headers = {{"Authorization": "Bearer {_rand(rng, ALNUM + "-_", 40)}"}}']
    if kind == "private_key":
        label = "RSA " + "PRIVATE" + " KEY"
        body = "\\n".join(_rand(rng, ALNUM + "+/", 64) for _ in range(4))
        return [f'private_key = "-----BEGIN {label}-----\\n{body}\\n-----END {label}-----\\n"']
    return [f'api_key = "{_rand(rng, "0123456789abcdef", 40)}"']


def secret_op(kind: str) -> Operator:
    name = f"secret_{kind}"

    def op(src: Source, rng: random.Random) -> list[Mutation]:
        out = []
        for func in functions(src.tree):
            first = first_body_stmt(func)
            if first is None or src.indent(first) is None:
                continue
            at = src.line_offset(first.lineno)
            text = "".join(f"{src.indent(first)}{line}\n" for line in _secret_lines(kind, rng))
            out.append(make(name, "secrets", Edit(at, at, text)))
        return out

    return op


def module_secret(src: Source, rng: random.Random) -> list[Mutation]:
    """A credential as a module-level constant, right after the imports."""
    at = src.import_anchor()
    kind = rng.choice(["aws", "github", "stripe", "password"])
    text = ""
    for line in _secret_lines(kind, rng):
        name, value = line.split(" = ", 1)
        text += f"{name.upper()} = {value}\n"
    return [make("module_secret", "secrets", Edit(at, at, text))]
