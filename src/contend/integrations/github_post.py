"""Posting the PR comment: create it, or update the one a previous run left (found by its
hidden marker), through the GitHub REST API with httpx2 (extra `contend[github]`).

The token is read from the environment only (`GITHUB_TOKEN`, else `GH_TOKEN`): never from a
flag, a file or the config, so it does not land in shell history or the ledger. Where to
post comes from the Actions environment (`GITHUB_API_URL`, `GITHUB_REPOSITORY`, the pull
request of `GITHUB_EVENT_PATH`) unless given. Every failure is one clear error naming the
request and GitHub's answer; nothing is retried blindly and nothing is posted twice.

Endpoints (REST, 2022-11-28): GET /repos/{repo}/issues/{n}/comments (paged, Link rel=next),
PATCH /repos/{repo}/issues/comments/{id}, POST /repos/{repo}/issues/{n}/comments.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from contend import __version__
from contend.errors import UserError

if TYPE_CHECKING:
    import httpx2

DEFAULT_API = "https://api.github.com"
TOKEN_VARS = ("GITHUB_TOKEN", "GH_TOKEN")
MAX_PAGES = 50  # 5,000 comments: a PR with more is not one contend can page through
_REPO = re.compile(r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+")
_NEXT = re.compile(r'<([^>]+)>;\s*rel="next"')


@dataclass(frozen=True)
class Target:
    api_url: str
    repository: str
    number: int


@dataclass(frozen=True)
class Posted:
    action: str  # "created" or "updated"
    comment_id: int
    url: str


def token_from_env(env: Mapping[str, str] | None = None) -> str:
    env = os.environ if env is None else env
    for name in TOKEN_VARS:
        value = env.get(name, "").strip()
        if value:
            return value
    raise UserError(
        "no GitHub token: set GITHUB_TOKEN (in a workflow: `env: GITHUB_TOKEN: "
        "${{ github.token }}`) or GH_TOKEN; contend reads the token from the environment "
        "only. The comment was not posted (print it without --post)."
    )


def target_from_env(
    repository: str | None = None,
    number: int | None = None,
    api_url: str | None = None,
    env: Mapping[str, str] | None = None,
) -> Target:
    """Where to post: the arguments, else the Actions environment."""
    env = os.environ if env is None else env
    repo = repository or env.get("GITHUB_REPOSITORY", "")
    if not _REPO.fullmatch(repo):
        raise UserError(
            f"which repository? {repo!r} is not OWNER/NAME: pass --repo OWNER/NAME "
            "(in Actions GITHUB_REPOSITORY says it)"
        )
    pr = number if number is not None else _pr_from_event(env.get("GITHUB_EVENT_PATH", ""))
    if pr is None or pr < 1:
        raise UserError(
            "which pull request? pass --pr N (in a pull_request workflow the event file "
            "GITHUB_EVENT_PATH names it)"
        )
    api = (api_url or env.get("GITHUB_API_URL") or DEFAULT_API).rstrip("/")
    if not api.startswith(("https://", "http://127.0.0.1", "http://localhost")):
        raise UserError(f"the GitHub API URL {api!r} must be https (or a loopback test server)")
    return Target(api, repo, pr)


def _pr_from_event(path: str) -> int | None:
    if not path:
        return None
    try:
        event = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise UserError(f"cannot read the workflow event file {path}: {exc}") from exc
    pr = event.get("pull_request") if isinstance(event, dict) else None
    number = pr.get("number") if isinstance(pr, dict) else None
    if number is None and isinstance(event, dict) and isinstance(event.get("issue"), dict):
        number = event["issue"].get("number") if "pull_request" in event["issue"] else None
    return number if isinstance(number, int) else None


def post_comment(
    body: str,
    marker_line: str,
    target: Target,
    token: str,
    *,
    transport: httpx2.BaseTransport | None = None,
    timeout_s: float = 30.0,
) -> Posted:
    """Update the comment whose first line is `marker_line`, else create one."""
    try:
        import httpx2
    except ImportError as exc:
        raise UserError("posting a PR comment needs httpx2: pip install 'contend[github]'") from exc
    headers = {
        "Authorization": f"Bearer {token}",
        "Accept": "application/vnd.github+json",
        "X-GitHub-Api-Version": "2022-11-28",
        "User-Agent": f"contend/{__version__}",
    }
    base = f"{target.api_url}/repos/{target.repository}"
    with httpx2.Client(headers=headers, timeout=timeout_s, transport=transport) as client:
        existing = _find(client, f"{base}/issues/{target.number}/comments", marker_line)
        if existing is not None:
            answer = _call(client, "PATCH", f"{base}/issues/comments/{existing}", body)
            action = "updated"
        else:
            answer = _call(client, "POST", f"{base}/issues/{target.number}/comments", body)
            action = "created"
    comment_id = answer.get("id")
    if not isinstance(comment_id, int):
        raise UserError(f"GitHub's answer to the comment {action} has no comment id: {answer}")
    return Posted(action, comment_id, str(answer.get("html_url", "")))


def _find(client: httpx2.Client, url: str, marker_line: str) -> int | None:
    next_url: str | None = f"{url}?per_page=100"
    for _ in range(MAX_PAGES):
        if next_url is None:
            return None
        response = _send(client, "GET", next_url)
        comments = response.json()
        if not isinstance(comments, list):
            raise UserError(f"GET {url}: GitHub answered {type(comments).__name__}, not a list")
        for comment in comments:
            text = comment.get("body") if isinstance(comment, dict) else None
            if isinstance(text, str) and text.split("\n", 1)[0].strip() == marker_line:
                found = comment.get("id")
                if isinstance(found, int):
                    return found
        link = _NEXT.search(response.headers.get("link", ""))
        next_url = link.group(1) if link else None
    raise UserError(f"GET {url}: more than {MAX_PAGES} pages of comments; not posted")


def _call(client: httpx2.Client, method: str, url: str, body: str) -> dict[str, Any]:
    answer = _send(client, method, url, {"body": body}).json()
    if not isinstance(answer, dict):
        raise UserError(f"{method} {url}: GitHub answered {type(answer).__name__}, not a comment")
    return answer


def _send(
    client: httpx2.Client, method: str, url: str, payload: dict[str, str] | None = None
) -> httpx2.Response:
    import httpx2

    try:
        response = client.request(method, url, json=payload)
    except httpx2.HTTPError as exc:
        raise UserError(f"{method} {url}: cannot reach GitHub: {exc}") from exc
    if response.status_code >= 400:
        raise UserError(
            f"{method} {url}: GitHub answered HTTP {response.status_code}: "
            f"{_message(response)}; the comment was not posted"
        )
    return response


def _message(response: httpx2.Response) -> str:
    try:
        data = response.json()
    except ValueError:
        return response.text[:200]
    if isinstance(data, dict) and isinstance(data.get("message"), str):
        return str(data["message"])
    return response.text[:200]
