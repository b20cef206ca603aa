"""Shared builders for the web page's tests: a repository with a rich review run (text that
tries to inject markup everywhere a critic, an author or a file name can put it), and the
real server (uvicorn) on an ephemeral loopback port in a thread."""

from __future__ import annotations

import http.client
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from contend.config import load_settings
from contend.review.engine import ReviewResult
from contend.review.state_dir import open_state_dir
from contend.web.app import ServeConfig
from contend.web.app import server as make_server
from contend.web.security import Access
from review_helpers import answer, critic_turn, judge, make_repo, objection, run, write_script

# A file name, a claim, evidence and an answer that would run script if rendered raw.
EVIL_NAME = '"><img src=x onerror=alert(1)>.py'
EVIL_CLAIM = "<script>alert('claim')</script> average() divides by zero"
EVIL_EVIDENCE = "<img src=x onerror=\"alert('evidence')\"> return total(items) / len(items)"
EVIL_DEFENSE = "<a href=\"javascript:alert('defense')\">callers</a> never pass an empty list"
EVIL_CODE = "x = '<script>alert(\"diff\")</script>'\n"


def rich_repo(tmp_path: Path) -> tuple[Path, ReviewResult]:
    """A feature branch reviewed by a scripted critic and proposer: one blocking dispute
    defended and pressed again (contention 2), one minor accepted, one major on a file whose
    name is markup; every text carries an injection attempt."""
    from review_helpers import APP_CHANGED

    repo = make_repo(tmp_path, change={"app.py": APP_CHANGED, EVIL_NAME: EVIL_CODE})
    critic = write_script(
        tmp_path / "critic.json",
        family="fam-critic",
        critic=[
            critic_turn(
                topic="edge cases",
                objections=[
                    objection(claim=EVIL_CLAIM, evidence=EVIL_EVIDENCE),
                    objection(claim="average() loses precision", severity="minor"),
                    objection(
                        path=EVIL_NAME,
                        line=1,
                        claim="a markup string is assigned <b>bold</b>",
                        evidence=EVIL_CODE.strip(),
                    ),
                ],
            ),
            critic_turn(
                judgements=[
                    judge("C1-1", "re_attack", "still divides by zero <svg onload=alert(2)>"),
                    judge("C1-2", "accept"),
                    judge("C1-3", "re_attack", "still there"),
                ]
            ),
        ],
    )
    proposer = write_script(
        tmp_path / "proposer.json",
        family="fam-author",
        proposer=[
            {
                "output": {
                    "answers": [
                        answer("C1-1", "defend", EVIL_DEFENSE, "spec: <iframe src=x>"),
                        answer("C1-2", "concede", "true, minor"),
                        answer("C1-3", "defend", "it is a test fixture"),
                    ]
                }
            },
        ],
    )
    result = run(repo, critics=[critic], proposer=proposer, max_rounds=1)
    return repo, result


@dataclass
class Served:
    base: str
    host: str
    port: int
    access: Access
    config: ServeConfig

    @property
    def start_url(self) -> str:
        return f"{self.base}/?token={self.access.token}"

    @property
    def cookie(self) -> str:
        return f"contend_token={self.access.token}"

    def request(
        self,
        method: str,
        target: str,
        *,
        body: bytes | None = None,
        headers: dict[str, str] | None = None,
        cookie: bool = True,
    ) -> tuple[int, dict[str, str], bytes]:
        """A raw HTTP request (the target is sent byte for byte, unnormalised)."""
        conn = http.client.HTTPConnection(self.host, self.port, timeout=30)
        try:
            conn.putrequest(method, target, skip_host=True, skip_accept_encoding=True)
            sent = {"Host": f"{self.host}:{self.port}"}
            if cookie:
                sent["Cookie"] = self.cookie
            sent.update(headers or {})
            if body is not None:
                sent.setdefault("Content-Type", "application/x-www-form-urlencoded")
                sent["Content-Length"] = str(len(body))
            for name, value in sent.items():
                conn.putheader(name, value)
            conn.endheaders(body)
            response = conn.getresponse()
            data = response.read()
            return response.status, {k.lower(): v for k, v in response.getheaders()}, data
        finally:
            conn.close()


@contextmanager
def serving(repo: Path | None, state_dir: Path | None = None) -> Iterator[Served]:
    """The real app under uvicorn on 127.0.0.1 and an ephemeral port, in a thread."""
    from contend.cli.serve_cmd import bind

    settings = load_settings(repo)
    if state_dir is None:
        assert repo is not None
        state_dir = open_state_dir(repo, settings)
    sock = bind("127.0.0.1", 0)
    port = sock.getsockname()[1]
    access = Access.new("127.0.0.1", port)
    config = ServeConfig(state_dir, repo, settings, access)
    server = make_server(config, timeout_graceful_shutdown=1, lifespan="off")
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the test server did not start")
        time.sleep(0.02)
    try:
        yield Served(f"http://127.0.0.1:{port}", "127.0.0.1", port, access, config)
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()
