"""One commit point per operation: commit when the operation succeeded, roll back otherwise
(except rows a service explicitly keeps, such as failed-login records)."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator

from graphql import GraphQLError
from sqlalchemy.exc import DBAPIError, IntegrityError
from strawberry.extensions import SchemaExtension

from app.core.database import unreachable
from app.core.errors import Conflict, DatabaseUnavailable, DomainError
from app.core.services.audit import COMMIT_DESPITE_ERROR
from app.graphql.context import Context
from app.graphql.errors import extensions_of

log = logging.getLogger("tdg.graphql")


def _commit_error(exc: Exception) -> GraphQLError:
    """The operation's one error when its commit failed: a conflict, the database gone (503, to
    retry), or masked."""
    domain: DomainError | None = None
    if isinstance(exc, IntegrityError):
        domain = Conflict("The change conflicts with existing data.")
    elif isinstance(exc, DBAPIError) and unreachable(exc):
        domain = DatabaseUnavailable()
    if domain is None:
        log.exception("commit failed")
        return GraphQLError(
            "The change could not be saved.",
            extensions={"code": "internal", "status": 500, "classification": "INTERNAL_ERROR"},
        )
    extensions = extensions_of(domain.code, domain.status, retry_after=domain.retry_after)
    return GraphQLError(domain.detail, original_error=domain, extensions=extensions)


class UnitOfWork(SchemaExtension):
    async def on_operation(self) -> AsyncIterator[None]:
        yield
        context = self.execution_context.context
        if not isinstance(context, Context):
            return  # a WebSocket's LiveContext holds no session: each poll commits its own
        session = context.session
        result = self.execution_context.result
        failed = bool(result is None or result.errors)
        if failed and not session.info.pop(COMMIT_DESPITE_ERROR, False):
            await session.rollback()
            return
        try:
            await session.commit()
        except Exception as exc:
            # never let driver text (SQL, parameters) reach the client
            await session.rollback()
            if result is not None:
                result.data = None
                result.errors = [_commit_error(exc)]
            return
        for callback in context.post_commit:
            callback()
