"""The change under review does not control its reviewer (issue 9), through the real CLI on
real git repositories: configuration committed in the change is not obeyed and is itself a
finding; a code file that could not be reviewed never gives `pass`; snapshot and rescue
refs do not outlive their run and never hold ignored files."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from contend.cli.main import main
from contend.config import Settings
from contend.critics.static import review_config
from review_helpers import git, make_repo

# These tests are about the trust boundary (the base's config governs the review), not about which
# static findings may block: the change they plant as the one that fails (a broad `except Exception:
# return 0`) is a `swallowing-handler`, which the default earned policy lists as minor. They let
# static findings block at each rule's own severity, as a user can (`static.blocking = "rule"`).
pytestmark = pytest.mark.usefixtures("static_blocking_rule")


BASE = """\
def parse_amount(raw):
    if not isinstance(raw, str):
        raise TypeError("amount must be text")
    return int(raw)
"""
FALLBACK = BASE.replace(
    "    return int(raw)\n",
    "    try:\n        return int(raw)\n    except Exception:\n        return 0\n",
)
HARMLESS = BASE + "\n\ndef double(x):\n    return 2 * x\n"


def review_json(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict[str, Any], str]:
    code = main(["review", "--format", "json", "-q", *args])
    captured = capsys.readouterr()
    return code, json.loads(captured.out), captured.err


def topics(data: dict[str, Any]) -> set[str]:
    return {d["topic"] for d in data["disputes"]}


def config_findings(data: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        d
        for d in [*data["disputes"], *data["resolved"]]
        if d["rule"] in (review_config.RULE_WEAKENED, review_config.RULE_CHANGED)
    ]


# --- configuration committed in the change ---------------------------------------------------


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("contend.toml", "trivial_diff_lines = 100000\n"),
        ("contend.toml", 'critics = ["static:test-weakening"]\n'),
        ("contend.toml", "max_file_bytes = 1\n"),
        ("pyproject.toml", '[project]\nname = "x"\n[tool.contend]\ncritics = ["static:secrets"]\n'),
    ],
)
def test_config_in_the_change_is_not_obeyed_and_is_a_major_finding(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    name: str,
    text: str,
) -> None:
    repo = make_repo(tmp_path, base={"app.py": BASE}, change={"app.py": FALLBACK, name: text})
    monkeypatch.chdir(repo)
    code, data, _ = review_json(capsys)
    # The review is the one the base configures: the planted fallback still fails it.
    assert code == 1 and data["verdict"] == "fail"
    assert "silent-fallback" in topics(data)
    assert data["skipped"] == []
    [finding] = config_findings(data)
    assert finding["rule"] == review_config.RULE_WEAKENED
    assert finding["severity"] == "major" and finding["topic"] == "security"
    assert finding["location"]["path"] == name
    assert finding["status"] == "open"


def test_a_change_that_does_not_weaken_the_config_is_a_minor_finding(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = make_repo(
        tmp_path,
        base={"app.py": BASE, "contend.toml": "max_rounds = 3\n"},
        change={"app.py": HARMLESS, "contend.toml": 'max_rounds = 5\nproposer = "human"\n'},
    )
    monkeypatch.chdir(repo)
    code, data, _ = review_json(capsys)
    [finding] = config_findings(data)
    assert finding["rule"] == review_config.RULE_CHANGED and finding["severity"] == "minor"
    assert "max_rounds" in finding["claim"] and "proposer" in finding["claim"]
    assert code == 0 and data["verdict"] == "conditional_pass"


def test_the_base_revisions_config_governs_the_review(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Committed before the change: it applies. The change relaxes it: not applied.
    repo = make_repo(
        tmp_path,
        base={"app.py": BASE, "contend.toml": 'critics = ["static:silent-fallback"]\n'},
        change={"app.py": FALLBACK, "contend.toml": 'critics = ["static:secrets"]\n'},
    )
    monkeypatch.chdir(repo)
    code, data, _ = review_json(capsys)
    assert code == 1 and topics(data) == {"silent-fallback"}
    assert [t["critic"] for t in data["threads"]] == ["static:silent-fallback"]
    # The config finding is a `security` rule; `security` is not selected at the base, so it
    # is not raised — but contend still says the edit was not applied.
    assert config_findings(data) == []
    assert main(["review", "-q"]) == 1
    assert "contend.toml" in capsys.readouterr().err


def test_review_config_defaults_match_the_settings_model() -> None:
    defaults = Settings()
    for key, value in review_config.DEFAULTS.items():
        assert getattr(defaults, key) == value, key


def test_weakenings_name_each_weaker_setting() -> None:
    old = {"critics": ["static", "claude"], "gates": ["pytest -q"], "limits": {}}
    new = {
        "critics": ["static:secrets", "claude"],
        "gates": [],
        "max_rounds": 1,
        "limits": {"max_run_cost": 0.01},
        "base": "HEAD",
    }
    found = review_config.weakenings(old, new)
    assert any(f.startswith("critics no longer run: static:boundary-typing") for f in found)
    assert "gates removed: pytest -q" in found
    assert "max_rounds 3 → 1" in found
    assert "limits.max_run_cost none → 0.01" in found
    assert "base none → 'HEAD'" in found
    # The other way round only the base differs: a base is never silently moved.
    assert review_config.weakenings(new, old) == ["base 'HEAD' → none"]


def change_of(path: str, old: str | None, new: str | None, old_path: str | None = None) -> Any:
    from contend.critics.static.base import FileChange

    lines = frozenset(range(1, len((new or "").splitlines()) + 1))
    status = "added" if old is None else "deleted" if new is None else "modified"
    return FileChange(
        path=path,
        old_path=old_path,
        status="renamed" if old_path else status,
        old_text=old,
        new_text=new,
        added_lines=lines,
        removed_lines=frozenset(),
    )


def rules_of(*changes: Any) -> list[tuple[str, str]]:
    return [(f.rule, f.path) for f in review_config.findings_of(changes)]


def test_the_static_blocking_default_matches_the_settings_model() -> None:
    assert Settings().static.blocking == review_config.DEFAULT_STATIC_BLOCKING


def test_static_blocking_from_rule_to_earned_is_a_weakening_and_back_is_not() -> None:
    rule, earned = {"static": {"blocking": "rule"}}, {"static": {"blocking": "earned"}}
    assert review_config.weakenings(rule, earned) == ["static.blocking 'rule' → 'earned'"]
    assert review_config.weakenings(earned, rule) == []
    assert review_config.weakenings(rule, rule) == []


def test_removing_a_rule_setting_falls_back_to_the_earned_default_a_weakening() -> None:
    assert Settings().static.blocking == "earned"
    rule = {"max_rounds": 3, "static": {"blocking": "rule"}}
    expected = ["static.blocking 'rule' → 'earned'"]
    assert review_config.weakenings(rule, {"max_rounds": 3}) == expected
    assert review_config.weakenings(rule, {"max_rounds": 3, "static": {}}) == expected
    assert review_config.weakenings({}, {"static": {"blocking": "earned"}}) == []


@pytest.mark.parametrize(
    ("name", "old", "new"),
    [
        ("contend.toml", '[static]\nblocking = "rule"\n', '[static]\nblocking = "earned"\n'),
        ("contend.toml", 'max_rounds = 3\n[static]\nblocking = "rule"\n', "max_rounds = 3\n"),
        (
            "pyproject.toml",
            '[project]\nname = "x"\n[tool.contend.static]\nblocking = "rule"\n',
            '[project]\nname = "x"\n[tool.contend.static]\nblocking = "earned"\n',
        ),
    ],
)
def test_a_change_that_lets_static_findings_block_less_is_a_major_finding(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    name: str,
    old: str,
    new: str,
) -> None:
    repo = make_repo(
        tmp_path, base={"app.py": BASE, name: old}, change={"app.py": HARMLESS, name: new}
    )
    monkeypatch.chdir(repo)
    code, data, _ = review_json(capsys)
    [finding] = config_findings(data)
    assert finding["rule"] == review_config.RULE_WEAKENED and finding["severity"] == "major"
    assert "static.blocking 'rule' → 'earned'" in finding["claim"]
    assert code == 1 and data["verdict"] == "fail"


def test_review_config_rule_on_deletions_renames_and_unrelated_edits() -> None:
    gated = 'gates = ["pytest -q"]\n'
    assert rules_of(change_of("contend.toml", gated, None)) == [
        (review_config.RULE_WEAKENED, "contend.toml")
    ]
    assert rules_of(change_of("conf/old.toml", gated, gated, old_path="contend.toml")) == [
        (review_config.RULE_WEAKENED, "conf/old.toml")
    ]
    assert rules_of(change_of("contend.toml", "max_rounds = 3\n", "max_rounds = [\n")) == [
        (review_config.RULE_CHANGED, "contend.toml")
    ]
    unrelated = '[project]\nname = "a"\n[tool.contend]\nmax_rounds = 4\n'
    assert rules_of(change_of("pyproject.toml", unrelated, unrelated.replace('"a"', '"b"'))) == []
    assert rules_of(change_of("docs/contend.toml", None, "trivial_diff_lines = 9\n")) == []


def test_deleting_the_project_config_in_the_change_is_a_finding(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = make_repo(
        tmp_path,
        base={"app.py": BASE, "contend.toml": "max_file_bytes = 2000000\n"},
        change={"app.py": HARMLESS, "contend.toml": None},
    )
    monkeypatch.chdir(repo)
    code, data, err = review_json(capsys)
    [finding] = config_findings(data)
    assert finding["rule"] == review_config.RULE_WEAKENED
    assert "max_file_bytes 2000000 → 1000000" in finding["claim"]
    assert code == 1 and "not applied" in err


# --- a code file that could not be reviewed never gives pass ----------------------------------


def test_latin1_python_with_a_coding_declaration_is_reviewed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    source = "# -*- coding: latin-1 -*-\n# café\n" + FALLBACK
    repo = make_repo(tmp_path, base={"app.py": BASE}, change={}, commit_change=False)
    (repo / "legacy.py").write_bytes(source.encode("latin-1"))
    monkeypatch.chdir(repo)
    code, data, _ = review_json(capsys, "--base", "main")
    assert data["skipped"] == []
    assert code == 1 and "silent-fallback" in topics(data)
    [dispute] = [d for d in data["disputes"] if d["topic"] == "silent-fallback"]
    assert dispute["location"]["path"] == "legacy.py"


def test_python_with_a_non_utf8_name_is_reviewed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = make_repo(tmp_path, base={"app.py": BASE}, change={}, commit_change=False)
    (repo / os.fsdecode(b"caf\xe9.py")).write_text(FALLBACK)
    monkeypatch.chdir(repo)
    code, data, _ = review_json(capsys, "--base", "main")
    assert data["skipped"] == []
    assert code == 1
    [dispute] = [d for d in data["disputes"] if d["topic"] == "silent-fallback"]
    assert dispute["location"]["path"] == "caf\\xe9.py"


@pytest.mark.parametrize(
    ("name", "content"),
    [
        ("padded.py", FALLBACK.replace("return 0", "return None") + "#" * 1_100_000 + "\n"),
        ("padded.js", "function f(){ try { return g() } catch (e) { return 0 } }\n" * 20_000),
        ("broken.py", "def parse(:\n    try:\n        pass\n    except Exception:\n        pass\n"),
    ],
    ids=["python-past-1MB", "js-past-1MB", "python-syntax-error"],
)
def test_a_skipped_code_file_escalates_instead_of_passing(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    name: str,
    content: str,
) -> None:
    repo = make_repo(tmp_path, base={"app.py": BASE}, change={name: content})
    monkeypatch.chdir(repo)
    code, data, _ = review_json(capsys)
    assert [s["path"] for s in data["skipped"]] == [name]
    assert data["verdict"] == "escalate" and code == 3
    assert any("could not be reviewed" in r and name in r for r in data["reasons"])


def test_a_skipped_asset_or_lockfile_does_not_block_pass(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = make_repo(
        tmp_path,
        base={"app.py": BASE},
        change={"app.py": HARMLESS, "package-lock.json": '{"a": "' + "x" * 1_100_000 + '"}\n'},
    )
    (repo / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\0\0" + bytes(range(256)))
    git(repo, "add", "logo.png")
    git(repo, "commit", "-q", "-m", "logo")
    monkeypatch.chdir(repo)
    code, data, _ = review_json(capsys)
    assert {s["path"] for s in data["skipped"]} == {"package-lock.json", "logo.png"}
    assert code == 0 and data["verdict"] == "pass"


# --- snapshot and rescue refs ----------------------------------------------------------------


def contend_refs(repo: Path) -> list[str]:
    out = git(repo, "for-each-ref", "--format=%(refname)", "refs/contend/")
    return [line for line in out.splitlines() if line]


def all_objects(repo: Path) -> bytes:
    return subprocess.run(
        ["git", "cat-file", "--batch-all-objects", "--batch"],
        cwd=repo,
        capture_output=True,
        check=True,
    ).stdout


def test_snapshot_refs_end_with_their_run_and_ignored_files_never_enter_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = make_repo(
        tmp_path,
        base={"app.py": BASE, ".gitignore": ".env.local\n"},
        change={"app.py": FALLBACK},
        commit_change=False,
    )
    (repo / ".env.local").write_text("API_TOKEN=planted-secret-4f7a9c\n")
    (repo / "notes.txt").write_text("untracked, not ignored: planted-untracked-b81e\n")
    monkeypatch.chdir(repo)
    # A gate makes the review snapshot the working tree.
    code, data, _ = review_json(capsys, "--gate", "test -f app.py")
    assert code == 1 and data["gates"][0]["ok"] is True
    assert contend_refs(repo) == []
    git(repo, "gc", "-q", "--prune=now")
    objects = all_objects(repo)
    assert b"planted-secret-4f7a9c" not in objects
    assert b"planted-untracked-b81e" not in objects
    assert (repo / ".env.local").read_text() == "API_TOKEN=planted-secret-4f7a9c\n"
