"""The `security` topic: bandit on changed Python files, findings only on added lines."""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType, SimpleNamespace
from typing import Any

import pytest

from contend.critics.static import security
from contend.critics.static.base import FileChange, Finding, Skipped, Topic
from contend.critics.static.runner import run_static
from contend.critics.static.security import CRITIC, severity_of
from contend.critics.static.testing import change_from_texts
from contend.errors import ContendError
from contend.protocol.model import Severity

HEADER = "".join(
    f"import {name}\n" for name in ("hashlib", "pickle", "ssl", "subprocess", "requests", "yaml")
)
SIGNATURE = "\n\ndef handler(cmd, expr, data, url, cur, name, secret):\n"
# The risky line goes right after the signature: line 10 of the new text.
RISKY_LINE = 10


def module(body: list[str], tail: str = "    return None\n") -> str:
    return HEADER + SIGNATURE + "".join(f"    {line}\n" for line in body) + tail


def check(*changes: FileChange) -> tuple[list[Finding], list[Skipped]]:
    results = list(CRITIC.check(list(changes)))
    findings = [r for r in results if isinstance(r, Finding)]
    skipped = [r for r in results if isinstance(r, Skipped)]
    assert len(findings) + len(skipped) == len(results)
    return findings, skipped


RULES = [
    ("bandit-B602", "subprocess.run(cmd, shell=True)", Severity.CRITICAL),
    ("bandit-B602", 'subprocess.run("ls -l", shell=True)', Severity.MINOR),
    ("bandit-B307", "eval(expr)", Severity.CRITICAL),
    ("bandit-B102", "exec(expr)", Severity.CRITICAL),
    ("bandit-B506", "yaml.load(data)", Severity.CRITICAL),
    ("bandit-B301", "pickle.loads(data)", Severity.CRITICAL),
    ("bandit-B324", "hashlib.md5(secret).hexdigest()", Severity.MAJOR),
    ("bandit-B324", "hashlib.sha1(secret).hexdigest()", Severity.MAJOR),
    # bandit is only MEDIUM-sure of string-built SQL (it cannot see where `name` comes
    # from): reported, but a blocking finding must be one bandit is sure of.
    (
        "bandit-B608",
        "cur.execute(\"SELECT * FROM users WHERE name = '%s'\" % name)",
        Severity.MINOR,
    ),
    ("bandit-B608", 'cur.execute(f"DELETE FROM users WHERE name = {name}")', Severity.MINOR),
    ("bandit-B501", "requests.get(url, verify=False, timeout=5)", Severity.CRITICAL),
    ("bandit-B323", "ssl._create_unverified_context()", Severity.CRITICAL),
]


@pytest.mark.parametrize(("rule", "code", "severity"), RULES)
def test_rule_reported_on_an_added_line(rule: str, code: str, severity: Severity) -> None:
    change = change_from_texts("app/handlers.py", module([]), module([code]))
    findings, skipped = check(change)
    assert skipped == []
    assert [(f.rule, f.start_line, f.end_line) for f in findings] == [
        (rule, RISKY_LINE, RISKY_LINE)
    ]
    finding = findings[0]
    assert finding.topic is Topic.SECURITY
    assert finding.severity is severity
    assert finding.path == "app/handlers.py"
    assert finding.evidence == f"    {code}"
    assert rule.removeprefix("bandit-") in finding.claim
    assert finding.ways_out[0].startswith("fix it: https://")
    assert "contend: allow security --" in finding.ways_out[1]


@pytest.mark.parametrize(("rule", "code", "severity"), RULES)
def test_rule_not_reported_on_an_unchanged_line(rule: str, code: str, severity: Severity) -> None:
    old = module([code])
    new = module([code], tail="    return 1\n")
    change = change_from_texts("app/handlers.py", old, new)
    assert RISKY_LINE not in change.added_lines
    findings, skipped = check(change)
    assert (findings, skipped) == ([], [])


def test_weak_hash_not_for_security_is_not_reported() -> None:
    new = module(["hashlib.md5(data, usedforsecurity=False).hexdigest()"])
    assert check(change_from_texts("app/cache.py", module([]), new)) == ([], [])


def test_a_changed_argument_line_of_a_multiline_call_is_reported_over_the_whole_call() -> None:
    old = module(["subprocess.run(", "    cmd,", "    shell=True,", ")"])
    new = module(["subprocess.run(", "    cmd + ' ' + name,", "    shell=True,", ")"])
    findings, _ = check(change_from_texts("app/run.py", old, new))
    assert [(f.rule, f.start_line, f.end_line) for f in findings] == [
        ("bandit-B602", RISKY_LINE, RISKY_LINE + 3)
    ]
    assert findings[0].evidence.splitlines()[1] == "        cmd + ' ' + name,"


def test_nosec_does_not_hide_an_added_finding() -> None:
    new = module(["eval(expr)  # nosec"])
    findings, _ = check(change_from_texts("app/x.py", module([]), new))
    assert [f.rule for f in findings] == ["bandit-B307"]


@pytest.mark.parametrize("code", ["assert data", "import subprocess as sp", "sp = pickle"])
def test_excluded_bandit_tests_are_not_reported(code: str) -> None:
    assert check(change_from_texts("app/x.py", module([]), module([code]))) == ([], [])


def test_new_file_is_scanned_whole() -> None:
    findings, _ = check(change_from_texts("pkg/new.py", None, module(["eval(expr)"])))
    assert [(f.rule, f.start_line) for f in findings] == [("bandit-B307", RISKY_LINE)]


def test_invalid_escape_in_scanned_code_is_still_scanned_under_strict_warnings() -> None:
    # pytest runs with warnings as errors; the scanned code's own SyntaxWarning must not
    # turn into a skipped file.
    new = module(['pattern = "\\d+"', "eval(expr)"])
    findings, skipped = check(change_from_texts("app/x.py", module([]), new))
    assert skipped == []
    assert [(f.rule, f.start_line) for f in findings] == [("bandit-B307", RISKY_LINE + 1)]


def test_syntax_error_becomes_skipped_and_other_files_are_still_checked() -> None:
    broken = change_from_texts("app/broken.py", "x = 1\n", "def f(:\n    eval(x)\n")
    good = change_from_texts("app/good.py", module([]), module(["eval(expr)"]))
    findings, skipped = check(broken, good)
    assert skipped == [
        Skipped("app/broken.py", "not checked for security: syntax error", Topic.SECURITY)
    ]
    assert [(f.path, f.rule) for f in findings] == [("app/good.py", "bandit-B307")]


def test_nul_byte_becomes_skipped() -> None:
    findings, skipped = check(change_from_texts("app/nul.py", "x = 1\n", "x = 1\x00\n"))
    assert findings == []
    assert [(s.path, s.topic) for s in skipped] == [("app/nul.py", Topic.SECURITY)]


def test_path_outside_the_repository_becomes_skipped() -> None:
    findings, skipped = check(change_from_texts("../evil.py", None, "eval(x)\n"))
    assert findings == []
    assert skipped == [
        Skipped("../evil.py", "not checked for security: unsafe path", Topic.SECURITY)
    ]


def test_non_python_deleted_and_removal_only_changes_yield_nothing() -> None:
    js = change_from_texts("web/app.js", None, "eval(x)\n")
    deleted = change_from_texts("app/gone.py", "eval(x)\n", None)
    removal = change_from_texts("app/less.py", "eval(x)\nexec(y)\n", "eval(x)\n")
    assert removal.added_lines == frozenset()
    assert check(js, deleted, removal) == ([], [])


def test_bandit_runs_once_for_all_files(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[list[str]] = []
    real = security._run_bandit

    def spy(fnames: list[str]) -> Any:
        calls.append(fnames)
        return real(fnames)

    monkeypatch.setattr(security, "_run_bandit", spy)
    changes = [
        change_from_texts(f"pkg/m{i}.py", module([]), module(["eval(expr)"])) for i in range(4)
    ]
    findings, _ = check(*changes)
    # One run over the new sides, one over the old sides of the files with a hit (to tell a
    # hit the change introduced from one it only touched).
    assert [len(c) for c in calls] == [4, 4]
    assert sorted(f.path for f in findings) == [f"pkg/m{i}.py" for i in range(4)]


def test_no_second_run_when_nothing_is_hit(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[list[str]] = []
    real = security._run_bandit

    def spy(fnames: list[str]) -> Any:
        calls.append(fnames)
        return real(fnames)

    monkeypatch.setattr(security, "_run_bandit", spy)
    assert check(change_from_texts("pkg/m.py", module([]), module(["x = 1"]))) == ([], [])
    assert [len(c) for c in calls] == [1]


@pytest.mark.parametrize(
    ("old", "new"),
    [
        # pyupgrade: %-format to f-string inside the call that was flagged before
        ('subprocess.run("ls %s" % cmd, shell=True)', 'subprocess.run(f"ls {cmd}", shell=True)'),
        # u'' prefixes dropped, quotes changed
        ("eval(u'1 + ' + expr)", 'eval("1 + " + expr)'),
        # reformatted over several lines
        ("yaml.load(data)", "yaml.load(\n        data\n    )"),
    ],
)
def test_a_hit_the_old_version_already_had_is_not_reported(old: str, new: str) -> None:
    change = change_from_texts("app/sweep.py", module([old]), module([new]))
    assert RISKY_LINE in change.added_lines
    assert check(change) == ([], [])


def test_a_hit_moved_into_another_function_is_not_reported() -> None:
    old = module(["eval(expr)"]) + "\n\ndef other(expr):\n    return expr\n"
    new = module([]) + "\n\ndef other(expr):\n    return eval(expr)\n"
    assert check(change_from_texts("app/x.py", old, new)) == ([], [])


def test_a_hit_over_other_names_is_reported() -> None:
    old = module(["eval(expr)"])
    new = module(["eval(data)"])
    findings, _ = check(change_from_texts("app/x.py", old, new))
    assert [f.rule for f in findings] == ["bandit-B307"]


def test_a_second_hit_added_beside_an_old_one_is_reported() -> None:
    old = module(["eval(expr)"])
    new = module(["eval(expr)", "exec(data)"])
    findings, _ = check(change_from_texts("app/x.py", old, new))
    assert [(f.rule, f.start_line) for f in findings] == [("bandit-B102", RISKY_LINE + 1)]


def test_a_duplicated_dangerous_line_is_reported_once() -> None:
    findings, _ = check(
        change_from_texts("app/x.py", module(["eval(expr)"]), module(["eval(expr)", "eval(expr)"]))
    )
    assert [(f.rule, f.start_line) for f in findings] == [("bandit-B307", RISKY_LINE + 1)]


def _fake_bandit(manager_factory: Callable[..., Any]) -> tuple[ModuleType, ...]:
    config = ModuleType("config")
    config.BanditConfig = lambda: object()  # type: ignore[attr-defined]
    manager = ModuleType("manager")
    manager.BanditManager = manager_factory  # type: ignore[attr-defined]
    return config, manager, ModuleType("docs_utils")


def test_bandit_crash_raises_contend_error(monkeypatch: pytest.MonkeyPatch) -> None:
    def crash(*args: object, **kwargs: object) -> object:
        raise RuntimeError("plugin table corrupt")

    monkeypatch.setattr(security, "_bandit", lambda: _fake_bandit(crash))
    change = change_from_texts("app/x.py", module([]), module(["eval(expr)"]))
    with pytest.raises(ContendError, match="bandit failed: RuntimeError: plugin table corrupt"):
        check(change)


def test_bandit_silently_dropping_a_file_raises(monkeypatch: pytest.MonkeyPatch) -> None:
    lazy = SimpleNamespace(
        discover_files=lambda names: None,
        run_tests=lambda: None,
        get_issue_list=lambda: [],
        get_skipped=lambda: [],
        files_list=[],
    )
    monkeypatch.setattr(security, "_bandit", lambda: _fake_bandit(lambda *a, **k: lazy))
    change = change_from_texts("app/x.py", module([]), module(["eval(expr)"]))
    with pytest.raises(ContendError, match="neither scanned nor skipped"):
        check(change)


@pytest.mark.parametrize(
    ("test_id", "bandit_severity", "confidence", "expected"),
    [
        ("B608", "MEDIUM", "MEDIUM", Severity.MINOR),
        ("B608", "HIGH", "HIGH", Severity.CRITICAL),
        ("B608", "MEDIUM", "LOW", Severity.MINOR),
        ("B324", "HIGH", "HIGH", Severity.MAJOR),
        ("B113", "MEDIUM", "LOW", Severity.MINOR),
        ("B602", "LOW", "HIGH", Severity.MINOR),
        ("B104", "MEDIUM", "MEDIUM", Severity.MINOR),
        ("B310", "MEDIUM", "HIGH", Severity.MINOR),
    ],
)
def test_severity_mapping(
    test_id: str, bandit_severity: str, confidence: str, expected: Severity
) -> None:
    assert severity_of(test_id, bandit_severity, confidence) is expected


def test_runner_selects_security_and_applies_a_waiver() -> None:
    new = module(["eval(expr)  # contend: allow security -- expr is a constant from config"])
    result = run_static([change_from_texts("app/x.py", module([]), new)], "static:security")
    assert [(f.rule, f.waived, f.waiver_reason) for f in result.findings] == [
        ("bandit-B307", True, "expr is a constant from config")
    ]
    assert CRITIC.languages == frozenset({"python"})


def test_bidi_control_character_on_an_added_line_is_reported_escaped() -> None:
    trojan = 'if access != "none\u202e\u2066":  # admin check \u2069\u2066'
    findings, _ = check(change_from_texts("app/auth.py", "x = 1\n", f"x = 1\n{trojan}\n    pass\n"))
    assert [(f.rule, f.severity, f.start_line) for f in findings] == [
        ("bidi-control-character", Severity.MAJOR, 2)
    ]
    assert "U+202E, U+2066, U+2069" in findings[0].claim
    assert findings[0].evidence == (
        'if access != "none\\u202e\\u2066":  # admin check \\u2069\\u2066'
    )


def test_bidi_control_character_on_an_unchanged_line_is_not_reported() -> None:
    old = 'label = "\u202eabc"\n'
    assert check(change_from_texts("app/ui.py", old, old + "x = 2\n")) == ([], [])


def test_focus_cuts_untouched_functions_and_keeps_line_numbers() -> None:
    text = (
        "import os\n"  # 1
        "\n"  # 2
        "def untouched():\n"  # 3
        "    return os.system(cmd)\n"  # 4
        "\n"  # 5
        "class Box:\n"  # 6
        "    size = 3\n"  # 7
        "    @property\n"  # 8
        "    def a(self):\n"  # 9
        "        return 1\n"  # 10
        "    def b(self):\n"  # 11
        "        return eval(self.expr)\n"  # 12
    )
    focused = security.focus(text, frozenset({12}))
    assert focused.splitlines() == [
        "import os",
        "",
        "pass",
        "",
        "",
        "class Box:",
        "    size = 3",
        "    pass",
        "",
        "",
        "    def b(self):",
        "        return eval(self.expr)",
    ]
    assert security.focus("def f(:\n", frozenset({1})) == "def f(:\n"


def test_bandit_missing_raises_contend_error(monkeypatch: pytest.MonkeyPatch) -> None:
    def missing() -> tuple[ModuleType, ...]:
        raise ImportError("No module named 'bandit'")

    monkeypatch.setattr(security, "_bandit", missing)
    change = change_from_texts("app/x.py", module([]), module(["eval(expr)"]))
    with pytest.raises(ContendError, match="bandit failed: ImportError: No module named 'bandit'"):
        check(change)


def test_bandit_crash_on_one_file_becomes_a_skip_with_the_reason(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    state: dict[str, list[str]] = {}

    def make_manager(*args: object, **kwargs: object) -> SimpleNamespace:
        return SimpleNamespace(
            discover_files=lambda names: state.update(names=list(names)),
            run_tests=lambda: None,
            get_issue_list=lambda: [],
            get_skipped=lambda: [(state["names"][0], "exception while scanning file")],
            files_list=[],
        )

    monkeypatch.setattr(security, "_bandit", lambda: _fake_bandit(make_manager))
    change = change_from_texts("app/x.py", module([]), module(["eval(expr)"]))
    assert check(change) == (
        [],
        [
            Skipped(
                "app/x.py",
                "not checked for security: bandit raised an exception while scanning this file",
                Topic.SECURITY,
            )
        ],
    )


def test_test_files_and_audit_advisories_are_not_raised() -> None:
    old = "import requests\n\n\ndef test_health(server):\n    pass\n"
    new = (
        "import requests\nimport subprocess\n\n\ndef test_health(server):\n"
        '    requests.get(server.url + "/health")\n'
        "    subprocess.run(server.cmd, shell=True)\n"
    )
    # In a test, against a fixture the test made: not raised (never right on real history).
    findings, _ = check(change_from_texts("tests/test_health.py", old, new))
    assert findings == []
    # The same code in the library is raised, with its symbol and bandit's confidence;
    # B113 (no timeout) is an audit advisory and is not.
    findings, _ = check(change_from_texts("app/health.py", old, new))
    assert [(f.rule, f.severity) for f in findings] == [("bandit-B602", Severity.CRITICAL)]
    assert findings[0].symbol == "test_health"
    assert findings[0].confidence.value == "high"
