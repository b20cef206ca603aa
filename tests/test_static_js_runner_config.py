"""The project's test-runner configuration decides which JS/TS files are tests (issue 17):
vitest `include`, jest `testMatch`, mocha `spec` (and its default `./test`), ava `files`."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from contend.critics.static.js_runner_config import layout_of, read_runner_config
from contend.critics.static.js_tests_model import is_test_code
from contend.critics.static.runner import run_static
from contend.critics.static.testing import change_from_texts


def test_vitest_include_from_a_script_config() -> None:
    layout = layout_of(
        {
            "vitest.config.ts": (
                "import { defineConfig } from 'vitest/config'\n"
                "export default defineConfig({\n"
                "  test: {\n"
                "    include: ['src/**/*.check.ts', './e2e/**/*.e2e.{js,ts}'],\n"
                "    exclude: ['**/node_modules/**'],\n"
                "  },\n"
                "})\n"
            )
        }
    )
    assert layout.matches("src/a/b/parse.check.ts")
    assert layout.matches("e2e/login.e2e.ts")
    assert not layout.matches("src/parse.ts")
    assert layout.sources == ("vitest.config.ts",)


def test_jest_test_match_in_package_json_with_extglob_and_negation() -> None:
    package = {
        "jest": {
            "testMatch": [
                "<rootDir>/checks/**/?(*.)+(it|unit).[jt]s?(x)",
                "!**/checks/slow/**",
            ]
        }
    }
    layout = layout_of({"package.json": json.dumps(package)})
    assert layout.matches("checks/api/users.it.ts")
    assert layout.matches("checks/unit.js")
    assert not layout.matches("checks/slow/big.it.ts")
    assert not layout.matches("src/users.ts")


def test_mocha_spec_from_mocharc_yaml_and_a_directory_spec() -> None:
    layout = layout_of({".mocharc.yml": "spec:\n  - 'spec/unit'\n  - 'spec/e2e/*.js'\n"})
    assert layout.matches("spec/unit/deep/parser.js")
    assert layout.matches("spec/e2e/flow.js")
    assert not layout.matches("lib/parser.js")


def test_mocha_without_a_spec_runs_its_default_test_directory() -> None:
    package = {"devDependencies": {"mocha": "^10"}, "scripts": {"test": "mocha --exit"}}
    layout = layout_of({"package.json": json.dumps(package)})
    assert layout.matches("test/server.js")
    assert not layout.matches("test/helpers/deep/server.js")  # mocha's default: not recursive
    assert not layout.matches("lib/server.js")


def test_ava_files_and_a_project_without_a_runner_config() -> None:
    layout = layout_of({"package.json": json.dumps({"ava": {"files": ["checks/**/*"]}})})
    assert layout.matches("checks/a/b.mjs")
    assert not layout_of({"package.json": json.dumps({"name": "x"})}).globs
    assert not layout_of({"package.json": "{ not json"}).globs


def test_a_file_the_runner_config_names_is_test_code_without_any_test_call() -> None:
    script = "const assert = require('assert')\nassert.strictEqual(parse('1'), 1)\n"
    change = change_from_texts("spec/unit/parse.js", script, script + "\n")
    spec = layout_of({".mocharc.json": '{"spec": "spec/unit/**/*.js"}'})
    assert is_test_code(change, None, None, layout=spec)
    assert not is_test_code(change, None, None)


def test_fixtures_stay_excluded_whatever_the_config_says() -> None:
    change = change_from_texts("test/fixtures/app.test.js", None, "module.exports = 1\n")
    layout = layout_of({".mocharc.json": '{"spec": "test/**/*.js"}'})
    assert not is_test_code(change, None, None, layout=layout)


HELPER_OLD = """\
export async function loadUser(api, id) {
  return await api.get(`/users/${id}`)
}
"""

HELPER_NEW = """\
export async function loadUser(api, id) {
  return await api.get(`/users/${id}`).catch(() => null)
}
"""


def test_run_static_passes_the_runner_config_to_the_js_critics() -> None:
    """A helper under the mocha spec glob is test code: a rejection it absorbs where nothing
    is asserted is the test's business (the same edit in product code is a finding)."""
    change = change_from_texts("test/support/server.js", HELPER_OLD, HELPER_NEW)
    files = {".mocharc.json": '{"spec": "test/**/*.js"}'}
    without = run_static([change], "static:silent-fallback")
    with_config = run_static([change], "static:silent-fallback", project_files=files)
    assert [f.rule for f in without.findings], "the swallow is a finding in product code"
    assert with_config.findings == []


def test_read_runner_config_reads_the_files_at_a_revision(tmp_path: Path) -> None:
    def git(*args: str) -> None:
        subprocess.run(["git", "-C", str(tmp_path), *args], check=True, capture_output=True)

    git("init", "-q")
    (tmp_path / ".mocharc.json").write_text('{"spec": "spec/**/*.js"}')
    (tmp_path / "README.md").write_text("x")
    git("add", ".")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "base")
    (tmp_path / ".mocharc.json").write_text('{"spec": "other/**/*.js"}')
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", "head")
    files = read_runner_config(tmp_path, "HEAD~1")
    assert files == {".mocharc.json": '{"spec": "spec/**/*.js"}'}
