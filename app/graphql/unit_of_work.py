"""One commit point per operation: commit when the operation succeeded, roll back otherwise
(except rows a service explicitly keeps, such as failed-login records)."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator

from graphql import GraphQLError
from sqlalchemy.exc import IntegrityError
from strawberry.extensions import SchemaExtension

from app.core.errors import Conflict
from app.core.services.audit import COMMIT_DESPITE_ERROR
from app.graphql.context import Context

log = logging.getLogger("tdg.graphql")


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
            conflict = isinstance(exc, IntegrityError)
            if not conflict:
                log.exception("commit failed")
            detail = (
                "The change conflicts with existing data." if conflict else "The change could not be saved."
            )
            extensions = {"code": "conflict" if conflict else "internal", "status": 409 if conflict else 500}
            if result is not None:
                result.data = None
                result.errors = [
                    GraphQLError(
                        detail, original_error=Conflict(detail) if conflict else None, extensions=extensions
                    )
                ]
            return
        for callback in context.post_commit:
            callback()
