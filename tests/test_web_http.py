"""`contend serve` over raw HTTP: access token, CSRF, no change on GET, no file outside the
state directory through any URL, escaping and redaction, decisions through the one code path
(ledger still verifies), bad input, and the command's own refusals."""

from __future__ import annotations

import json
import re
import socket
from pathlib import Path
from urllib.parse import urlencode

import pytest

from contend.cli.main import main
from contend.cli.serve_cmd import bind, is_loopback
from contend.ledger.runs import LEDGER_FILE
from web_helpers import (
    EVIL_CLAIM,
    EVIL_DEFENSE,
    EVIL_EVIDENCE,
    EVIL_NAME,
    Served,
    rich_repo,
    serving,
)

SECRET = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"


def _ledger(served: Served, run_id: str) -> Path:
    return served.config.state_dir / "runs" / run_id / LEDGER_FILE


def _form(served: Served, **fields: str) -> bytes:
    return urlencode({"csrf": served.access.csrf, **fields}).encode()


def _pages(run_id: str) -> list[str]:
    return [
        "/",
        f"/runs/{run_id}",
        f"/runs/{run_id}?fragment=1",
        f"/runs/{run_id}/disputes/C1-1",
        "/stats",
        "/stats?by=family",
        "/experiments",
        "/static/style.css",
        "/static/live.js",
    ]


# --- access ------------------------------------------------------------------------------


def test_no_page_without_the_token_and_the_token_becomes_a_strict_cookie(tmp_path: Path) -> None:
    repo, result = rich_repo(tmp_path)
    with serving(repo) as s:
        for target in [*_pages(result.run_id), f"/runs/{result.run_id}/live"]:
            status, _, body = s.request("GET", target, cookie=False)
            assert status == 403, target
            assert b"alert" not in body and result.run_id.encode() not in body
            status, _, _ = s.request(
                "GET", target, cookie=False, headers={"Cookie": "contend_token=wrong"}
            )
            assert status == 403, target
        status, _, _ = s.request("GET", "/?token=wrong", cookie=False)
        assert status == 403
        # The printed address: a redirect that sets the cookie and drops the token.
        status, headers, _ = s.request(
            "GET", f"/stats?by=topic&token={s.access.token}", cookie=False
        )
        assert status == 303
        assert headers["location"] == "/stats?by=topic"
        cookie = headers["set-cookie"]
        assert cookie.startswith(f"contend_token={s.access.token};")
        assert "HttpOnly" in cookie and "SameSite=Strict" in cookie
        for target in _pages(result.run_id):
            status, headers, _ = s.request("GET", target)
            assert status == 200, target
            csp = headers["content-security-policy"]
            assert "script-src 'self'" in csp and "unsafe-inline" not in csp
            assert "default-src 'none'" in csp and "frame-ancestors 'none'" in csp
            assert headers["x-frame-options"] == "DENY"
        # Another name for this server (DNS rebinding) is not this server.
        status, _, _ = s.request("GET", "/", headers={"Host": "evil.example:80"})
        assert status == 421


# --- state changes ------------------------------------------------------------------------


def test_a_decision_needs_post_the_token_and_the_csrf_token(tmp_path: Path) -> None:
    repo, result = rich_repo(tmp_path)
    with serving(repo) as s:
        ledger = _ledger(s, result.run_id)
        before = ledger.read_bytes()
        target = f"/runs/{result.run_id}/disputes/C1-1/decide"
        good = {"decision": "overrule", "note": "callers filter empty lists"}
        # GET never changes anything: not the decide URL, not a page with the form's fields.
        for page in [*_pages(result.run_id), f"{target}?{urlencode(good)}"]:
            s.request("GET", page)
        assert s.request("GET", target)[0] == 405
        for method in ("PUT", "DELETE", "PATCH"):
            assert s.request(method, target, body=_form(s, **good))[0] == 405
        refusals = [
            s.request("POST", target, body=urlencode(good).encode()),  # no CSRF token
            s.request("POST", target, body=_form(s, **good).replace(b"csrf=", b"csrf=0")),
            s.request("POST", target, body=_form(s, **good), cookie=False),  # no access token
            s.request(
                "POST", target, body=_form(s, **good), headers={"Origin": "http://evil.example"}
            ),
            s.request(
                "POST", target, body=_form(s, **good), headers={"Sec-Fetch-Site": "cross-site"}
            ),
            # A sandboxed frame or a data: page posts with an opaque origin.
            s.request("POST", target, body=_form(s, **good), headers={"Origin": "null"}),
        ]
        assert [r[0] for r in refusals] == [403] * 6
        assert ledger.read_bytes() == before
        # The real thing: appended, never edited; the chain still verifies.
        status, headers, _ = s.request(
            "POST", target, body=_form(s, **good), headers={"Origin": s.base}
        )
        assert status == 303 and headers["location"].startswith(
            f"/runs/{result.run_id}?decided=C1-1"
        )
        after = ledger.read_bytes()
        assert after.startswith(before) and after.count(b"\n") == before.count(b"\n") + 1
        entry = json.loads(after.splitlines()[-1])
        # A person's decision is the transition `contend decide` appends: by "human".
        assert (entry["kind"], entry["data"]["by"]) == ("attack_transition", "human")
        assert entry["data"]["action"] == "overrule"
        assert entry["data"]["text"] == "callers filter empty lists"
        status, _, body = s.request("GET", f"/runs/{result.run_id}?decided=C1-1")
        page = body.decode()
        assert status == 200 and "Decision on" in page and "recorded in the ledger" in page
        # C1-3 is still deadlocked: the run still escalates, and the page says so.
        assert 'id="verdict">escalate<' in page
        assert "callers filter empty lists" in page
    assert main(["ledger", "verify", str(ledger.parent)]) == 0


def test_the_same_rules_as_contend_decide(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    repo, result = rich_repo(tmp_path)
    monkeypatch.chdir(repo)
    with serving(repo) as s:
        ledger = _ledger(s, result.run_id)
        target = f"/runs/{result.run_id}/disputes/C1-3/decide"
        before = ledger.read_bytes()
        # No note, a blank note, no choice: refused, nothing written, the note kept.
        for fields, message in [
            ({"decision": "waive", "note": ""}, "a decision needs a note"),
            ({"decision": "waive", "note": "   \n"}, "a decision needs a note"),
            ({"note": "kept <b>verbatim</b>"}, "choose uphold, overrule or waive"),
            ({"decision": "approve", "note": "x"}, "choose uphold, overrule or waive"),
        ]:
            status, _, body = s.request("POST", target, body=_form(s, **fields))
            assert status == 400 and message in body.decode()
            assert ledger.read_bytes() == before
        _, _, body = s.request("POST", target, body=_form(s, note="kept <b>verbatim</b>"))
        assert "kept &lt;b&gt;verbatim&lt;/b&gt;</textarea>" in body.decode()
        # A resolved dispute (C1-2 was conceded and accepted) and an unknown one.
        for attack in ("C1-2", "C9-9"):
            status, _, body = s.request(
                "POST",
                f"/runs/{result.run_id}/disputes/{attack}/decide",
                body=_form(s, decision="uphold", note="n"),
            )
            assert status == 400, attack
            assert ledger.read_bytes() == before
        # The CLI and the page write the same event through the same path.
        assert main(["decide", "C1-3", "--waive", "--note", "a fixture"]) == 0
        cli_entry = json.loads(ledger.read_bytes().splitlines()[-1])
        status, _, body = s.request(
            "POST",
            f"/runs/{result.run_id}/disputes/C1-1/decide",
            body=_form(s, decision="waive", note="accepted risk"),
        )
        assert status == 303
        web_entry = json.loads(ledger.read_bytes().splitlines()[-1])
        assert cli_entry["kind"] == web_entry["kind"] == "attack_transition"
        assert set(cli_entry["data"]) == set(web_entry["data"])
        assert (web_entry["data"]["by"], web_entry["data"]["action"]) == ("human", "waive")
        # Both deadlocks decided: the gate opens, and the page shows it at once.
        _, _, body = s.request("GET", f"/runs/{result.run_id}")
        assert 'id="verdict">pass<' in body.decode()
    capsys.readouterr()
    assert main(["gate", result.run_id]) == 0
    assert main(["ledger", "verify", result.run_id]) == 0


# --- nothing outside the state directory --------------------------------------------------


def test_no_file_outside_the_state_directory_through_any_url(tmp_path: Path) -> None:
    repo, result = rich_repo(tmp_path)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("TOP-SECRET-OUTSIDE\n")
    with serving(repo) as s:
        runs = s.config.state_dir / "runs"
        # A run directory that is a link out, and a run whose ledger is a link out.
        (runs / "20990101-000000-linked").symlink_to(runs / result.run_id)
        fake = runs / "20990101-000000-ledger"
        fake.mkdir()
        (fake / LEDGER_FILE).symlink_to(outside / "secret.txt")
        # An experiment report whose figure is a link out of the report directory.
        report = s.config.state_dir / "experiments" / "suite" / "report"
        report.mkdir(parents=True)
        (report / "fig.png").symlink_to(outside / "secret.txt")
        analysis = {"schema": "contend.experiment-report/v1", "figures": [{"name": "fig"}]}
        (report / "analysis.json").write_text(json.dumps(analysis))
        targets = [
            "/static/../../../../outside/secret.txt",
            "/static/..%2f..%2f..%2f..%2foutside%2fsecret.txt",
            "/static/%2e%2e/%2e%2e/%2e%2e/outside/secret.txt",
            "/static/%252e%252e%252f%252e%252e%252foutside%252fsecret.txt",
            "/static/..%5c..%5coutside%5csecret.txt",
            "/runs/..%2f..%2f..%2foutside",
            "/runs/%2e%2e",
            "/runs/%252e%252e%252f..%252foutside",
            f"/runs/{result.run_id}%2f..%2f..%2f..%2f..%2foutside%2fsecret.txt",
            "/runs/20990101-000000-linked",
            "/runs/20990101-000000-ledger",
            "/runs/20990101-000000-ledger/live",
            "/experiments/..%2f..%2f..%2foutside",
            "/experiments/suite/figures/fig.png",
            "/experiments/suite/figures/..%2f..%2f..%2f..%2foutside%2fsecret.txt",
            "/experiments/suite/figures/%252e%252e%252fanalysis.json",
            "/runs/20990101-000000-linked/disputes/C1-1",
        ]
        for target in targets:
            status, _, body = s.request("GET", target)
            assert status in (400, 404), (target, status)
            assert b"TOP-SECRET-OUTSIDE" not in body, target
            assert b'"kind"' not in body, target  # no ledger bytes either
        status, _, body = s.request(
            "POST",
            "/runs/20990101-000000-linked/disputes/C1-1/decide",
            body=_form(s, decision="uphold", note="n"),
        )
        assert status in (400, 404) and b"TOP-SECRET" not in body


# --- escaping, redaction, tampering -------------------------------------------------------


def test_agent_diff_and_file_name_text_is_escaped_and_secrets_are_redacted(
    tmp_path: Path,
) -> None:
    repo, result = rich_repo(tmp_path)
    # A secret that reaches the page only through git (the code excerpt), not the ledger.
    (repo / "app.py").write_text((repo / "app.py").read_text() + f'TOKEN = "{SECRET}"\n')
    with serving(repo) as s:
        pages = [s.request("GET", t)[2].decode() for t in _pages(result.run_id)[:6]]
    run_page = pages[1]
    for raw in (EVIL_CLAIM, EVIL_EVIDENCE, EVIL_DEFENSE, EVIL_NAME, "<svg onload=alert(2)>"):
        assert raw not in run_page
    assert "&lt;script&gt;alert(&#39;claim&#39;)&lt;/script&gt;" in run_page
    assert "&#34;&gt;&lt;img src=x onerror=alert(1)&gt;.py" in run_page
    for page in pages:
        assert not re.search(r"<(script|img|svg|iframe)\b(?! *src=\"/static/live\.js\")", page)
        assert "javascript:" not in page.replace("&#34;javascript:", "")
        assert SECRET not in page


def test_a_tampered_ledger_is_named_and_refused_never_rendered(tmp_path: Path) -> None:
    repo, result = rich_repo(tmp_path)
    with serving(repo) as s:
        ledger = _ledger(s, result.run_id)
        raw = ledger.read_bytes()
        ledger.write_bytes(raw.replace(b'"severity":"major"', b'"severity":"minor"', 1))
        tampered = ledger.read_bytes()
        status, _, body = s.request("GET", f"/runs/{result.run_id}")
        page = body.decode()
        assert status == 409 and "Ledger not intact" in page and result.run_id in page
        assert "divides by zero" not in page and "<form" not in page
        status, _, body = s.request("GET", "/")
        assert status == 200 and 'id="problems"' in body.decode()
        status, _, body = s.request(
            "POST",
            f"/runs/{result.run_id}/disputes/C1-1/decide",
            body=_form(s, decision="overrule", note="n"),
        )
        assert status == 409 and ledger.read_bytes() == tampered


def test_unknown_run_and_dispute_are_clear_errors(tmp_path: Path) -> None:
    repo, result = rich_repo(tmp_path)
    with serving(repo) as s:
        for target, message in [
            ("/runs/20260101-000000-abcdef", "no run"),
            ("/runs/not a run", "is not a run id"),
            (f"/runs/{result.run_id}/disputes/C9-9", "no dispute"),
            ("/stats?by=colour", "by must be one of"),
            ("/nowhere", "no such page"),
        ]:
            status, _, body = s.request("GET", target.replace(" ", "%20"))
            assert status in (400, 404) and message in body.decode(), target
        status, _, _ = s.request(
            "POST", f"/runs/{result.run_id}/disputes/C1-1/decide", body=b"note=" + b"x" * 70_000
        )
        assert status == 413


# --- the command --------------------------------------------------------------------------


def test_serve_refuses_a_non_loopback_host_without_the_flag(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    for host in ("0.0.0.0", "192.0.2.1", "::", "example.com"):
        assert main(["serve", "--host", host, "--port", "0"]) == 2
        err = capsys.readouterr().err
        assert "not a loopback address" in err and "--i-know-this-is-exposed" in err
        assert len(err.splitlines()) == 1
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost")
    assert not is_loopback("0.0.0.0") and not is_loopback("10.0.0.1")


def test_a_second_serve_on_the_same_port_is_a_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    repo, _ = rich_repo(tmp_path)
    monkeypatch.chdir(repo)
    first = bind("127.0.0.1", 0)
    try:
        port = first.getsockname()[1]
        assert main(["serve", "--port", str(port)]) == 2
        err = capsys.readouterr().err
        assert f"port {port} on 127.0.0.1 is already in use" in err and len(err.splitlines()) == 1
    finally:
        first.close()
    # The default listener is loopback only.
    sock = bind("127.0.0.1", 0)
    try:
        assert sock.family == socket.AF_INET and sock.getsockname()[0] == "127.0.0.1"
    finally:
        sock.close()
