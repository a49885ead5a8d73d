"""The `tdg` command: serve, migrate, user administration, and offline generation.

Each command imports what it needs when it runs: `tdg generate` and `tdg --help` never load the
settings, database or server machinery, and `tdg serve` never loads the generation engine (its
worker processes generate). tests/generation/test_generate_imports.py holds both to that."""

from __future__ import annotations

import logging
import sys
from typing import TYPE_CHECKING, Any

import typer
from typer._click.core import Context  # typer carries its own click (0.29): its commands take this
from typer.core import TyperCommand, TyperGroup, TyperOption

from app.generation.cli import fast_path
from app.generation.cli import register as register_generate

if TYPE_CHECKING:
    from app.core.settings import Settings


def _untyped_help(option: TyperOption | None) -> TyperOption | None:
    # typer's help shows each option's type, and `--help` is a flag: it showed `<bool>`, as if it
    # took a value. A metavar is shown in place of the type; an empty one shows nothing.
    if option is not None:
        option.metavar = ""
    return option


class _Command(TyperCommand):
    def get_help_option(self, ctx: Context) -> TyperOption | None:
        return _untyped_help(super().get_help_option(ctx))


class _Group(TyperGroup):
    def get_help_option(self, ctx: Context) -> TyperOption | None:
        return _untyped_help(super().get_help_option(ctx))


class _Typer(typer.Typer):
    """A Typer whose commands and groups show `--help` without a type."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(cls=_Group, **kwargs)

    def command(self, *args: Any, **kwargs: Any) -> Any:
        kwargs.setdefault("cls", _Command)
        return super().command(*args, **kwargs)


class _Cli(_Typer):
    """`tdg`. A plainly valid `tdg generate` command line is run without typer's option parsing
    (app.generation.cli.fast_path: typer's pydantic-based parsing would take longer than a small
    run); everything else, and any call with explicit arguments, is typer's."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if not args and not kwargs:
            status = fast_path(sys.argv[1:])
            if status is not None:
                sys.exit(status)
        return super().__call__(*args, **kwargs)


app = _Cli(help="Test Data Generation Service", no_args_is_help=True, add_completion=False)
user_app = _Typer(help="Manage users from the shell.", no_args_is_help=True)
app.add_typer(user_app, name="user")


@app.command()
def serve(
    host: str = typer.Option("127.0.0.1", help="Interface to bind"),
    port: int = typer.Option(8000, help="Port to listen on"),
    log_level: str = typer.Option("info", help="uvicorn log level"),
    workers: int = typer.Option(
        1, min=1, help="Server processes (the dataset dispatcher, webhooks and retention run in one of them)"
    ),
    header_timeout: float | None = typer.Option(
        None,
        min=0.001,
        help="Seconds a request's line and headers may take [TDG_HTTP_HEADER_TIMEOUT_SECONDS]",
    ),
    keep_alive: int | None = typer.Option(
        None, min=1, help="Seconds an idle keep-alive connection stays open [TDG_HTTP_KEEP_ALIVE_SECONDS]"
    ),
    max_connections: int | None = typer.Option(
        None, min=1, help="Open connections (per process) before new ones get 503 [TDG_HTTP_MAX_CONNECTIONS]"
    ),
) -> None:
    """Run the service (migrations are applied at start-up)."""
    from app.core.settings import get_settings
    from app.serving import ConnectionLimits, ServeConfig, run, tune_allocator

    tune_allocator()  # before the app's threads exist
    from app.main import serve_target

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    settings = serve_settings(get_settings(), host, port)
    limits = ConnectionLimits.of(settings, header_timeout, keep_alive, max_connections)
    from app.first_start import announce_when_listening

    assert settings.public_url is not None  # serve_settings set it
    announce_when_listening(host, port, settings.public_url)
    with serve_target(settings, workers) as (target, options):
        run(
            ServeConfig(
                target, limits, host=host, port=port, log_level=log_level, proxy_headers=False, **options
            )
        )


def listen_url(host: str, port: int) -> str:
    """http://HOST:PORT of the address `tdg serve` binds; for every interface, this machine's name."""
    import socket

    if host in ("", "0.0.0.0", "::"):
        host = socket.gethostname() or "127.0.0.1"
    if ":" in host:
        host = f"[{host}]"
    return f"http://{host}:{port}"


def serve_settings(settings: Settings, host: str, port: int) -> Settings:
    """The server's settings: TDG_PUBLIC_URL when set, else the address it listens on."""
    if settings.public_url:
        return settings
    return settings.model_copy(update={"public_url": listen_url(host, port)})


@app.command()
def migrate() -> None:
    """Apply database migrations to TDG_DATABASE_URL."""
    from app.core.migrate import upgrade
    from app.core.settings import get_settings

    upgrade(get_settings().database_url)
    typer.echo("Database is up to date.")


@app.command()
def worker(
    concurrency: int | None = typer.Option(None, help="Worker processes (default TDG_WORKERS)"),
    name: str | None = typer.Option(None, help="Worker node name (default tdg-<pid>@<host>)"),
    loglevel: str = typer.Option("INFO", help="Celery log level"),
) -> None:
    """Run a Celery generation worker (needs TDG_BROKER_URL; shares the database and the store).
    Webhooks are delivered by `tdg serve`, which always runs the delivery dispatcher."""
    import os

    from app.core.jobs.celery_app import celery_for
    from app.core.settings import get_settings

    settings = get_settings()
    if not settings.broker_url:
        typer.echo(
            "error: TDG_BROKER_URL is not set; `tdg serve` generates with its local process pool.", err=True
        )
        raise typer.Exit(code=2)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    celery = celery_for(settings)
    if settings.warm_pool:
        from app.core.jobs.worker_run import warm_up

        warm_up()  # once, before the prefork pool forks: every child starts warm
    celery.worker_main(
        [
            "worker",
            "-Q",
            "tdg",
            f"--concurrency={concurrency or settings.workers}",
            f"--loglevel={loglevel}",
            "-n",
            name or f"tdg-{os.getpid()}@%h",
            "--without-gossip",
            "--without-mingle",
        ]
    )


@user_app.command("create")
def user_create(
    username: str = typer.Argument(..., help="Login name"),
    password: str = typer.Option(..., prompt=True, hide_input=True, help="At least 8 characters"),
    role: str = typer.Option("Tester", help="Tester, Manager, Admin or SuperUser"),
    email: str | None = typer.Option(None, help="Email address"),
    tenant: str = typer.Option("default", help="Tenant name"),
) -> None:
    """Create an active user in a tenant."""
    import asyncio

    from app.core.settings import get_settings
    from app.core.shell_admin import create_user

    try:
        user_id = asyncio.run(
            create_user(
                get_settings(),
                username=username,
                password=password,
                role=role,
                email=email,
                tenant_name=tenant,
            )
        )
    except ValueError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(code=2) from None
    typer.echo(f"Created user {username} (id {user_id}, role {role}, tenant {tenant}).")


@user_app.command("reset-password")
def user_reset_password(
    username: str = typer.Argument(..., help="Login name"),
    generate: bool = typer.Option(
        False, "--generate", help="Set a random password and print it (instead of asking for one)"
    ),
) -> None:
    """Set a new password for a user (the way back in for a lost admin password). It is asked for
    twice, hidden, at a terminal; read from the first line of standard input when piped; or
    drawn with --generate. The user's earlier sessions stop working; the change is audit-logged."""
    import asyncio
    import secrets

    from app.core.settings import get_settings
    from app.core.shell_admin import reset_password

    if generate:
        password = secrets.token_urlsafe(12)
    elif sys.stdin.isatty():
        password = typer.prompt("New password", hide_input=True, confirmation_prompt=True)
    else:
        password = sys.stdin.readline().rstrip("\r\n")
        if not password:
            typer.echo("error: no password on standard input (or use --generate).", err=True)
            raise typer.Exit(code=2)
    try:
        asyncio.run(reset_password(get_settings(), username=username, password=password))
    except ValueError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(code=2) from None
    typer.echo(f"Password of {username} reset; their earlier sessions were signed out.", err=True)
    if generate:
        typer.echo(password)


register_generate(app)  # light: the engine is imported when `tdg generate` runs
