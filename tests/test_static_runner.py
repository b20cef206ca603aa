"""The static runner: topic selection, language routing, syntax-error skips, ordering and
in-code waivers."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

import pytest

from contend.critics.static.base import FileChange, Finding, Language, Skipped, Topic
from contend.critics.static.registry import MODULES, critics_for, parse_selection
from contend.critics.static.runner import run_static
from contend.critics.static.testing import change_from_texts
from contend.critics.static.waivers import parse_waiver
from contend.errors import UserError
from contend.protocol.model import Severity

FindingsOf = Callable[[FileChange], list[Finding]]


@dataclass
class FakeCritic:
    """Reports one finding per added line that contains `marker`, and records what it saw."""

    topic: Topic
    languages: frozenset[Language]
    marker: str = "BAD"
    seen: list[str] = field(default_factory=list)

    def check(self, changes: Sequence[FileChange]) -> Iterable[Finding | Skipped]:
        for change in changes:
            self.seen.append(change.path)
            lines = (change.new_text or "").splitlines()
            for number, text in enumerate(lines, start=1):
                if self.marker in text and number in change.added_lines:
                    yield Finding(
                        topic=self.topic,
                        rule="fake-rule",
                        severity=Severity.MAJOR,
                        path=change.path,
                        start_line=number,
                        end_line=number,
                        claim="fake",
                        evidence=text,
                    )


def py_critic(topic: Topic = Topic.SILENT_FALLBACK) -> FakeCritic:
    return FakeCritic(topic, frozenset({"python"}))


# -- selection --------------------------------------------------------------------------------


def test_selection_strings() -> None:
    assert parse_selection("static") == frozenset(Topic)
    assert parse_selection("static:silent-fallback") == {Topic.SILENT_FALLBACK}
    assert parse_selection("static:secrets,test-weakening") == {Topic.SECRETS, Topic.TEST_WEAKENING}


def test_unknown_topic_lists_the_valid_ones() -> None:
    with pytest.raises(UserError) as caught:
        parse_selection("static:silent-fallbacks")
    message = str(caught.value)
    assert "'silent-fallbacks'" in message
    for topic in Topic:
        assert topic.value in message


def test_selection_must_name_static() -> None:
    with pytest.raises(UserError, match="not a static critic selection"):
        parse_selection("statik:secrets")


def test_registry_covers_every_topic_and_loads_by_topic() -> None:
    assert set(MODULES.values()) == set(Topic)
    loaded = critics_for({Topic.SILENT_FALLBACK})
    assert len(loaded) == 2  # the Python and the JS/TS versions share the topic
    assert {c.topic for c in loaded} == {Topic.SILENT_FALLBACK}
    assert "python" in loaded[0].languages


# -- routing and skips ------------------------------------------------------------------------


def test_each_critic_sees_only_its_languages() -> None:
    py = py_critic()
    js = FakeCritic(Topic.SILENT_FALLBACK, frozenset({"javascript"}))
    changes = [
        change_from_texts("a.py", "x = 1\n", "x = BAD\n"),
        change_from_texts("b.js", "let x = 1;\n", "let x = BAD;\n"),
    ]
    result = run_static(changes, critics=[py, js])
    assert py.seen == ["a.py"]
    assert js.seen == ["b.js"]
    assert [(f.path, f.start_line) for f in result.findings] == [("a.py", 1), ("b.js", 1)]


def test_syntax_error_becomes_one_skip_and_raw_text_critics_still_see_it() -> None:
    ast_critic = py_critic()
    secrets = FakeCritic(Topic.SECRETS, frozenset({"python", "other"}))
    good = change_from_texts("good.py", "x = 1\n", "x = BAD\n")
    broken = change_from_texts("broken.py", "x = 1\n", "x = 1\ndef f(:\n    BAD\n")
    result = run_static(
        [good, broken], critics=[ast_critic, secrets], skipped=[Skipped("i.png", "binary file")]
    )
    assert ast_critic.seen == ["good.py"]
    assert secrets.seen == ["good.py", "broken.py"]
    assert result.skipped == [
        Skipped("i.png", "binary file"),
        Skipped("broken.py", "syntax error at line 2: invalid syntax"),
    ]
    assert [(f.path, f.topic) for f in result.findings] == [
        ("broken.py", Topic.SECRETS),
        ("good.py", Topic.SECRETS),
        ("good.py", Topic.SILENT_FALLBACK),
    ]


def test_old_side_syntax_error_is_skipped_too() -> None:
    critic = py_critic()
    change = change_from_texts("m.py", "def f(:\n", "def f():\n    BAD = 1\n")
    result = run_static([change], critics=[critic])
    assert critic.seen == []
    assert result.skipped == [
        Skipped("m.py", "the old side has a syntax error at line 1: invalid syntax")
    ]


def test_a_critic_that_raises_is_not_swallowed() -> None:
    class Broken:
        topic = Topic.CONCURRENCY
        languages: frozenset[Language] = frozenset({"python"})

        def check(self, changes: Sequence[FileChange]) -> Iterable[Finding | Skipped]:
            raise RuntimeError("critic bug")

    with pytest.raises(RuntimeError, match="critic bug"):
        run_static([change_from_texts("m.py", "", "x = 1\n")], critics=[Broken()])


def test_findings_are_ordered_by_path_line_topic_rule() -> None:
    critics = [py_critic(Topic.SECRETS), py_critic(Topic.CONCURRENCY)]
    changes = [
        change_from_texts("z.py", "", "BAD = 1\n"),
        change_from_texts("a.py", "", "ok = 1\nBAD = 2\nBAD = 3\n"),
    ]
    result = run_static(changes, critics=critics)
    assert [(f.path, f.start_line, f.topic.value) for f in result.findings] == [
        ("a.py", 2, "concurrency"),
        ("a.py", 2, "secrets"),
        ("a.py", 3, "concurrency"),
        ("a.py", 3, "secrets"),
        ("z.py", 1, "concurrency"),
        ("z.py", 1, "secrets"),
    ]


# -- waivers ----------------------------------------------------------------------------------


def test_parse_waiver_forms() -> None:
    waiver = parse_waiver(
        "x = 1  # contend: allow silent-fallback, secrets -- cache miss is fine", 4
    )
    assert waiver is not None
    assert waiver.topics == {"silent-fallback", "secrets"}
    assert waiver.reason == "cache miss is fine"
    js = parse_waiver("  } catch { // contend: allow silent-fallback -- optional", 9)
    assert js is not None and js.reason == "optional"
    empty = parse_waiver("# contend: allow silent-fallback --   ", 1)
    assert empty is not None and empty.reason is None
    bare = parse_waiver("# contend: allow silent-fallback", 1)
    assert bare is not None and bare.reason is None and bare.topics == {"silent-fallback"}
    assert parse_waiver("# nothing to see", 1) is None


def test_waiver_with_reason_marks_finding_waived_and_keeps_it() -> None:
    new = "a = 1\nb = BAD  # contend: allow silent-fallback -- default is documented in README\n"
    result = run_static([change_from_texts("m.py", "a = 1\n", new)], critics=[py_critic()])
    (finding,) = result.findings
    assert finding.waived is True
    assert finding.waiver_reason == "default is documented in README"


def test_waiver_on_line_above_applies_and_other_topic_does_not() -> None:
    new = (
        "# contend: allow silent-fallback -- reviewed\n"
        "x = BAD\n"
        "# contend: allow secrets -- wrong topic\n"
        "y = BAD\n"
    )
    result = run_static([change_from_texts("m.py", "", new)], critics=[py_critic()])
    assert [(f.start_line, f.waived) for f in result.findings] == [(2, True), (4, False)]


def test_waiver_two_lines_above_does_not_apply() -> None:
    new = "# contend: allow silent-fallback -- reviewed\n\nx = BAD\n"
    result = run_static([change_from_texts("m.py", "", new)], critics=[py_critic()])
    assert [(f.start_line, f.waived) for f in result.findings] == [(3, False)]


def test_waiver_without_reason_waives_nothing_and_is_a_finding() -> None:
    new = "x = BAD  # contend: allow silent-fallback\n"
    # The fake rule has no record in the earned policy; under "rule" it keeps its own
    # severity, so the check is that the reasonless waiver left it unwaived and blocking.
    result = run_static(
        [change_from_texts("m.py", "", new)], critics=[py_critic()], blocking="rule"
    )
    assert [(f.rule, f.waived, f.severity) for f in result.findings] == [
        ("fake-rule", False, Severity.MAJOR),
        ("waiver-without-reason", False, Severity.MINOR),
    ]
    extra = result.findings[1]
    assert extra.topic is Topic.SILENT_FALLBACK
    assert extra.start_line == 1
    assert "reason" in extra.claim


def test_pre_existing_reasonless_waiver_is_not_the_change_fault() -> None:
    old = "# contend: allow silent-fallback\nx = 1\n"
    new = "# contend: allow silent-fallback\nx = 2\n"
    result = run_static([change_from_texts("m.py", old, new)], critics=[py_critic()])
    assert result.findings == []


def test_reasonless_waiver_for_a_topic_not_run_is_not_reported() -> None:
    new = "x = 1  # contend: allow secrets\n"
    result = run_static([change_from_texts("m.py", "", new)], critics=[py_critic()])
    assert result.findings == []


def test_real_silent_fallback_topic_with_waiver() -> None:
    old = "def f(x):\n    return g(x)\n"
    new = (
        "def f(x):\n"
        "    try:\n"
        "        return g(x)\n"
        "    # contend: allow silent-fallback -- g is best-effort telemetry\n"
        "    except Exception:\n"
        "        return None\n"
    )
    result = run_static([change_from_texts("m.py", old, new)], "static:silent-fallback")
    (finding,) = result.findings
    assert (finding.rule, finding.start_line) == ("swallowing-handler", 5)
    assert finding.waived is True
    assert finding.waiver_reason == "g is best-effort telemetry"


def test_waiver_text_inside_a_python_string_is_not_a_waiver() -> None:
    new = 'x = BAD\nSAMPLE = "y = 1  # contend: allow silent-fallback"\n'
    result = run_static([change_from_texts("m.py", "", new)], critics=[py_critic()])
    assert [(f.rule, f.start_line, f.waived) for f in result.findings] == [("fake-rule", 1, False)]


def test_js_line_comment_waiver() -> None:
    js = FakeCritic(Topic.SILENT_FALLBACK, frozenset({"javascript"}))
    new = "// contend: allow silent-fallback -- retried by the caller\nlet x = BAD;\n"
    result = run_static([change_from_texts("a.js", "", new)], critics=[js])
    (finding,) = result.findings
    assert finding.waived is True
    assert finding.waiver_reason == "retried by the caller"


def test_a_trailing_waiver_on_the_previous_statement_does_not_waive_the_next_line() -> None:
    from contend.critics.static.runner import run_static
    from contend.critics.static.testing import change_from_texts

    old = "def f(g):\n    return g()\n"
    new = (
        "def f(g):\n"
        "    x = 1  # contend: allow silent-fallback -- about x only\n"
        "    try:\n        return g()\n    except Exception:\n        return None\n"
    )
    result = run_static([change_from_texts("m.py", old, new)], "static:silent-fallback")
    assert result.findings and not any(f.waived for f in result.findings)
    # The same trailing waiver on the line just above the handler does not reach it either,
    # while the waiver alone on that line does.
    trailing = new.replace("    x = 1  # contend: allow silent-fallback -- about x only\n", "")
    trailing = trailing.replace(
        "        return g()\n",
        "        return g()  # contend: allow silent-fallback -- about the call only\n",
    )
    result = run_static([change_from_texts("m.py", old, trailing)], "static:silent-fallback")
    assert result.findings and not any(f.waived for f in result.findings)
    standalone = trailing.replace(
        "        return g()  # contend: allow silent-fallback -- about the call only\n",
        "        return g()\n    # contend: allow silent-fallback -- g is optional here\n",
    )
    result = run_static([change_from_texts("m.py", old, standalone)], "static:silent-fallback")
    assert result.findings and all(f.waived for f in result.findings)


# -- robustness: deep recursion, huge evidence (issue 10) -------------------------------------


def test_an_expression_cpython_cannot_compile_is_a_skip_not_a_crash() -> None:
    terms = "+".join(["x"] * 60_000)
    new = f"def f(x):\n    try:\n        return {terms}\n    except Exception:\n        return 0\n"
    critic = py_critic()
    result = run_static([change_from_texts("deep.py", "", new)], critics=[critic])
    assert critic.seen == []
    assert [s.path for s in result.skipped] == ["deep.py"]
    assert "too deeply nested" in result.skipped[0].reason


def test_a_critic_that_recurses_too_deep_on_one_file_skips_that_file_only() -> None:
    class Recursive:
        """Recurses without bound on files named deep*, like a recursive AST walk would."""

        topic = Topic.CONCURRENCY
        languages: frozenset[Language] = frozenset({"python"})

        def check(self, changes: Sequence[FileChange]) -> Iterable[Finding | Skipped]:
            def dive(n: int) -> int:
                return dive(n + 1) + 1

            for change in changes:
                if change.path.startswith("deep"):
                    dive(0)
                yield Finding(
                    topic=self.topic,
                    rule="fake-rule",
                    severity=Severity.MAJOR,
                    path=change.path,
                    start_line=1,
                    end_line=1,
                    claim="fake",
                    evidence="x",
                )

    changes = [
        change_from_texts("deep.py", "", "x = 1\n"),
        change_from_texts("ok.py", "", "x = 1\n"),
    ]
    result = run_static(changes, critics=[Recursive()])
    assert [f.path for f in result.findings] == ["ok.py"]
    (skip,) = result.skipped
    assert skip.path == "deep.py"
    assert skip.topic is Topic.CONCURRENCY
    assert "too deeply nested" in skip.reason


def test_evidence_is_capped_to_a_window_with_its_size_noted() -> None:
    huge_line = 'x = BAD; s = "' + "y" * 200_000 + '"'
    result = run_static([change_from_texts("m.py", "", huge_line + "\n")], critics=[py_critic()])
    (finding,) = result.findings
    assert len(finding.evidence) < 3_000
    assert finding.evidence.startswith("x = BAD")
    assert f"{len(huge_line):,} characters" in finding.evidence


def test_many_line_evidence_keeps_the_head_and_tail_of_the_span() -> None:
    class WholeFile(FakeCritic):
        def check(self, changes: Sequence[FileChange]) -> Iterable[Finding | Skipped]:
            for change in changes:
                text = change.new_text or ""
                yield Finding(
                    topic=self.topic,
                    rule="fake-rule",
                    severity=Severity.MAJOR,
                    path=change.path,
                    start_line=1,
                    end_line=text.count("\n"),
                    claim="fake",
                    evidence=text,
                    old_evidence=text,
                )

    text = "".join(f"line_{i} = {i}\n" for i in range(2_000))
    critic = WholeFile(Topic.SILENT_FALLBACK, frozenset({"python"}))
    (finding,) = run_static([change_from_texts("m.py", "", text)], critics=[critic]).findings
    for evidence in (finding.evidence, finding.old_evidence or ""):
        assert evidence.startswith("line_0 = 0\n")
        assert evidence.rstrip().endswith("line_1999 = 1999")
        assert "lines cut" in evidence
        assert len(evidence) < 3_000


@dataclass
class ProjectFakeCritic(FakeCritic):
    """A FakeCritic that also reads the project's root config files."""

    projects: list[dict[str, str]] = field(default_factory=list)

    def check_in_project(
        self, changes: Sequence[FileChange], project_files: dict[str, str]
    ) -> Iterable[Finding | Skipped]:
        self.projects.append(dict(project_files))
        return self.check(changes)


def test_project_files_reach_only_the_critics_that_read_them() -> None:
    aware = ProjectFakeCritic(Topic.TEST_WEAKENING, frozenset({"javascript"}))
    plain = FakeCritic(Topic.SILENT_FALLBACK, frozenset({"javascript"}))
    change = change_from_texts("test/a.js", "x\n", "x\nBAD\n")
    files = {".mocharc.json": '{"spec": "test/**/*.js"}'}
    result = run_static([change], critics=[aware, plain], project_files=files)
    assert aware.projects == [files]
    assert plain.seen == ["test/a.js"]
    assert len(result.findings) == 2
    # Without project files the aware critic is called as any other.
    run_static([change], critics=[aware])
    assert aware.projects == [files]
    assert aware.seen == ["test/a.js", "test/a.js"]
