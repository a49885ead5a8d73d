"""One commit point per operation: commit when the operation succeeded, roll back otherwise
(except rows a service explicitly keeps, such as failed-login records)."""

from __future__ import annotations

from collections.abc import AsyncIterator

from strawberry.extensions import SchemaExtension

from app.core.services.audit import COMMIT_DESPITE_ERROR


class UnitOfWork(SchemaExtension):
    async def on_operation(self) -> AsyncIterator[None]:  # type: ignore[override]
        yield
        context = self.execution_context.context
        session = getattr(context, "session", None)
        if session is None:
            return
        result = self.execution_context.result
        failed = bool(result is None or getattr(result, "errors", None))
        if failed and not session.info.pop(COMMIT_DESPITE_ERROR, False):
            await session.rollback()
            return
        await session.commit()
        for callback in getattr(context, "post_commit", ()):
            callback()
