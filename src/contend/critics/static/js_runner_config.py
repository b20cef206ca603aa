"""Which files a JS/TS project's test runner runs: read from the runner's configuration.

A project says where its tests are in its runner's config — vitest's `test.include`, jest's
`testMatch`, mocha's `spec` (`.mocharc.*` or `package.json` "mocha"), ava's `files` — and
mocha, when it is the runner, looks in `./test` by default. Those globs decide which files are
tests beside what a file holds (`js_tests_model.holds_tests`); fixtures stay excluded there.

Pure: `layout_of` reads the config files' texts (root-level name -> text); `read_runner_config`
is the one I/O edge, reading them from the reviewed revision's tree in git. JS/TS configs are
read, never run: only literal strings and arrays of strings under the known keys count (a
computed glob is not seen, and the runner's defaults then stand).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import yaml

from contend.gitio.git import run_git

_CONFIG_STEMS = {
    "vitest": ("vitest.config", "vitest.workspace", "vite.config"),
    "jest": ("jest.config",),
    "ava": ("ava.config",),
}
_SCRIPT_EXTENSIONS = (".js", ".cjs", ".mjs", ".ts", ".mts", ".cts")
MOCHARC = tuple(f".mocharc{ext}" for ext in (".js", ".cjs", ".json", ".jsonc", ".yml", ".yaml"))
RUNNER_CONFIG_FILES: tuple[str, ...] = (
    "package.json",
    *MOCHARC,
    *(
        f"{stem}{ext}"
        for stems in _CONFIG_STEMS.values()
        for stem in stems
        for ext in _SCRIPT_EXTENSIONS
    ),
    "jest.config.json",
)
# The keys that name test files, per runner (jest's `roots` and vitest's `dir` narrow where
# they look; they are not globs and are not read).
_GLOB_KEYS = {"vitest": ("include",), "jest": ("testMatch",), "ava": ("files",)}
_MOCHA_DEFAULT = ("test/*.{js,cjs,mjs}",)


@dataclass(frozen=True, slots=True)
class TestLayout:
    """The globs of test files a project's runner configuration names (repository-relative,
    `./` dropped; a `!` glob excludes)."""

    globs: tuple[str, ...] = ()
    sources: tuple[str, ...] = ()  # the config files they came from, for messages

    def matches(self, path: str) -> bool:
        included = [g for g in self.globs if not g.startswith("!")]
        excluded = [g[1:] for g in self.globs if g.startswith("!")]
        return any(_glob(g).match(path) for g in included) and not any(
            _glob(g).match(path) for g in excluded
        )


NO_LAYOUT = TestLayout()


def layout_of(files: Mapping[str, str]) -> TestLayout:
    """The test-file globs named by the runner configs among `files` (root-level name ->
    text). A file that does not parse names nothing (its runner's defaults stand)."""
    globs: list[str] = []
    sources: list[str] = []
    package = _json(files.get("package.json"))
    for runner, stems in _CONFIG_STEMS.items():
        for name, text in files.items():
            if name.startswith(stems) and name.endswith((*_SCRIPT_EXTENSIONS, ".json")):
                found = (
                    _json_values(_json(text), _GLOB_KEYS[runner])
                    if name.endswith(".json")
                    else _script_values(text, _GLOB_KEYS[runner])
                )
                if found:
                    globs += found
                    sources.append(name)
        section = package.get(runner) if isinstance(package, dict) else None
        found = _json_values(section, _GLOB_KEYS[runner]) if isinstance(section, dict) else []
        if found:
            globs += found
            sources.append(f"package.json {runner}")
    mocha = _mocha_specs(files, package)
    if mocha is not None:
        globs += mocha[0]
        sources.append(mocha[1])
    return TestLayout(tuple(_clean(g) for g in globs), tuple(sources))


def _mocha_specs(files: Mapping[str, str], package: object) -> tuple[list[str], str] | None:
    """mocha's `spec` (a .mocharc, or package.json "mocha"), its default `./test` when mocha
    is the runner with no spec, None when the project does not use mocha."""
    for name in MOCHARC:
        text = files.get(name)
        if text is None:
            continue
        if name.endswith((".yml", ".yaml")):
            data = _yaml(text)
            found = _json_values(data, ("spec",)) if isinstance(data, dict) else []
        elif name.endswith((".json", ".jsonc")):
            found = _json_values(_json(_strip_comments(text)), ("spec",))
        else:
            found = _script_values(text, ("spec",))
        return (found or list(_MOCHA_DEFAULT)), name
    if not isinstance(package, dict):
        return None
    section = package.get("mocha")
    if isinstance(section, dict):
        return (_json_values(section, ("spec",)) or list(_MOCHA_DEFAULT)), "package.json mocha"
    scripts = package.get("scripts")
    dependencies = {
        key
        for field in ("devDependencies", "dependencies")
        if isinstance(package.get(field), dict)
        for key in package[field]
    }
    runs_mocha = isinstance(scripts, dict) and any(
        isinstance(v, str) and re.search(r"(^|[\s/&;])mocha(\s|$)", v) for v in scripts.values()
    )
    if "mocha" in dependencies and runs_mocha:
        return list(_MOCHA_DEFAULT), "package.json scripts (mocha's default ./test)"
    return None


def _clean(glob: str) -> str:
    negated = glob.startswith("!")
    body = glob[1:] if negated else glob
    body = body.removeprefix("<rootDir>/").removeprefix("./")
    if not any(ch in body for ch in "*?{[") and not re.search(r"\.[cm]?[jt]sx?$", body):
        body = body.rstrip("/") + "/**/*.{js,cjs,mjs,ts,cts,mts,jsx,tsx}"  # a directory
    return ("!" if negated else "") + body


def _json(text: str | None) -> object:
    if text is None:
        return None
    try:
        return json.loads(text)
    except ValueError:
        # contend: allow silent-fallback -- a config its own runner could not read names no globs
        return None


def _yaml(text: str) -> object:
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError:
        # contend: allow silent-fallback -- a config its own runner could not read names no globs
        return None


def _strip_comments(text: str) -> str:
    return re.sub(r"^\s*//.*$", "", text, flags=re.MULTILINE)


def _json_values(data: object, keys: Iterable[str]) -> list[str]:
    """Strings (or lists of strings) under `keys` at the top of a JSON object."""
    if not isinstance(data, dict):
        return []
    found: list[str] = []
    for key in keys:
        value = data.get(key)
        if isinstance(value, str):
            found.append(value)
        elif isinstance(value, list):
            found += [item for item in value if isinstance(item, str)]
    return found


_STRING = r"""(?:'[^'\n]*'|"[^"\n]*"|`[^`$\n]*`)"""


def _script_values(text: str, keys: Iterable[str]) -> list[str]:
    """Literal strings under `key:` in a JS/TS config: `include: ['src/**/*.test.ts']`,
    `spec: 'test/**/*.spec.js'` (computed values are not read)."""
    found: list[str] = []
    for key in keys:
        pattern = rf"""(?<![\w$.])['"]?{key}['"]?\s*:\s*(\[[^\]]*\]|{_STRING})"""
        for match in re.finditer(pattern, text):
            found += [s[1:-1] for s in re.findall(_STRING, match.group(1))]
    return found


@lru_cache(maxsize=256)
def _glob(glob: str) -> re.Pattern[str]:
    """A runner glob (micromatch style: `**`, `*`, `?`, `{a,b}`, `?(x|y)`, `+(x|y)`, `[...]`)
    as a regex over repository-relative paths."""
    return re.compile(_translate(glob) + "$")


_EXTGLOB = {"?": "?", "+": "+", "*": "*", "@": "", "!": ""}


def _translate(glob: str) -> str:
    out: list[str] = []
    i = 0
    depth = 0
    while i < len(glob):
        char = glob[i]
        if glob.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
            continue
        if glob.startswith("**", i):
            out.append(".*")
            i += 2
            continue
        if char in _EXTGLOB and glob.startswith("(", i + 1):
            close = glob.find(")", i)
            if close != -1:
                options = "|".join(_translate(o) for o in glob[i + 2 : close].split("|"))
                out.append(f"(?:{options}){_EXTGLOB[char]}")
                i = close + 1
                continue
        if char == "*":
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "{":
            out.append("(?:")
            depth += 1
        elif char == "}" and depth:
            out.append(")")
            depth -= 1
        elif char == "," and depth:
            out.append("|")
        elif char == "[" and glob.find("]", i) != -1:
            close = glob.find("]", i)
            out.append(glob[i : close + 1])
            i = close
        else:
            out.append(re.escape(char))
        i += 1
    return "".join(out)


def read_runner_config(repo_root: Path, rev: str) -> dict[str, str]:
    """The runner config files at the top of `rev`'s tree (name -> text); absent files (and
    anything that is not a regular file) are left out: the runner's defaults then apply."""
    listing = run_git(repo_root, ["ls-tree", "-z", rev, "--", *RUNNER_CONFIG_FILES])
    found: dict[str, str] = {}
    for entry in listing.split(b"\0"):
        if not entry:
            continue
        meta, _, name = entry.partition(b"\t")
        mode, kind, sha = meta.decode("ascii").split()
        if kind != "blob" or mode not in ("100644", "100755"):
            continue
        raw = run_git(repo_root, ["cat-file", "blob", sha])
        found[name.decode("utf-8", "replace")] = raw.decode("utf-8", "replace")
    return found
