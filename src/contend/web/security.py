"""Who may use the page, and what the browser may do with it: one ASGI middleware.

- Every request needs the access token: the `?token=` of the URL `contend serve` prints
  (answered with a redirect that sets it as an HttpOnly, SameSite=Strict cookie and drops
  it from the address bar), or that cookie. Static files and the event stream included.
- The Host header must name the address served (a DNS-rebinding page cannot borrow the
  cookie-less token, and cannot reach the app under another name either).
- Only GET and HEAD read; only POST changes anything, and a POST needs the CSRF token of
  this server in its form and, when the browser sends them, a same-origin Origin and
  Sec-Fetch-Site. GET never changes state.
- Every response carries a Content-Security-Policy without inline script
  (`script-src 'self'`), no framing, no referrer to other sites (`same-origin`: under
  `no-referrer` chromium sends `Origin: null` on the page's own form posts, which the
  Origin check rightly refuses), no caching, no MIME sniffing.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass
from http.cookies import CookieError, SimpleCookie
from typing import Any
from urllib.parse import parse_qsl, urlencode

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

COOKIE = "contend_token"
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
    "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
)
HEADERS = [
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"same-origin"),
    (b"cache-control", b"no-store"),
    (b"cross-origin-opener-policy", b"same-origin"),
    (b"cross-origin-resource-policy", b"same-origin"),
]
READ_METHODS = frozenset({"GET", "HEAD"})


@dataclass(frozen=True, slots=True)
class Access:
    """The access token of one `contend serve` process and what is derived from it."""

    token: str
    hosts: frozenset[str]  # acceptable Host header values, e.g. "127.0.0.1:8765"
    origins: frozenset[str]  # acceptable Origin values, e.g. "http://127.0.0.1:8765"

    @classmethod
    def new(cls, host: str, port: int) -> Access:
        names = {host}
        if host in ("127.0.0.1", "::1", "localhost"):
            names |= {"127.0.0.1", "localhost"}
        shown = {f"[{n}]" if ":" in n else n for n in names}
        hosts = frozenset(f"{n}:{port}" for n in shown)
        return cls(
            token=secrets.token_urlsafe(32),
            hosts=hosts,
            origins=frozenset(f"http://{h}" for h in hosts),
        )

    @property
    def csrf(self) -> str:
        return hmac.new(self.token.encode(), b"contend csrf", hashlib.sha256).hexdigest()

    def valid(self, candidate: str | None) -> bool:
        return candidate is not None and hmac.compare_digest(
            candidate.encode(), self.token.encode()
        )

    def valid_csrf(self, candidate: str | None) -> bool:
        return candidate is not None and hmac.compare_digest(candidate.encode(), self.csrf.encode())


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", []):
        if key == name:
            return bytes(value).decode("latin-1")
    return None


def _cookie_token(scope: Scope) -> str | None:
    raw = _header(scope, b"cookie")
    if raw is None:
        return None
    jar: SimpleCookie = SimpleCookie()
    try:
        jar.load(raw)
    # contend: allow silent-fallback -- an unparsable cookie header carries no token: 403
    except CookieError:
        return None
    morsel = jar.get(COOKIE)
    return morsel.value if morsel is not None else None


class Guard:
    """The ASGI middleware of this module's docstring."""

    def __init__(self, app: ASGIApp, access: Access) -> None:
        self.app = app
        self.access = access

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            if scope["type"] == "lifespan":
                await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [(k, v) for k, v in message.get("headers", []) if k.lower() not in _OURS]
                message["headers"] = [*headers, *HEADERS]
            await send(message)

        refusal = self._refusal(scope)
        if refusal is not None:
            status, text = refusal
            await _plain(send_with_headers, status, text)
            return
        query = dict(parse_qsl(bytes(scope.get("query_string", b"")).decode("latin-1")))
        if "token" in query:
            if not self.access.valid(query["token"]):
                await _plain(send_with_headers, 403, "forbidden: wrong access token")
                return
            # Set the cookie and take the token out of the address bar and the history.
            rest = urlencode([(k, v) for k, v in query.items() if k != "token"])
            location = scope.get("path", "/") + (f"?{rest}" if rest else "")
            cookie = f"{COOKIE}={self.access.token}; HttpOnly; SameSite=Strict; Path=/"
            await send_with_headers(
                {
                    "type": "http.response.start",
                    "status": 303,
                    "headers": [
                        (b"location", location.encode("latin-1", "replace")),
                        (b"set-cookie", cookie.encode()),
                        (b"content-length", b"0"),
                    ],
                }
            )
            await send_with_headers({"type": "http.response.body", "body": b""})
            return
        if not self.access.valid(_cookie_token(scope)):
            await _plain(
                send_with_headers,
                403,
                "forbidden: open the address that `contend serve` printed (it carries the "
                "access token)",
            )
            return
        await self.app(scope, receive, send_with_headers)

    def _refusal(self, scope: Scope) -> tuple[int, str] | None:
        host = _header(scope, b"host")
        if host is None or host.lower() not in self.access.hosts:
            return 421, "misdirected request: this server answers only its own address"
        method = scope.get("method", "GET")
        if method in READ_METHODS:
            return None
        if method != "POST":
            return 405, "method not allowed"
        origin = _header(scope, b"origin")
        if origin is not None and origin not in self.access.origins:
            return 403, "forbidden: cross-origin request"
        site = _header(scope, b"sec-fetch-site")
        if site is not None and site not in ("same-origin", "none"):
            return 403, "forbidden: cross-site request"
        return None


_OURS = frozenset(name for name, _ in HEADERS)


async def _plain(send: Send, status: int, text: str) -> None:
    body = (text + "\n").encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"text/plain; charset=utf-8"),
                (b"content-length", str(len(body)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
