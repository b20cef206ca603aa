"""`contend serve`: the local web page where a person reads disputes and decides them."""

from __future__ import annotations

import errno
import ipaddress
import socket
import webbrowser
from pathlib import Path

import click

from contend.errors import UserError

EXPOSE_FLAG = "--i-know-this-is-exposed"


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def bind(host: str, port: int) -> socket.socket:
    """The listening socket, or one clear error (a second `serve` on the same port)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.bind((host, port))
        sock.listen(64)
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE:
            raise UserError(
                f"port {port} on {host} is already in use (another `contend serve`?): stop it, "
                "or choose another with --port"
            ) from exc
        raise UserError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from exc
    sock.set_inheritable(True)
    return sock


@click.command("serve")
@click.option(
    "-C", "path", type=click.Path(path_type=Path), default=".", help="Repository (default: here)."
)
@click.option("--port", type=click.IntRange(0, 65535), default=8765, show_default=True)
@click.option(
    "--host",
    default="127.0.0.1",
    show_default=True,
    help=f"Address to listen on; anything but loopback needs {EXPOSE_FLAG}.",
)
@click.option(
    "--i-know-this-is-exposed",
    "exposed",
    is_flag=True,
    help="Allow a non-loopback --host: anyone who can reach it and learns the URL can decide.",
)
@click.option("--open", "open_browser", is_flag=True, help="Open the page in your browser.")
@click.option(
    "--state-dir",
    type=click.Path(path_type=Path, file_okay=False),
    default=None,
    help="Serve the runs of this state directory (e.g. where `contend verify` keeps claim "
    "runs) instead of this repository's.",
)
def serve(
    path: Path,
    port: int,
    host: str,
    exposed: bool,
    open_browser: bool,
    state_dir: Path | None,
) -> int:
    """A local web page: runs, disputes ranked by contention, evidence side by side, and
    your decisions (uphold, overrule, waive — each with a note) appended to the ledger.

    Listens on 127.0.0.1 only, and prints an address carrying a random access token; the
    first visit turns it into an HttpOnly cookie. Every page and request needs it. Ctrl-C
    stops the server.
    """
    from contend.config import load_settings
    from contend.errors import NotAGitRepository
    from contend.gitio.git import repo_root
    from contend.review.state_dir import open_state_dir
    from contend.web.app import ServeConfig, server
    from contend.web.security import Access

    if not is_loopback(host):
        if not exposed:
            raise UserError(
                f"--host {host} is not a loopback address: the page would be reachable from "
                f"other machines; pass {EXPOSE_FLAG} if you mean it"
            )
        click.echo(
            f"contend: WARNING: serving on {host}, reachable beyond this machine; anyone "
            "with the printed address can read runs and record decisions",
            err=True,
        )
    try:
        root: Path | None = repo_root(path)
    except NotAGitRepository:
        if state_dir is None:
            raise
        root = None
    settings = load_settings(root)
    if state_dir is None:
        assert root is not None
        served = open_state_dir(root, settings)
    else:
        if not state_dir.is_dir():
            raise UserError(f"--state-dir {state_dir}: no such directory")
        served = state_dir.resolve()
    sock = bind(host, port)
    actual = sock.getsockname()[1]
    access = Access.new(host, actual)
    config = ServeConfig(served, root, settings, access)
    shown = f"[{host}]" if ":" in host else host
    url = f"http://{shown}:{actual}/?token={access.token}"
    click.echo(f"contend serve: {served}")
    click.echo(f"open {url}")
    click.echo("Ctrl-C stops the server.")
    if open_browser:
        webbrowser.open(url)
    server(config, timeout_graceful_shutdown=2).run(sockets=[sock])
    return 0
