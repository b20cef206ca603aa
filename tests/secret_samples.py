"""One planted credential per rule of the secrets detector, each in its natural context.

Generated at run time from a seeded generator, so no file here holds a literal that a
secret scanner (ours or a forge's push protection) would flag.
"""

from __future__ import annotations

import base64
import json
import random
import string
from dataclasses import dataclass

ALNUM = string.ascii_letters + string.digits
UPPER_DIGITS = string.ascii_uppercase + string.digits
URLSAFE = ALNUM + "_-"
B64 = ALNUM + "+/"


def rand(alphabet: str, n: int, seed: str) -> str:
    rng = random.Random(f"redaction:{seed}:{n}")
    return "".join(rng.choice(alphabet) for _ in range(n))


def _b64url(obj: object) -> str:
    return base64.urlsafe_b64encode(json.dumps(obj).encode()).decode().rstrip("=")


@dataclass(frozen=True)
class Sample:
    rule: str
    secret: str  # what must never appear raw
    line: str  # the secret in context, as it would sit in a file or a message
    parts: tuple[str, ...] = ()  # further pieces that must not appear (PEM body lines)


def samples() -> list[Sample]:
    aws_secret = rand(B64, 40, "aws-secret")
    pem_lines = [rand(B64, 64, f"pem{i}") for i in range(4)]
    pem_body = "\n".join(pem_lines)
    jwt = (
        _b64url({"alg": "HS256", "typ": "JWT"})
        + "."
        + _b64url({"sub": "svc-deploy", "role": "admin", "iat": 1732960000})
        + "."
        + rand(URLSAFE, 43, "jwt")
    )
    url_password = rand(ALNUM, 14, "urlpass")
    bearer = rand(ALNUM + "._-", 40, "bearer")
    generic = rand(ALNUM, 12, "generic") + "9#Qz" + rand(ALNUM, 8, "generic2")
    webhook = (
        "https://hooks.slack.com/services/T"
        + rand(UPPER_DIGITS, 8, "wh1")
        + "/B"
        + rand(UPPER_DIGITS, 10, "wh2")
        + "/"
        + rand(ALNUM, 24, "wh3")
    )
    keys = {
        "aws": "AKIA" + rand(UPPER_DIGITS, 16, "aws"),
        "ghp": "ghp_" + rand(ALNUM, 36, "ghp"),
        "pat": "github_pat_" + rand(ALNUM, 22, "pat1") + "_" + rand(ALNUM, 59, "pat2"),
        "slack": f"xoxb-{rand(string.digits, 12, 's1')}-{rand(string.digits, 13, 's2')}-"
        + rand(ALNUM, 24, "s3"),
        "stripe": "sk_live_" + rand(ALNUM, 24, "stripe"),
        "google": "AIza" + rand(URLSAFE, 35, "google"),
        "anthropic": "sk-ant-api03-" + rand(URLSAFE, 80, "anthropic"),
        "openai": "sk-proj-" + rand(ALNUM, 24, "oa1") + "T3B" + rand(ALNUM, 24, "oa2"),
    }
    pem = "-----BEGIN RSA PRIVATE KEY-----\n" + pem_body + "\n-----END RSA PRIVATE KEY-----"
    return [
        Sample("aws-access-key-id", keys["aws"], f"AWS_ACCESS_KEY_ID={keys['aws']}"),
        Sample("aws-secret-access-key", aws_secret, f"aws_secret_access_key = {aws_secret}"),
        Sample("github-token", keys["ghp"], f"GITHUB_TOKEN={keys['ghp']}"),
        Sample("github-token", keys["pat"], f"gh auth login --with-token {keys['pat']}"),
        Sample("slack-token", keys["slack"], f"SLACK_BOT={keys['slack']}"),
        Sample("slack-webhook", webhook, f"WEBHOOK={webhook}"),
        Sample("stripe-live-key", keys["stripe"], f"STRIPE={keys['stripe']}"),
        Sample("google-api-key", keys["google"], f"MAPS={keys['google']}"),
        Sample("anthropic-api-key", keys["anthropic"], f"ANTHROPIC={keys['anthropic']}"),
        Sample("openai-api-key", keys["openai"], f"OPENAI={keys['openai']}"),
        Sample("jwt", jwt, f"SESSION_COOKIE={jwt}"),
        Sample("private-key", pem_lines[0], pem, tuple(pem_lines[1:])),
        Sample(
            "url-credentials",
            url_password,
            f"DATABASE_URL=postgres://app:{url_password}@db.internal:5432/app",
        ),
        Sample("bearer-token", bearer, f"Authorization: Bearer {bearer}"),
        Sample("generic-credential", generic, f"DB_PASSWORD={generic}"),
    ]


def all_lines() -> str:
    """Every sample, one context per paragraph: a .env, a message, a spec."""
    return "\n".join(s.line for s in samples()) + "\n"


def raw_pieces() -> list[str]:
    return [piece for s in samples() for piece in (s.secret, *s.parts)]
