"""The Python silent-fallback topic: each rule on the line the change introduced, and the
benign changes it must leave alone."""

from __future__ import annotations

import textwrap

from contend.critics.static.base import Finding, Topic
from contend.critics.static.silent_fallback import CRITIC
from contend.critics.static.testing import change_from_texts
from contend.protocol.model import Severity


def check(old: str | None, new: str | None, path: str = "pkg/mod.py") -> list[Finding]:
    change = change_from_texts(
        path,
        textwrap.dedent(old) if old is not None else None,
        textwrap.dedent(new) if new is not None else None,
    )
    found = list(CRITIC.check([change]))
    assert all(isinstance(f, Finding) for f in found)
    return [f for f in found if isinstance(f, Finding)]


def rules(findings: list[Finding]) -> list[tuple[str, int]]:
    return [(f.rule, f.start_line) for f in findings]


def test_critic_declares_topic_and_language() -> None:
    assert CRITIC.topic is Topic.SILENT_FALLBACK
    assert CRITIC.languages == frozenset({"python"})


# -- raise-to-default ------------------------------------------------------------------------

RAISING = """\
def get(table, key):
    if key not in table:
        raise KeyError(f"no {key}")
    return table[key]
"""


def test_raise_turned_into_return_none() -> None:
    new = RAISING.replace('raise KeyError(f"no {key}")', "return None")
    (finding,) = check(RAISING, new)
    assert (finding.rule, finding.start_line, finding.end_line) == ("raise-to-default", 3, 3)
    assert finding.severity is Severity.MAJOR
    assert finding.evidence == "        return None"
    assert finding.old_evidence == '        raise KeyError(f"no {key}")'
    assert "`get`" in finding.claim and "`None`" in finding.claim


def test_raise_turned_into_empty_container_and_bare_return() -> None:
    new = RAISING.replace('raise KeyError(f"no {key}")', "return []")
    assert rules(check(RAISING, new)) == [("raise-to-default", 3)]
    bare = RAISING.replace('raise KeyError(f"no {key}")', "return")
    (finding,) = check(RAISING, bare)
    assert finding.rule == "raise-to-default"
    assert "bare `return`" in finding.claim


def test_reraise_in_handler_turned_into_default() -> None:
    old = """\
    class Store:
        def read(self, name):
            try:
                return self._open(name).read()
            except OSError as exc:
                raise StoreError(name) from exc
    """
    new = old.replace("raise StoreError(name) from exc", "return b''")
    (finding,) = check(old, new)
    assert rules([finding]) == [("raise-to-default", 6)]
    assert "`Store.read`" in finding.claim
    assert finding.old_evidence is not None and "raise StoreError" in finding.old_evidence


PROCEDURE = """\
def refresh(self, waiters, sock):
    try:
        self._poll(sock)
    except OSError as exc:
        raise
    waiters.current = None
"""


def test_a_procedure_handing_the_caught_error_on_instead_of_raising_is_not_a_default() -> None:
    # trio: the error goes to every waiting task (`waiters.wake_all(exc)`), then a bare
    # return: a function that returns nothing on any path has no result to mistake.
    new = PROCEDURE.replace("        raise\n", "        waiters.wake_all(exc)\n        return\n")
    assert check(PROCEDURE, new) == []


def test_a_procedure_that_only_logs_the_error_before_returning_is_still_a_default() -> None:
    new = PROCEDURE.replace("        raise\n", "        log.warning(exc)\n        return\n")
    assert rules(check(PROCEDURE, new)) == [("raise-to-default", 6)]


def test_a_function_with_results_handing_the_error_on_is_still_a_default() -> None:
    new = PROCEDURE.replace("        raise\n", "        waiters.wake_all(exc)\n        return\n")
    new = new.replace("    waiters.current = None\n", "    return waiters.current\n")
    old = PROCEDURE.replace("    waiters.current = None\n", "    return waiters.current\n")
    assert rules(check(old, new)) == [("raise-to-default", 6)]


def test_changed_raise_message_is_not_a_fallback() -> None:
    new = RAISING.replace('f"no {key}"', 'f"missing key {key!r}"')
    assert check(RAISING, new) == []


# -- swallowing-handler ----------------------------------------------------------------------

PLAIN = """\
import json


def load(path):
    with open(path) as fh:
        return json.load(fh)
"""


def test_new_broad_handler_returning_empty_dict() -> None:
    new = """\
    import json


    def load(path):
        try:
            with open(path) as fh:
                return json.load(fh)
        except Exception:
            return {}
    """
    (finding,) = check(PLAIN, new)
    assert (finding.rule, finding.start_line, finding.end_line) == ("swallowing-handler", 8, 9)
    assert finding.severity is Severity.MAJOR
    assert finding.evidence == "    except Exception:\n        return {}"
    assert "`load`" in finding.claim and "`{}`" in finding.claim


def test_new_handler_that_logs_and_returns_none() -> None:
    new = """\
    import json


    def load(path):
        try:
            with open(path) as fh:
                return json.load(fh)
        except (OSError, ValueError) as exc:
            logger.warning("could not load %s: %s", path, exc)
            return None
    """
    (finding,) = check(PLAIN, new)
    assert rules([finding]) == [("swallowing-handler", 8)]
    assert "logs and returns `None`" in finding.claim


def test_new_bare_except_pass_and_continue() -> None:
    old = """\
    def total(rows):
        out = 0
        for row in rows:
            out += int(row)
        return out
    """
    passing = """\
    def total(rows):
        out = 0
        for row in rows:
            try:
                out += int(row)
            except:
                pass
        return out
    """
    continuing = passing.replace("except:", "except ValueError:").replace("pass", "continue")
    assert rules(check(old, passing)) == [("swallowing-handler", 6)]
    (finding,) = check(old, continuing)
    assert rules([finding]) == [("swallowing-handler", 6)]
    assert "continues" in finding.claim
    # `out += int(row)` ran unguarded before, so it is reported; a narrow handler blocks no
    # more (calibration: no narrow blocking handler labelled on real commits was TRUE).
    assert (finding.severity, finding.confidence.value) == (Severity.MINOR, "medium")
    assert [f.severity for f in check(old, passing)] == [Severity.MAJOR]  # bare: blocks
    assert finding.symbol == "total"


def test_broad_handler_assigning_default() -> None:
    old = """\
    def size(path):
        value = stat(path).st_size
        return value
    """
    new = """\
    def size(path):
        try:
            value = stat(path).st_size
        except BaseException:
            value = 0
        return value
    """
    (finding,) = check(old, new)
    assert rules([finding]) == [("swallowing-handler", 4)]
    assert "sets value to a default" in finding.claim


def test_broad_handler_around_a_write_is_critical() -> None:
    old = """\
    def persist(db, row):
        db.insert(row)
        db.commit()
    """
    new = """\
    def persist(db, row):
        try:
            db.insert(row)
            db.commit()
        except Exception:
            pass
    """
    (finding,) = check(old, new)
    assert rules([finding]) == [("swallowing-handler", 5)]
    assert finding.severity is Severity.CRITICAL


def test_swallowing_handler_in_an_added_file() -> None:
    new = """\
    def fetch(client):
        try:
            return client.get()
        except Exception:
            return None
    """
    assert rules(check(None, new)) == [("swallowing-handler", 4)]


def test_second_identical_swallowing_handler_is_new() -> None:
    old = """\
    def both(a, b):
        try:
            x = a()
        except Exception:
            x = None
        return x, b()
    """
    new = """\
    def both(a, b):
        try:
            x = a()
        except Exception:
            x = None
        try:
            y = b()
        except Exception:
            y = None
        return x, y
    """
    assert rules(check(old, new)) == [("swallowing-handler", 8)]


# -- widened-except --------------------------------------------------------------------------

NARROW = """\
def parse(text):
    try:
        return int(text)
    except ValueError:
        return None
"""


def test_narrow_except_widened_to_exception() -> None:
    new = NARROW.replace("except ValueError:", "except Exception:")
    (finding,) = check(NARROW, new)
    assert (finding.rule, finding.start_line, finding.end_line) == ("widened-except", 4, 5)
    assert finding.old_evidence == "    except ValueError:\n        return None"
    assert "`except ValueError`" in finding.claim and "`except Exception`" in finding.claim


def test_narrow_except_widened_to_bare_with_changed_body() -> None:
    new = NARROW.replace("int(text)", "int(text.strip())").replace("except ValueError:", "except:")
    (finding,) = check(NARROW, new)
    assert rules([finding]) == [("widened-except", 4)]
    assert "bare except" in finding.claim


def test_widened_but_reraising_is_not_a_finding() -> None:
    new = NARROW.replace(
        "except ValueError:\n        return None", "except Exception:\n        raise"
    )
    assert check(NARROW, new) == []


# -- suppress-broad --------------------------------------------------------------------------


def test_suppress_exception_in_every_import_form() -> None:
    old = """\
    import contextlib as cl
    from contextlib import suppress as quiet


    def cleanup(path):
        path.unlink()


    def refresh(cache):
        cache.reload()
    """
    new = """\
    import contextlib as cl
    from contextlib import suppress as quiet


    def cleanup(path):
        with cl.suppress(Exception):
            path.unlink()


    def refresh(cache):
        with quiet(KeyError, BaseException):
            cache.reload()
    """
    found = check(old, new)
    assert rules(found) == [("suppress-broad", 6), ("suppress-broad", 11)]
    assert found[0].severity is Severity.CRITICAL  # unlink is a write
    assert found[1].severity is Severity.MAJOR
    assert "suppress(BaseException)" in found[1].claim


def test_narrow_suppress_is_not_a_finding() -> None:
    old = "def cleanup(path):\n    path.unlink()\n"
    new = (
        "import contextlib\n\n\ndef cleanup(path):\n"
        "    with contextlib.suppress(FileNotFoundError):\n        path.unlink()\n"
    )
    assert check(old, new) == []


# -- index-to-default ------------------------------------------------------------------------


def test_index_replaced_by_get_with_default() -> None:
    old = 'def name(cfg):\n    return cfg["name"]\n'
    new = 'def name(cfg):\n    return cfg.get("name", "anonymous")\n'
    (finding,) = check(old, new)
    assert rules([finding]) == [("index-to-default", 2)]
    assert finding.old_evidence == '    return cfg["name"]'
    assert "`'anonymous'`" in finding.claim


def test_attribute_replaced_by_getattr_with_default() -> None:
    old = "def port(settings):\n    return settings.port\n"
    new = "def port(settings):\n    return getattr(settings, 'port', 8080)\n"
    assert rules(check(old, new)) == [("index-to-default", 2)]


def test_one_of_two_identical_lookups_swapped_is_caught() -> None:
    old = 'def f(d):\n    a = d["k"]\n    b = d["k"]\n    return a, b\n'
    new = 'def f(d):\n    a = d["k"]\n    b = d.get("k")\n    return a, b\n'
    (finding,) = check(old, new)
    assert rules([finding]) == [("index-to-default", 3)]
    assert "returns None" in finding.claim


def test_get_added_next_to_kept_index_is_not_a_swap() -> None:
    old = 'def f(d):\n    a = d["k"]\n    return a\n'
    new = 'def f(d):\n    a = d["k"]\n    b = d.get("k")\n    return a, b\n'
    assert check(old, new) == []


# -- benign controls -------------------------------------------------------------------------

SWALLOWING = """\
def fetch(client):
    try:
        return client.get()
    except Exception:
        return None
"""


def test_handlers_that_reraise_raise_or_record_are_not_findings() -> None:
    old = "def f(x):\n    return g(x)\n"
    bodies = [
        "raise",
        "raise RuntimeError('g failed') from exc",
        "log.exception('g failed')\n        raise",
        "return exc",
        "return Result(error=exc)",
        "errors.append(exc)\n        return None",
    ]
    for body in bodies:
        head = "def f(x):\n    try:\n        return g(x)\n"
        new = f"{head}    except Exception as exc:\n        {body}\n"
        assert check(old, new) == [], body


def test_handler_doing_real_work_is_not_a_finding() -> None:
    old = "def f(x):\n    return g(x)\n"
    new = "def f(x):\n    try:\n        return g(x)\n    except KeyError:\n        return h(x)\n"
    assert check(old, new) == []


def test_existing_narrow_handler_with_edited_try_body_is_not_new() -> None:
    new = NARROW.replace("return int(text)", "return int(text, base=10)")
    assert check(NARROW, new) == []


def test_existing_handler_untouched_while_other_code_changes() -> None:
    new = SWALLOWING.replace("return client.get()", "return client.get(timeout=5)")
    new = new + "\n\ndef other():\n    return 1\n"
    assert check(SWALLOWING, new) == []


def test_renamed_function_is_not_new_code() -> None:
    new = SWALLOWING.replace("def fetch(", "def fetch_remote(")
    assert check(SWALLOWING, new) == []


def test_function_moved_into_a_class_is_not_new_code() -> None:
    body = textwrap.indent(SWALLOWING.replace("(client)", "(self, client)"), "    ")
    new = "class Api:\n" + body
    assert check(SWALLOWING, new) == []


def test_handler_extracted_into_a_new_helper_is_not_new() -> None:
    old = """\
    def run(client, log):
        log.start()
        try:
            return client.get()
        except Exception:
            return None
    """
    new = """\
    def run(client, log):
        log.start()
        return _fetch(client)


    def _fetch(client):
        try:
            return client.get()
        except Exception:
            return None
    """
    assert check(old, new) == []


def test_handler_copied_into_a_new_function_is_the_existing_policy() -> None:
    # The same handler around the same call, already swallowed in `fetch`: nothing that
    # used to surface is hidden now.
    new = SWALLOWING + "\n\ndef fetch_again(client):\n" + SWALLOWING.split("\n", 1)[1]
    assert check(SWALLOWING, new) == []


def test_existing_handler_spread_over_work_that_used_to_surface_is_new() -> None:
    old = SWALLOWING + "\n\ndef fetch_all(client):\n    return client.get_all()\n"
    new = SWALLOWING + (
        "\n\ndef fetch_all(client):\n    try:\n        return client.get_all()\n"
        "    except Exception:\n        return None\n"
    )
    assert rules(check(old, new)) == [("swallowing-handler", 11)]


def test_module_level_broad_swallow_is_a_finding() -> None:
    old = "CONFIG = load_config()\n"
    new = "try:\n    CONFIG = load_config()\nexcept Exception:\n    CONFIG = {}\n"
    (finding,) = check(old, new)
    assert rules([finding]) == [("swallowing-handler", 3)]
    assert "module-level code" in finding.claim


def test_docstring_and_annotations_added_are_not_findings() -> None:
    new = """\
    def fetch(client: Client) -> Response | None:
        \"\"\"Fetch once; None when the client fails.\"\"\"
        try:
            return client.get()
        except Exception:
            return None
    """
    assert check(SWALLOWING, new) == []


def test_equivalent_rewrite_of_except_tuple_order_is_not_new() -> None:
    head = "def f(x):\n    try:\n        return g(x)\n"
    old = head + "    except (KeyError, IndexError):\n        pass\n"
    new = head + "    except (IndexError, KeyError):\n        pass\n"
    assert check(old, new) == []


def test_module_level_optional_import_is_not_a_finding() -> None:
    new = "try:\n    import yaml\nexcept ImportError:\n    yaml = None\n"
    assert check("", new) == []


def test_deleted_file_has_nothing_to_check() -> None:
    assert check(SWALLOWING, None) == []


def test_narrowing_a_swallowing_handler_is_not_a_new_fallback() -> None:
    from contend.critics.static.silent_fallback import CRITIC
    from contend.critics.static.testing import change_from_texts

    old = "def close(f):\n    try:\n        f.close()\n    except Exception:\n        pass\n"
    for narrower in ("OSError", "(OSError, ValueError)"):
        new = old.replace("except Exception:", f"except {narrower}:")
        assert list(CRITIC.check([change_from_texts("m.py", old, new)])) == []
    # Narrowed, with another fallback: the place swallowed everything before, so nothing
    # that used to surface is hidden now.
    new = old.replace("except Exception:\n        pass", "except OSError:\n        return 0")
    assert list(CRITIC.check([change_from_texts("m.py", old, new)])) == []
    # A handler that raised and now returns a value is a fallback the change made.
    raising = old.replace("        pass", "        raise")
    [finding] = list(CRITIC.check([change_from_texts("m.py", raising, new)]))
    assert finding.rule == "raise-to-default"  # type: ignore[union-attr]
    assert "raise" in (finding.old_evidence or "")  # type: ignore[union-attr]


# -- issue 8: refactors that keep a handler are not new fallbacks ------------------------------


def test_existing_handler_moved_into_branches_is_not_new() -> None:
    old = """\
    def load(path, text):
        try:
            data = json.loads(text)
        except ValueError:
            return {}
        return data
    """
    new = """\
    def load(path, text, strict=False):
        if strict:
            try:
                data = json.loads(text)
            except ValueError:
                return {}
        else:
            try:
                data = json.loads(text.strip())
            except ValueError:
                return {}
        return data
    """
    assert check(old, new) == []


def test_handler_moved_between_existing_functions_is_not_new() -> None:
    old = """\
    def read(path):
        try:
            return open(path).read()
        except OSError:
            return None


    def main(path):
        return read(path)
    """
    new = """\
    def read(path):
        return open(path).read()


    def main(path):
        try:
            return read(path)
        except OSError:
            return None
    """
    assert check(old, new) == []


def test_getattr_default_where_the_old_code_checked_hasattr_is_not_new() -> None:
    old = """\
    def encoding(stream):
        if hasattr(stream, "encoding"):
            return stream.encoding
        return None
    """
    new = """\
    def encoding(stream):
        return getattr(stream, "encoding", None)
    """
    assert check(old, new) == []


def test_except_attribute_error_where_the_old_code_checked_hasattr_is_not_new() -> None:
    old = """\
    def encoding(stream):
        if hasattr(stream, "encoding"):
            value = stream.encoding
        else:
            value = None
        return value
    """
    new = """\
    def encoding(stream):
        try:
            value = stream.encoding
        except AttributeError:
            value = None
        return value
    """
    assert check(old, new) == []


def test_get_where_the_old_code_checked_membership_is_not_new() -> None:
    old = """\
    def lookup(table, key):
        return table[key] if key in table else None
    """
    new = """\
    def lookup(table, key):
        return table.get(key)
    """
    assert check(old, new) == []


def test_optional_import_probe_inside_a_function_is_not_a_finding() -> None:
    old = "def render(text):\n    return text\n"
    new = """\
    def render(text):
        try:
            import markdown
        except ImportError:
            return text
        return markdown.markdown(text)
    """
    assert check(old, new) == []


def test_optional_import_probe_setting_a_flag_is_not_a_finding() -> None:
    new = """\
    try:
        import numpy as np
        HAS_NUMPY = True
    except ImportError:
        np = None
        HAS_NUMPY = False
    """
    assert check("X = 1\n", new) == []


def test_import_probe_around_work_that_ran_before_is_still_a_finding() -> None:
    old = "import plugins\nplugins.load_all()\n"
    new = """\
    try:
        import plugins
        plugins.load_all()
    except ImportError:
        pass
    """
    assert rules(check(old, new)) == [("swallowing-handler", 4)]


# -- issue 8: severity from evidence, and the evidence shape -----------------------------------


def test_narrow_handler_written_with_new_code_is_not_raised() -> None:
    # The new code names the error it handles: a design choice, not a hidden failure.
    old = "def f(x):\n    return x\n"
    new = """\
    def f(x):
        return x


    def port(value):
        try:
            return int(value)
        except ValueError:
            return None
    """
    assert check(old, new) == []
    broad = new.replace("except ValueError:", "except Exception:")
    (finding,) = check(old, broad)
    assert (finding.rule, finding.severity, finding.symbol) == (
        "swallowing-handler",
        Severity.MAJOR,
        "port",
    )


def test_explained_handler_is_minor() -> None:
    new = PLAIN.replace(
        "    with open(path) as fh:\n        return json.load(fh)",
        "    try:\n        with open(path) as fh:\n            return json.load(fh)\n"
        "    except Exception:\n        # best effort: a missing cache is rebuilt later\n"
        "        return {}",
    )
    (finding,) = check(PLAIN, new)
    assert (finding.severity, finding.confidence.value) == (Severity.MINOR, "medium")
    assert "comment says why" in finding.claim


def test_iteration_end_and_failure_markers_are_not_fallbacks() -> None:
    old = "def first(items):\n    it = iter(items)\n    yield next(it)\n"
    new = (
        "def first(items):\n    it = iter(items)\n    try:\n        yield next(it)\n"
        "    except StopIteration:\n        return\n"
    )
    assert check(old, new) == []
    old = "def show(value):\n    return str(value)\n"
    new = (
        "def show(value):\n    try:\n        return str(value)\n"
        "    except Exception:\n        return '<str() failed>'\n"
    )
    assert check(old, new) == []


def test_handlers_in_test_files_are_left_to_test_weakening() -> None:
    old = "def test_x():\n    run()\n"
    new = "def test_x():\n    try:\n        run()\n    except Exception:\n        pass\n"
    assert check(old, new, path="tests/test_x.py") == []


def test_broad_handler_around_existing_work_blocks_with_high_confidence() -> None:
    (finding,) = check(
        PLAIN,
        PLAIN.replace(
            "    with open(path) as fh:\n        return json.load(fh)",
            "    try:\n        with open(path) as fh:\n            return json.load(fh)\n"
            "    except Exception:\n        return {}",
        ),
    )
    assert finding.severity is Severity.MAJOR
    assert finding.confidence.value == "high"
    assert finding.symbol == "load"
    assert not any("raised, reported or tested" in w for w in finding.ways_out)
    assert any("re-raise" in w or "raise" in w for w in finding.ways_out)


def test_handler_replaced_in_place_shows_the_old_handler() -> None:
    old = NARROW.replace("return None", "raise ParseError(text)")
    new = NARROW
    (finding,) = check(old, new)
    assert finding.rule in ("raise-to-default", "swallowing-handler")
    assert finding.old_evidence is not None and "ParseError" in finding.old_evidence


def test_narrow_handler_widened_by_another_narrow_class_shows_before_and_after() -> None:
    new = NARROW.replace("except ValueError:", "except (ValueError, TypeError):")
    (finding,) = check(NARROW, new)
    assert finding.rule == "widened-except"
    assert finding.old_evidence == "    except ValueError:\n        return None"
    assert finding.severity is Severity.MINOR


def test_widened_to_exception_has_symbol_and_old_clause() -> None:
    new = NARROW.replace("except ValueError:", "except Exception:")
    (finding,) = check(NARROW, new)
    assert (finding.rule, finding.symbol, finding.severity) == (
        "widened-except",
        "parse",
        Severity.MAJOR,
    )
    assert finding.confidence.value == "high"


def test_every_finding_names_its_rule_in_the_catalogue() -> None:
    from contend.critics.static import silent_fallback

    declared = {info.rule: info for info in silent_fallback.RULES}
    new = NARROW.replace("except ValueError:", "except Exception:")
    for finding in check(NARROW, new) + check(
        RAISING, RAISING.replace('raise KeyError(f"no {key}")', "return None")
    ):
        info = declared[finding.rule]
        assert finding.ways_out == info.ways_out
        assert finding.confidence.rank <= info.confidence.rank


def test_get_inside_the_try_whose_handler_it_makes_dead_is_still_a_finding() -> None:
    old = """\
    def importer(cache, item, hooks):
        try:
            found = cache[item]
        except KeyError:
            found = build(hooks, item)
        return found
    """
    new = old.replace("found = cache[item]", "found = cache.get(item)")
    assert rules(check(old, new)) == [("index-to-default", 3)]


def test_a_raise_split_in_two_with_an_early_return_between_is_not_a_default() -> None:
    old = (
        "def windows(seq, n, step):\n    if n >= 0 < step:\n        return helper(seq, n)\n"
        "    raise ValueError('n must be >= 0, step > 0')\n"
    )
    new = (
        "def windows(seq, n, step):\n    if n < 0:\n        raise ValueError('n must be >= 0')\n"
        "    if n == 0:\n        yield ()\n        return\n"
        "    if step < 1:\n        raise ValueError('step must be >= 1')\n"
        "    yield from helper(seq, n)\n"
    )
    assert check(old, new) == []


def test_entry_point_that_logs_the_error_and_exits_non_zero_is_not_silent() -> None:
    old = "def run(args):\n    result = main(args)\n    raise SystemExit(result)\n"
    new = (
        "def run(args):\n    try:\n        result = main(args)\n"
        "    except Exception as exc:\n        logging.error('%s| %s', type(exc).__name__, exc)\n"
        "        result = -2\n    raise SystemExit(result)\n"
    )
    assert check(old, new) == []
    quiet = new.replace("logging.error", "logging.debug")
    assert rules(check(old, quiet)) == [("swallowing-handler", 4)]


def test_raise_turned_into_a_return_in_a_generator_is_still_a_fallback() -> None:
    old = (
        "def names(nodes):\n    for node in nodes:\n        if node.ok:\n            yield node\n"
        "        else:\n            raise AssertionError('unknown node')\n"
    )
    new = old.replace("raise AssertionError('unknown node')", "return None")
    assert rules(check(old, new)) == [("raise-to-default", 6)]


def test_narrow_handler_around_work_of_an_old_except_clause_is_reported() -> None:
    # An except clause's body runs unguarded by its own try: a handler the change wraps
    # around it hides failures that used to surface.
    old = """\
    def report(exc):
        try:
            run()
        except OSError as exc:
            sys.stderr.write(f"error: {exc}")
            raise
    """
    new = """\
    def report(exc):
        try:
            run()
        except OSError as exc:
            try:
                sys.stderr.write(f"error: {exc}")
            except (KeyError, ValueError):
                return None
            raise
    """
    (finding,) = check(old, new)
    assert rules([finding]) == [("swallowing-handler", 7)]
    assert finding.severity is Severity.MINOR  # narrow: shown, not blocking
    (broad,) = check(old, new.replace("except (KeyError, ValueError):", "except Exception:"))
    assert broad.severity is Severity.CRITICAL  # broad, around a write: blocks
