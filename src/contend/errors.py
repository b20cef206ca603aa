"""The one exception tree of contend.

    ContendError
    ├── UserError                 bad input or usage; one line on stderr, exit 2
    │   ├── ConfigError           unknown key, wrong type, unreadable config file
    │   ├── NotAGitRepository     PATH is not inside a git work tree
    │   ├── RevisionNotFound      --base / --head names no commit
    │   ├── LockHeld              another contend run holds the repository lock
    │   └── LedgerKeyError        the ledger key cannot be placed, read, or is shared
    ├── LedgerError               a ledger that cannot be trusted
    │   ├── LedgerCorrupt         an edited, removed, reordered or inserted line
    │   └── LedgerTorn            the last line was cut by a crash mid-write
    ├── ProtocolError             an illegal transition or malformed agent output
    │   └── IllegalTransition     an action the attack state machine forbids
    └── AgentError                a backend failed (which backend, retryable or not, and
        │                         how: `failure`, with the HTTP `status` when there is one)
        └── AgentTimeout          an agent process or request ran past its deadline

Ledger errors are user-facing too (exit 2 when a command is handed a corrupt ledger);
`contend ledger verify` reports them itself and exits 1, as its contract says.
Adapters convert library errors with `raise ... from exc`; nothing here is swallowed.
"""

from __future__ import annotations

from typing import Literal

# How a backend failed, for the ledger and the reports:
#   crashed      the client exited abnormally, could not start, or failed otherwise
#   timeout      killed at its deadline
#   malformed    its reply (or the reply stream) was not usable output
#   http_status  the model server answered with an HTTP error (`status` when known)
#   unreachable  the client could not connect to the model server
Failure = Literal["crashed", "timeout", "malformed", "http_status", "unreachable"]


class ContendError(Exception):
    """Root of every error contend raises on purpose."""

    exit_code = 2


class UserError(ContendError):
    """The user asked for something that cannot be done; the message says what to change."""


class ConfigError(UserError):
    """A configuration file or value is invalid."""


class NotAGitRepository(UserError):
    """The path given is not inside a git work tree."""


class RevisionNotFound(UserError):
    """A revision named on the command line or in config does not exist."""


class LockHeld(UserError):
    """Another contend process holds the repository's review lock."""


class LedgerKeyError(UserError):
    """The user's ledger key is unusable: no place for it, unreadable, or readable by others."""


class LedgerError(ContendError):
    """A ledger that cannot be trusted; `line` is 1-based, or None when not line-specific."""

    def __init__(self, message: str, *, path: str | None = None, line: int | None = None):
        super().__init__(message)
        self.path = path
        self.line = line


class LedgerCorrupt(LedgerError):
    """A line was edited, removed, reordered or inserted."""


class LedgerTorn(LedgerError):
    """The last line is incomplete: a crash happened while it was being written."""


class ProtocolError(ContendError):
    """The protocol was violated: by the engine (a bug) or by an agent's output."""


class IllegalTransition(ProtocolError):
    """The attack state machine forbids this action from this status."""


class AgentError(ContendError):
    """A backend failed to produce a usable answer."""

    default_failure: Failure = "crashed"

    def __init__(
        self,
        message: str,
        *,
        backend: str,
        retryable: bool = False,
        failure: Failure | None = None,
        status: int | None = None,
    ):
        super().__init__(message)
        self.backend = backend
        self.retryable = retryable
        self.failure: Failure = failure or self.default_failure
        self.status = status


class AgentTimeout(AgentError):
    """The agent ran past its hard deadline and was killed."""

    default_failure: Failure = "timeout"
