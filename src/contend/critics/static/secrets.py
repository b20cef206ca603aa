"""The `secrets` topic: hard-coded credentials on added lines of any text file, redacted.

Two kinds of rule run on every line the change added:
  - provider formats (AWS, GitHub, Slack, Stripe, Google, OpenAI, Anthropic, PEM private
    keys): critical — a private key in a test file minor (a fixture generated for the
    test, almost always); JWTs and passwords inside URLs: major;
  - `generic-credential`: a value of 12+ characters assigned to a secret-looking name
    (`password = "..."`, `"api_key": "..."`, `TOKEN=...` in config files) whose Shannon
    entropy is high: major, minor in test files (fixtures are usually fake, but a real
    credential there still leaks).
Placeholders (`changeme`, `xxxx`, `<your-key>`, `${ENV}`, "example", "dummy", "test", ...)
and lockfiles (integrity hashes, not credentials) are not reported.

No finding field ever holds a whole secret: each is cut to a short prefix plus
"…[redacted N chars]", in the claim and in the evidence line alike. A finding that would
still contain the secret raises instead of being reported.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import get_args

from contend.critics.static import pyast
from contend.critics.static.base import (
    Confidence,
    FileChange,
    Finding,
    Language,
    Skipped,
    Topic,
    is_test_path,
)
from contend.critics.static.catalogue import RuleInfo
from contend.errors import ContendError
from contend.protocol.model import Severity

_LOCKFILE_NAMES = frozenset(
    {
        "package-lock.json",
        "npm-shrinkwrap.json",
        "pnpm-lock.yaml",
        "go.sum",
        "composer.lock",
        "gemfile.lock",
        "poetry.lock",
        "pipfile.lock",
        "cargo.lock",
        "uv.lock",
        "yarn.lock",
        "bun.lock",
        "flake.lock",
    }
)

# Substrings (lower-cased) that mark a value as a stand-in rather than a credential.
_PROVIDER_PLACEHOLDERS = (
    "example",
    "xxxx",
    "placeholder",
    "your",
    "dummy",
    "fake",
    "redacted",
    "sample",
    "changeme",
    "<",
    "${",
    "{{",
)
_GENERIC_PLACEHOLDERS = (
    *_PROVIDER_PLACEHOLDERS,
    "change_me",
    "change-me",
    "test",
    "mock",
    "todo",
    "fixme",
    "insert",
    "replace",
    "****",
    "...",
    "%(",
    "$(",
    "environ",
    "getenv",
    "process.env",
    "secret",
    "password",
    "not-a-real",
    "notreal",
)
_URL_PLACEHOLDERS = (*_GENERIC_PLACEHOLDERS, "pass", "pwd")

_SECRET_NAME = re.compile(
    r"(?:^|_)(?:password|passwd|passphrase|pass|pwd|secret|secrets|token|tokens|api_?key|"
    r"apikey|access_key|secret_key|private_key|auth_key|client_secret|credential|credentials)"
    r"(?:_|$)"
)
# Name words that say the value is about a secret, not the secret itself.
_NOT_SECRET_NAME_PARTS = frozenset(
    {
        "hash",
        "hashed",
        "digest",
        "checksum",
        "fingerprint",
        "pattern",
        "regex",
        "field",
        "header",
        "type",
        "prefix",
        "suffix",
        "format",
        "name",
        "path",
        "file",
        "url",
        "uri",
        "endpoint",
        "env",
        "var",
        "length",
        "len",
        "count",
        "id",
        "label",
        "kind",
    }
)
_NAME_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")

_GENERIC_MIN_LENGTH = 12
_GENERIC_MIN_ENTROPY = 3.0  # bits per character; random base64 is ~5, hex ~3.7-4

_JWT_IO_EXAMPLE_SIGNATURE = "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"

_WAYS_OUT = (
    "remove it and rotate it (it is in this change's git history), then load it from the "
    "environment or a secret store",
    "or, if it is a fake fixture, waive it in code with a reason: "
    "`# contend: allow secrets -- <reason>`",
)


@dataclass(frozen=True, slots=True)
class _ProviderRule:
    rule: str
    what: str
    pattern: re.Pattern[str]
    severity: Severity
    mixed_case_digits: bool = False  # demand upper, lower and digit (loose prefixes)


_PROVIDER_RULES = (
    _ProviderRule(
        "aws-access-key-id",
        "AWS access key id",
        re.compile(r"(?<![A-Z0-9])(?P<secret>(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16})(?![A-Z0-9])"),
        Severity.CRITICAL,
    ),
    _ProviderRule(
        "aws-secret-access-key",
        "AWS secret access key",
        re.compile(
            r"(?i:aws[A-Za-z0-9_.-]{0,20}?secret[A-Za-z0-9_.-]{0,20})[\"'`]?\s*(?::=|=>|=|:)\s*"
            r"[\"'`]?(?P<secret>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])"
        ),
        Severity.CRITICAL,
    ),
    _ProviderRule(
        "github-token",
        "GitHub token",
        re.compile(
            r"(?<![A-Za-z0-9_])(?P<secret>gh[pousr]_[A-Za-z0-9]{36,255}"
            r"|github_pat_[A-Za-z0-9_]{22,255})(?![A-Za-z0-9_])"
        ),
        Severity.CRITICAL,
    ),
    _ProviderRule(
        "slack-token",
        "Slack token",
        re.compile(r"(?<![A-Za-z0-9-])(?P<secret>xox[abprs]-[A-Za-z0-9-]{10,250})(?![A-Za-z0-9-])"),
        Severity.CRITICAL,
    ),
    _ProviderRule(
        "slack-webhook",
        "Slack webhook URL",
        re.compile(
            r"(?P<secret>https://hooks\.slack\.com/services/T[A-Z0-9]+/B[A-Z0-9]+/[A-Za-z0-9]{20,})"
        ),
        Severity.CRITICAL,
    ),
    _ProviderRule(
        "stripe-live-key",
        "Stripe live secret key",
        re.compile(
            r"(?<![A-Za-z0-9_])(?P<secret>(?:sk|rk)_live_[A-Za-z0-9]{16,247})(?![A-Za-z0-9_])"
        ),
        Severity.CRITICAL,
    ),
    _ProviderRule(
        "google-api-key",
        "Google API key",
        re.compile(r"(?<![A-Za-z0-9_-])(?P<secret>AIza[0-9A-Za-z_-]{35})(?![A-Za-z0-9_-])"),
        Severity.CRITICAL,
    ),
    _ProviderRule(
        "anthropic-api-key",
        "Anthropic API key",
        re.compile(r"(?<![A-Za-z0-9_-])(?P<secret>sk-ant-[A-Za-z0-9_-]{20,250})(?![A-Za-z0-9_-])"),
        Severity.CRITICAL,
    ),
    _ProviderRule(
        "openai-api-key",
        "OpenAI API key",
        re.compile(
            r"(?<![A-Za-z0-9_-])(?P<secret>sk-(?!ant-)(?:proj-|svcacct-|admin-)?"
            r"[A-Za-z0-9_-]{32,250})(?![A-Za-z0-9_-])"
        ),
        Severity.CRITICAL,
        mixed_case_digits=True,
    ),
    _ProviderRule(
        "jwt",
        "JSON Web Token",
        re.compile(
            r"(?<![A-Za-z0-9_-])(?P<secret>eyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\."
            r"[A-Za-z0-9_-]{10,})(?![A-Za-z0-9_-])"
        ),
        Severity.MAJOR,
    ),
)

# Lower-cased substrings of which every rule needs one to match (provider prefixes, "key" of
# PRIVATE KEY, "://" of URLs, the words of `_SECRET_NAME`); case-sensitive on purpose: fast.
_HINT = re.compile(
    r"akia|asia|abia|acca|aws|gh[pousr]_|github_pat_|xox[abprs]-|_live_|aiza|sk-|eyj|://"
    r"|pass|pwd|secret|token|key|credential|bearer"
)
_PEM_HEADER = re.compile(r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----")
_KEY_MATERIAL = re.compile(r"[A-Za-z0-9+/]{40,}")
_URL_CREDENTIALS = re.compile(
    r"\b[a-zA-Z][a-zA-Z0-9+.-]{1,20}://[^\s:/@'\"`]{1,100}:(?P<secret>[^\s:/@'\"`]{8,200})@"
)
_ASSIGNMENT = re.compile(
    r"(?<![A-Za-z0-9_.-])(?P<name>[A-Za-z_][A-Za-z0-9_.-]{0,80})[\"'`]?\]?"
    r"(?:\s*:\s*[A-Za-z_][A-Za-z0-9_.\[\]| ]{0,40}?)?\s*"  # a type annotation
    r"(?::=|=>|==|=|:)\s*(?P<quote>[\"'`]?)(?P<secret>[^\s\"'`]{12,300})(?P=quote)"
)
# `Authorization: Bearer <token>` written into code or config.
_BEARER = re.compile(r"\bBearer\s+(?P<secret>[A-Za-z0-9._~+/=-]{20,300})")
_IDENTIFIER_LIKE = re.compile(r"[A-Za-z0-9]+(?:[_.:/-][A-Za-z0-9]+)+")


@dataclass(frozen=True, slots=True)
class _Hit:
    rule: str
    what: str
    severity: Severity
    start: int  # span of the secret in the line, for overlap and redaction
    end: int
    secret: str
    note: str = ""


def redact(secret: str) -> str:
    """A short prefix of `secret` and how much was cut; never the whole value."""
    keep = 4 if len(secret) >= 16 else len(secret) // 4
    return f"{secret[:keep]}…[redacted {len(secret) - keep} chars]"


def shannon_entropy(value: str) -> float:
    """Bits per character of `value`'s character distribution."""
    if not value:
        return 0.0
    counts = Counter(value)
    total = len(value)
    return -sum(n / total * math.log2(n / total) for n in counts.values())


def is_lockfile(path: str) -> bool:
    name = path.replace("\\", "/").rsplit("/", 1)[-1].lower()
    return name in _LOCKFILE_NAMES or name.endswith((".lock", "-lock.json", "-lock.yaml"))


def _is_placeholder(value: str, markers: tuple[str, ...], min_distinct: int = 6) -> bool:
    """A stand-in marker, or too few distinct characters to be random (`AKIA0000...`)."""
    lower = value.lower()
    return any(marker in lower for marker in markers) or len(set(lower)) < min_distinct


def _provider_hits(line: str) -> Iterator[_Hit]:
    for rule in _PROVIDER_RULES:
        for match in rule.pattern.finditer(line):
            secret = match.group("secret")
            if _is_placeholder(secret, _PROVIDER_PLACEHOLDERS, min_distinct=10):
                continue
            if rule.rule == "jwt" and secret.endswith(_JWT_IO_EXAMPLE_SIGNATURE):
                continue
            if rule.mixed_case_digits and not _mixed_case_digits(secret):
                continue
            start, end = match.span("secret")
            yield _Hit(rule.rule, rule.what, rule.severity, start, end, secret)
    for match in _URL_CREDENTIALS.finditer(line):
        secret = match.group("secret")
        if _is_placeholder(secret, _URL_PLACEHOLDERS) or secret.isalpha():
            continue
        start, end = match.span("secret")
        yield _Hit("url-credentials", "password in a URL", Severity.MAJOR, start, end, secret)
    for match in _BEARER.finditer(line):
        secret = match.group("secret")
        # A provider key's markers, not a password's: "pass" or "pwd" inside a random token is
        # chance (about 1 token in 1,000), not a stand-in.
        if _is_placeholder(secret, _PROVIDER_PLACEHOLDERS) or shannon_entropy(secret) < 3.0:
            continue
        start, end = match.span("secret")
        yield _Hit("bearer-token", "bearer token", Severity.MAJOR, start, end, secret)


def _mixed_case_digits(value: str) -> bool:
    return (
        any(c.isupper() for c in value)
        and any(c.islower() for c in value)
        and any(c.isdigit() for c in value)
    )


def _private_key_hit(lines: list[str], index: int) -> _Hit | None:
    """A PEM private-key header followed by key material on the same or the next lines.

    The header alone (a parser checking for it, documentation) is not a key."""
    line = lines[index].removesuffix("\r")
    header = _PEM_HEADER.search(line)
    if header is None:
        return None
    rest = line[header.end() :]
    following = [rest.replace("\\n", "\n"), *lines[index + 1 : index + 4]]
    material = next(
        (m.group(0) for text in following for m in [_KEY_MATERIAL.search(text)] if m), None
    )
    if material is None or "..." in rest or "<" in rest:
        return None
    secret = rest if rest.strip() else material
    start = header.end() if rest.strip() else len(line)
    return _Hit("private-key", "private key", Severity.CRITICAL, start, len(line), secret)


def _name_words(name: str) -> list[str]:
    return [w.lower() for w in _NAME_WORD.findall(name.rsplit(".", 1)[-1])]


def _generic_hits(line: str, language: Language) -> Iterator[_Hit]:
    for match in _ASSIGNMENT.finditer(line):
        # In code an unquoted right-hand side is an expression, not a literal.
        if not match.group("quote") and language != "other":
            continue
        words = _name_words(match.group("name"))
        if not _SECRET_NAME.search("_".join(words)) or _NOT_SECRET_NAME_PARTS & set(words):
            continue
        value = match.group("secret").rstrip(",;")
        if len(value) < _GENERIC_MIN_LENGTH or _is_placeholder(value, _GENERIC_PLACEHOLDERS):
            continue
        if value.startswith(("$", "%", "/", "./", "~/", "http://", "https://")):
            continue
        if not (any(c.isdigit() for c in value) and any(c.isalpha() for c in value)):
            continue
        if _looks_like_identifier(value):
            continue
        entropy = shannon_entropy(value)
        if entropy < _GENERIC_MIN_ENTROPY:
            continue
        start = match.start("secret")
        yield _Hit(
            "generic-credential",
            f"credential assigned to `{match.group('name')}`",
            Severity.MAJOR,
            start,
            start + len(value),
            value,
            note=f" (entropy {entropy:.1f} bits/char)",
        )


def _looks_like_identifier(value: str) -> bool:
    """Dotted / snake / kebab words (`auth.token_v2`, `refresh-token-ttl`): names, not keys."""
    if not _IDENTIFIER_LIKE.fullmatch(value):
        return False
    segments = re.split(r"[_.:/-]", value)
    return all(s.isalpha() or len(s) <= 4 for s in segments)


def _line_hits(lines: list[str], index: int, language: Language) -> list[_Hit]:
    """Every credential on one line, each once; where rules overlap, the more specific wins."""
    line = lines[index].removesuffix("\r")
    # One cheap search first: most lines hold none of the substrings every rule needs.
    if not _HINT.search(line.lower()):
        return []
    candidates = list(_provider_hits(line))
    pem = _private_key_hit(lines, index)
    if pem is not None:
        candidates.append(pem)
    candidates.extend(_generic_hits(line, language))
    kept: list[_Hit] = []
    for hit in candidates:
        repeated = any(k.rule == hit.rule and k.secret == hit.secret for k in kept)
        if not repeated and all(hit.end <= k.start or hit.start >= k.end for k in kept):
            kept.append(hit)
    return kept


def _redact_line(line: str, hits: Sequence[_Hit]) -> str:
    # A PEM key whose material sits on the next lines has an empty span here: nothing to cut.
    for hit in sorted((h for h in hits if h.end > h.start), key=lambda h: h.start, reverse=True):
        line = line[: hit.start] + redact(hit.secret) + line[hit.end :]
    for hit in hits:
        # The same secret may also occur elsewhere on the line, outside the matched span.
        line = line.replace(hit.secret, redact(hit.secret))
    return line


# What a test file holds as a fixture far more often than as a leak: values a test makes
# up, and private keys generated for it (a crypto library's suite holds dozens). Minor
# there: still raised, for a look, never blocking. A provider's key format in a test file
# stays critical: a fixture needs no live-looking token of a real service.
_FIXTURE_KINDS = frozenset({"generic-credential", "private-key"})


_TEST_DIRS = frozenset({"test", "tests", "__tests__", "testdata"})


def _in_test_tree(path: str) -> bool:
    """A test file, or any file under a test directory (`tests/fixtures/server.key`, a
    `testdata/config.yaml`): what the suite reads, not what the product ships."""
    parts = path.replace("\\", "/").split("/")
    return is_test_path(path) or bool(_TEST_DIRS & set(parts[:-1]))


def _findings(change: FileChange) -> Iterator[Finding]:
    # Numbered as git numbers them (`added_lines`): only "\n" ends a line; str.splitlines()
    # would also break at form feeds and U+2028 and drift. A "\r" is cut where a line is read.
    lines = (change.new_text or "").split("\n")
    in_tests = _in_test_tree(change.path)
    for line_no in sorted(change.added_lines):
        if line_no > len(lines):
            continue
        hits = _line_hits(lines, line_no - 1, change.language)
        if not hits:
            continue
        evidence = _redact_line(lines[line_no - 1].removesuffix("\r"), hits)
        for hit in hits:
            severity = hit.severity
            if in_tests and hit.rule in _FIXTURE_KINDS:
                severity = Severity.MINOR
            finding = _INFO[hit.rule].finding(
                path=change.path,
                lines=(line_no, line_no),
                claim=(
                    f"hard-coded {hit.what} added: {redact(hit.secret)}{hit.note}; anyone who "
                    "can read the repository or its history can use it"
                ),
                evidence=evidence,
                severity=severity,
                confidence=Confidence.MEDIUM if severity is Severity.MINOR else None,
                symbol=_symbol(change, line_no),
            )
            _check_redacted(finding, hit.secret)
            yield finding


def _symbol(change: FileChange, line: int) -> str | None:
    if change.language != "python":
        return None
    return pyast.symbol_at(pyast.parse_old_side(change.new_text), line)


def _check_redacted(finding: Finding, secret: str) -> None:
    fields = (finding.claim, finding.evidence, finding.old_evidence or "")
    if any(secret in text for text in fields):
        raise ContendError(
            f"secrets critic bug: a {finding.rule} finding at {finding.path}:"
            f"{finding.start_line} would print the secret unredacted"
        )


def _rule_info(rule: str, what: str, severity: Severity, confidence: Confidence) -> RuleInfo:
    return RuleInfo(
        rule,
        Topic.SECRETS,
        severity,
        confidence,
        frozenset(get_args(Language)),
        f"a {what} is written into the repository, where anyone who can read it or its "
        "history can use it",
        _WAYS_OUT,
    )


RULES: tuple[RuleInfo, ...] = (
    *(_rule_info(r.rule, r.what, r.severity, Confidence.HIGH) for r in _PROVIDER_RULES),
    _rule_info("url-credentials", "password in a URL", Severity.MAJOR, Confidence.HIGH),
    _rule_info("bearer-token", "bearer token", Severity.MAJOR, Confidence.HIGH),
    _rule_info("private-key", "private key", Severity.CRITICAL, Confidence.HIGH),
    # Entropy on a secret-looking name: usually a credential; minor in test files.
    _rule_info("generic-credential", "high-entropy credential", Severity.MAJOR, Confidence.HIGH),
)
_INFO = {info.rule: info for info in RULES}


@dataclass(frozen=True, slots=True)
class SecretSpan:
    start: int  # offsets into the text given to `find_secrets`
    end: int
    rule: str
    secret: str


_PEM_END = re.compile(r"-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----")
_PEM_BODY = re.compile(r"[A-Za-z0-9+/=]+")


def find_secrets(text: str) -> list[SecretSpan]:
    """Every credential in arbitrary text (a quoted line, a spec, gate output), by the
    rules above, each line read as a config file is (unquoted values count too). For
    redaction outside this critic (`contend.redaction`); placeholders are not reported."""
    if not _HINT.search(text.lower()):
        return []
    lines = text.split("\n")
    spans: list[SecretSpan] = []
    offset = 0
    for index, line in enumerate(lines):
        for hit in _line_hits(lines, index, "other"):
            if hit.end > hit.start:
                spans.append(SecretSpan(offset + hit.start, offset + hit.end, hit.rule, hit.secret))
            else:  # a PEM header whose key material sits on the following lines
                start = end = offset + len(line) + 1
                end_marker = _PEM_END.search(text, start)
                if end_marker is not None:
                    end = end_marker.start()
                else:
                    for follow in lines[index + 1 :]:
                        if not _PEM_BODY.fullmatch(follow.strip()):
                            break
                        end += len(follow) + 1
                spans.append(SecretSpan(start, end, hit.rule, text[start:end]))
        if _HINT.search(line.lower()):
            # An assignment inside another's value (`{'X': "DB_PASSWORD=…"}`): the line
            # scan does not overlap matches, so each value is read once more.
            for match in _ASSIGNMENT.finditer(line):
                base = offset + match.start("secret")
                for hit in _generic_hits(match.group("secret"), "other"):
                    spans.append(SecretSpan(base + hit.start, base + hit.end, hit.rule, hit.secret))
        offset += len(line) + 1
    return spans


class SecretsCritic:
    topic = Topic.SECRETS
    languages: frozenset[Language] = frozenset(get_args(Language))

    def check(self, changes: Sequence[FileChange]) -> Iterable[Finding | Skipped]:
        results: list[Finding | Skipped] = []
        for change in changes:
            # Deleted files and lockfiles add no credential: the one has no new text, the
            # other holds integrity hashes that would only raise false alarms.
            if change.new_text is None or not change.added_lines or is_lockfile(change.path):
                continue
            results.extend(_findings(change))
        return results


CRITIC = SecretsCritic()
