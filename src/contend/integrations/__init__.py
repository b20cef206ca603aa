"""contend where its users already work, without changing the engine (DESIGN §7).

Every module here calls the engine only through its public entry points
(`contend.review.engine.review` with a `ReviewRequest`, the report model, the claims CLI's
`run_verify`, `contend.review.respond.answer`) and adds nothing to the protocol:

    runner       settings + request for one review, as `contend review` builds them
    events       the `--events FILE` JSON-lines stream and the in-process subscribers
                 (`contend.hooks` entry points), seed 004's subtask_* events included
    api          the typed Python API: `contend.review(...)`, `contend.verify(...)`
    github       workflow-command annotations (`--format github`) and the PR comment body
    github_post  posting / updating that comment through the GitHub REST API (httpx2)
    agent_hooks  `contend hook install/uninstall`: the Claude Code and Codex settings files
    stop_hook    `contend hook run`: what runs when a coding session stops
    quickdiff    the git-only look at the working tree that lets a trivial stop end in
                 milliseconds
    mcp_server   `contend mcp`: the MCP stdio server (extra `contend[mcp]`)
"""
