"""Every test runs isolated: its own state dir, user config home and git identity."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings

# CI draws the same examples on every run (derandomized, seeded per test), so a red CI is a
# change's doing and reproduces; local runs keep random draws to find new counterexamples.
settings.register_profile("ci", derandomize=True, database=None, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


@pytest.fixture(autouse=True)
def _isolate(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("CONTEND_CONFIG_HOME", str(home / ".config" / "contend"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.delenv("CONTEND_STATE_DIR", raising=False)
    # Which rule lets static findings block is each test's choice (`static_blocking_rule`).
    monkeypatch.delenv("CONTEND_STATIC_BLOCKING", raising=False)
    # The ledger key and the anchors live under this HOME too (~/.config, ~/.local/state).
    for name in ("XDG_STATE_HOME", "CONTEND_KEY_FILE", "CONTEND_ANCHOR_DIR"):
        monkeypatch.delenv(name, raising=False)
    # No test may reach a real model: API backends refuse non-loopback endpoints.
    monkeypatch.setenv("CONTEND_ALLOW_MODEL_REQUESTS", "0")
    for name in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("GIT_AUTHOR_NAME", "Test Author")
    monkeypatch.setenv("GIT_AUTHOR_EMAIL", "author@example.invalid")
    monkeypatch.setenv("GIT_COMMITTER_NAME", "Test Author")
    monkeypatch.setenv("GIT_COMMITTER_EMAIL", "author@example.invalid")
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(home / ".gitconfig"))
    (home / ".gitconfig").write_text("[init]\n\tdefaultBranch = main\n")


@pytest.fixture
def static_blocking_rule(monkeypatch: pytest.MonkeyPatch) -> None:
    """Static findings block at each rule's own severity (`static.blocking = "rule"`), set the
    way a user sets it: the environment variable (inherited by the `contend` subprocesses a
    test starts). For tests whose point is how the engine or an integration handles a
    *blocking* static finding: the change they plant — a broad `except Exception: return 0`
    — is a `swallowing-handler`, which the default earned policy lists as `minor`
    (docs/static-critics.md, "Calibration")."""
    monkeypatch.setenv("CONTEND_STATIC_BLOCKING", "rule")


@pytest.fixture
def repo_dir(tmp_path: Path) -> Path:
    path = tmp_path / "repo"
    path.mkdir()
    return path


@pytest.fixture(scope="session")
def local_ray(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """One local Ray instance (2 CPUs, no dashboard) for the whole session, shared by every
    test that needs Ray (tests/test_executor_ray.py, tests/test_run_ray.py): a second start
    per module timed out on the loaded 2-core machine and leaked its processes.

    Ray's workers keep the environment of `ray.init`, which runs before any test's own
    isolation: they get an isolated home and git identity of their own, as `_isolate`
    gives each test, and the driver's environment is restored afterwards."""
    ray = pytest.importorskip("ray", reason="Ray is the optional extra contend[ray]")
    home = tmp_path_factory.mktemp("ray-home")
    (home / ".gitconfig").write_text("[init]\n\tdefaultBranch = main\n")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("HOME", str(home))
        patch.setenv("CONTEND_CONFIG_HOME", str(home / ".config" / "contend"))
        patch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
        patch.setenv("CONTEND_ALLOW_MODEL_REQUESTS", "0")
        for name in ("CONTEND_STATE_DIR", "XDG_STATE_HOME", "CONTEND_KEY_FILE"):
            patch.delenv(name, raising=False)
        for name in ("CONTEND_ANCHOR_DIR", "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"):
            patch.delenv(name, raising=False)
        for name in ("GIT_AUTHOR_NAME", "GIT_COMMITTER_NAME"):
            patch.setenv(name, "Test Author")
        for name in ("GIT_AUTHOR_EMAIL", "GIT_COMMITTER_EMAIL"):
            patch.setenv(name, "author@example.invalid")
        patch.setenv("GIT_CONFIG_NOSYSTEM", "1")
        patch.setenv("GIT_CONFIG_GLOBAL", str(home / ".gitconfig"))
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    try:
        yield
    finally:
        ray.shutdown()
