"""The per-request GraphQL context: session, principal, loaders. The REST facade builds the
very same context, so both styles share everything after the door."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from functools import cached_property
from typing import Any

from fastapi import Request
from sqlmodel.ext.asyncio.session import AsyncSession
from strawberry.fastapi import BaseContext

from app.core.errors import DomainError, Unauthenticated
from app.core.principal import Principal, RequestMeta
from app.core.services import auth
from app.core.settings import Settings


class Context(BaseContext):
    def __init__(
        self, *, session: AsyncSession, settings: Settings, meta: RequestMeta,
        principal: Principal | None, auth_error: DomainError | None, services: Any = None,
    ) -> None:
        super().__init__()
        self.session = session
        self.settings = settings
        self.meta = meta
        self._principal = principal
        self.auth_error = auth_error
        self.services = services  # app-level collaborators (job runner, storage) set at start-up
        self.post_commit: list[Callable[[], None]] = []

    def after_commit(self, callback: Callable[[], None]) -> None:
        """Run `callback` once the operation's changes are committed (e.g. wake the dispatcher)."""
        self.post_commit.append(callback)

    @property
    def principal(self) -> Principal:
        """The authenticated caller; raises Unauthenticated when there is none."""
        if self._principal is None:
            raise self.auth_error or Unauthenticated("Authentication required: send 'Authorization: Bearer <token>'.")
        return self._principal

    @property
    def maybe_principal(self) -> Principal | None:
        return self._principal

    @cached_property
    def loaders(self) -> Any:
        from app.graphql.loaders import Loaders

        return Loaders(self.session, self.principal)


def client_ip(request: Request) -> str | None:
    return request.client.host if request.client else None


def bearer_token(request: Request) -> str | None:
    header = request.headers.get("authorization")
    if not header:
        return None
    scheme, _, token = header.partition(" ")
    return token.strip() if scheme.lower() == "bearer" and token.strip() else ""


async def open_context(request: Request) -> AsyncIterator[Context]:
    """FastAPI dependency used by /graphql and by every REST route."""
    state = request.app.state
    settings: Settings = state.settings
    meta = RequestMeta(ip=client_ip(request))
    async with state.sessionmaker() as session:
        principal: Principal | None = None
        error: DomainError | None = None
        token = bearer_token(request)
        if token is not None:
            if token == "":
                error = Unauthenticated("The Authorization header must be 'Bearer <token>'.")
            else:
                try:
                    principal = await auth.authenticate(session, settings, token, ip=meta.ip)
                except DomainError as exc:
                    error = exc
        yield Context(
            session=session, settings=settings, meta=meta, principal=principal, auth_error=error,
            services=getattr(state, "services", None),
        )
