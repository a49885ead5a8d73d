"""The per-request GraphQL context: session, principal, loaders. The REST facade builds the
very same context, so both styles share everything after the door. A GraphQL WebSocket gets a
LiveContext instead: it lives for minutes, so it holds no session and authenticates from the
connection_init payload (browsers cannot set headers on a WebSocket)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Protocol

from sqlalchemy.ext.asyncio import async_sessionmaker
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.datastructures import State
from starlette.requests import HTTPConnection
from strawberry.fastapi import BaseContext

from app.core.auth import service as auth
from app.core.error_codes import ErrorCode
from app.core.errors import DomainError, Unauthenticated
from app.core.principal import Principal, RequestMeta
from app.core.settings import Settings

if TYPE_CHECKING:
    # for annotations only: the job machinery loads with the app (app/main.py), not with the schema
    from app.core.jobs.executors import CeleryExecutor, LocalPoolExecutor
    from app.graphql.loaders import Loaders


class Wakeable(Protocol):
    """A background loop's wake-up: the loop itself (Dispatcher, WebhookDispatcher), or with
    `tdg serve --workers N` a relay to the loop in the process running it (app/core/jobs/leader.py)."""

    def wake(self) -> None: ...


@dataclass(frozen=True)
class AppServices:
    """App-level collaborators, made once at start-up (app/main.py's lifespan) and handed to every
    request context. A context has none (None) when the app's lifespan has not run."""

    executor: LocalPoolExecutor | CeleryExecutor  # runs generation; also renders a format on demand
    dispatcher: Wakeable  # starts queued shards: woken once a dataset is queued
    webhooks: Wakeable | None = None  # delivers webhook events: woken by a redelivery


class Context(BaseContext):
    def __init__(
        self,
        *,
        session: AsyncSession,
        settings: Settings,
        meta: RequestMeta,
        principal: Principal | None,
        auth_error: DomainError | None,
        services: AppServices | None = None,
    ) -> None:
        super().__init__()
        self.session = session
        self.settings = settings
        self.meta = meta
        self._principal = principal
        self.auth_error = auth_error
        self.services = services
        self.post_commit: list[Callable[[], None]] = []

    def after_commit(self, callback: Callable[[], None]) -> None:
        """Run `callback` once the operation's changes are committed (e.g. wake the dispatcher)."""
        self.post_commit.append(callback)

    @property
    def principal(self) -> Principal:
        """The authenticated caller; raises Unauthenticated when there is none."""
        if self._principal is None:
            raise self.auth_error or Unauthenticated(
                "Authentication required: send 'Authorization: Bearer <token>'."
            )
        return self._principal

    @property
    def maybe_principal(self) -> Principal | None:
        return self._principal

    @cached_property
    def loaders(self) -> Loaders:
        from app.graphql.loaders import Loaders

        return Loaders(self.session, self.principal, self.settings)


class LiveContext(BaseContext):
    """The context of one GraphQL WebSocket connection, shared by its subscriptions. Each poll of
    a subscription opens its own short session and re-authenticates the token through it."""

    session = None  # nothing for the unit of work to commit

    def __init__(
        self,
        *,
        sessionmaker: async_sessionmaker[AsyncSession],
        settings: Settings,
        meta: RequestMeta,
        header_token: str | None,
        services: AppServices | None = None,
    ) -> None:
        super().__init__()
        self.sessionmaker = sessionmaker
        self.settings = settings
        self.meta = meta
        self.services = services
        self.header_token = header_token
        self.token: str | None = None

    async def connect(self) -> Principal:
        """At connection_init: take the token from the payload's `authorization` ("Bearer <token>"),
        else from the Authorization header, and check it once."""
        params = self.connection_params if isinstance(self.connection_params, dict) else {}
        raw = next((v for k, v in params.items() if k.lower() == "authorization"), None)
        token = _bearer(raw) if isinstance(raw, str) else self.header_token
        if not token:
            raise Unauthenticated(
                'Authentication required: send {"authorization": "Bearer <token>"} '
                "in the connection_init payload."
            )
        self.token = token
        async with self.sessionmaker() as session:
            principal = await self.authenticate(session)
            await session.commit()
        return principal

    async def authenticate(self, session: AsyncSession) -> Principal:
        """The caller as the database says now (deactivation, revocation, role changes count)."""
        if not self.token:
            raise Unauthenticated("The connection was not authenticated.")
        return await auth.authenticate(session, self.settings, self.token, ip=self.meta.ip)


def client_ip(request: HTTPConnection) -> str | None:
    return request.client.host if request.client else None


def _bearer(header: str) -> str:
    scheme, _, token = header.partition(" ")
    return token.strip() if scheme.lower() == "bearer" and token.strip() else ""


def app_services(state: State) -> AppServices | None:
    """What the lifespan set as `app.state.services`: None before start-up."""
    services = getattr(state, "services", None)
    return services if isinstance(services, AppServices) else None


def bearer_token(request: HTTPConnection) -> str | None:
    header = request.headers.get("authorization")
    return _bearer(header) if header else None


async def open_context(request: HTTPConnection) -> AsyncIterator[Context | LiveContext]:
    """FastAPI dependency used by /graphql (HTTP and WebSocket) and the REST download door."""
    state = request.app.state
    if request.scope["type"] == "websocket":
        yield LiveContext(
            sessionmaker=state.sessionmaker,
            settings=state.settings,
            meta=RequestMeta(ip=client_ip(request)),
            header_token=bearer_token(request),
            services=app_services(state),
        )
        return
    async with request_context(request) as context:
        yield context


@asynccontextmanager
async def request_context(request: HTTPConnection) -> AsyncIterator[Context]:
    """The context of one HTTP request; its session closes when the block ends. The REST facade
    enters it itself: as a FastAPI dependency it cost a REST request ~0.1 ms of CPU (dependency
    solving and a shielded exit) for the same session and principal."""
    state = request.app.state
    settings: Settings = state.settings
    meta = RequestMeta(ip=client_ip(request))
    async with state.sessionmaker() as session:
        principal: Principal | None = None
        error: DomainError | None = None
        token = bearer_token(request)
        if token is not None:
            if token == "":
                error = Unauthenticated(
                    "The Authorization header must be 'Bearer <token>'.", code=ErrorCode.TOKEN_INVALID
                )
            else:
                try:
                    principal = await auth.authenticate(session, settings, token, ip=meta.ip)
                except DomainError as exc:
                    error = exc
        yield Context(
            session=session,
            settings=settings,
            meta=meta,
            principal=principal,
            auth_error=error,
            services=app_services(state),
        )
