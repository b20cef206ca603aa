"""A loopback fake of the GitHub REST endpoints `contend comment --post` uses: list an
issue's comments (paged with a Link header), create one, update one. It records every
request (method, path, Authorization header, body) so tests can check what was sent."""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any
from urllib.parse import parse_qs, urlsplit


@dataclass
class Seen:
    method: str
    path: str
    auth: str
    body: dict[str, Any] | None


@dataclass
class FakeGitHub:
    repo: str = "octo/app"
    per_page: int = 2
    fail_with: int | None = None  # answer every request with this HTTP status
    comments: dict[int, list[dict[str, Any]]] = field(default_factory=dict)
    seen: list[Seen] = field(default_factory=list)
    _next_id: int = 1000

    def __post_init__(self) -> None:
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def add(self, number: int, body: str) -> int:
        self._next_id += 1
        self.comments.setdefault(number, []).append({"id": self._next_id, "body": body})
        return self._next_id

    def __enter__(self) -> FakeGitHub:
        self._thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._server.shutdown()
        self._server.server_close()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def _answer(self, status: int, payload: Any, headers: dict[str, str]) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for name, value in headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)

            def _serve(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                body = json.loads(raw) if raw else None
                parts = urlsplit(self.path)
                fake.seen.append(
                    Seen(self.command, parts.path, self.headers.get("Authorization", ""), body)
                )
                if fake.fail_with is not None:
                    self._answer(fake.fail_with, {"message": "Bad credentials"}, {})
                    return
                prefix = f"/repos/{fake.repo}/issues/"
                if not parts.path.startswith(prefix):
                    self._answer(404, {"message": "Not Found"}, {})
                    return
                rest = parts.path[len(prefix) :].split("/")
                if self.command == "GET" and len(rest) == 2 and rest[1] == "comments":
                    number = int(rest[0])
                    page = int(parse_qs(parts.query).get("page", ["1"])[0])
                    all_ = fake.comments.get(number, [])
                    chunk = all_[(page - 1) * fake.per_page : page * fake.per_page]
                    headers = {}
                    if page * fake.per_page < len(all_):
                        nxt = f"{fake.url}{parts.path}?per_page=100&page={page + 1}"
                        headers["Link"] = f'<{nxt}>; rel="next"'
                    self._answer(200, chunk, headers)
                elif self.command == "POST" and len(rest) == 2 and rest[1] == "comments":
                    assert body is not None
                    new_id = fake.add(int(rest[0]), body["body"])
                    self._answer(201, {"id": new_id, "html_url": f"{fake.url}/c/{new_id}"}, {})
                elif self.command == "PATCH" and rest[0] == "comments" and len(rest) == 2:
                    assert body is not None
                    cid = int(rest[1])
                    for comments in fake.comments.values():
                        for comment in comments:
                            if comment["id"] == cid:
                                comment["body"] = body["body"]
                                self._answer(
                                    200, {"id": cid, "html_url": f"{fake.url}/c/{cid}"}, {}
                                )
                                return
                    self._answer(404, {"message": "Not Found"}, {})
                else:
                    self._answer(404, {"message": "Not Found"}, {})

            do_GET = do_POST = do_PATCH = _serve

            def log_message(self, format: str, *args: Any) -> None:
                return

        return Handler
