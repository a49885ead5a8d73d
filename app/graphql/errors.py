"""Domain errors -> GraphQL errors with `extensions.code` (app/core/error_codes.py),
`extensions.status` and, for an error about one input, `extensions.field` (its path in the
operation's input, as the REST body's `field`); anything unexpected is masked (logged with its
traceback, never sent).

Every error also carries `extensions.classification`, whose fault it is in the vocabulary generic
GraphQL clients and tools read (graphql-java's for a document refused before execution, Spring for
GraphQL's ErrorType for a resolver's): ValidationError, BAD_REQUEST, UNAUTHORIZED, FORBIDDEN,
NOT_FOUND, INTERNAL_ERROR. `code` stays the service's own, finer vocabulary."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Iterator
from typing import Any

from graphql import GraphQLError
from graphql.execution import SubsequentIncrementalExecutionResult
from pydantic import ValidationError
from sqlalchemy.exc import DBAPIError, IntegrityError
from sqlalchemy.exc import TimeoutError as PoolTimeout
from strawberry.extensions import SchemaExtension
from strawberry.types import StreamExecutionResult
from strawberry.types.execution import PreExecutionError

from app.core.database import unreachable
from app.core.errors import Busy, Conflict, DatabaseUnavailable, DomainError
from app.core.validation import from_pydantic

log = logging.getLogger("tdg.graphql")

GRAPHQL_PATH = "/graphql"  # the door: app/main.py mounts the router there


def domain_error_of(error: GraphQLError) -> DomainError | None:
    original = error.original_error
    if isinstance(original, DomainError):
        return original
    if isinstance(original, ValidationError):
        return from_pydantic(original)
    if isinstance(original, IntegrityError):
        return Conflict("The change conflicts with existing data.")
    if isinstance(original, PoolTimeout):
        return Busy()
    if isinstance(original, DBAPIError) and unreachable(original):
        return DatabaseUnavailable()
    return None


def classification(status: int) -> str:
    """Spring for GraphQL's ErrorType of a domain error's HTTP status."""
    if status >= 500:
        return "INTERNAL_ERROR"
    return {401: "UNAUTHORIZED", 403: "FORBIDDEN", 404: "NOT_FOUND"}.get(status, "BAD_REQUEST")


def extensions_of(
    code: str,
    status: int,
    *,
    field: str | None = None,
    errors: list[dict[str, Any]] | None = None,
    retry_after: int | None = None,
) -> dict[str, Any]:
    """An error's `extensions`: code, status, classification, and field, errors, retry_after when
    there are any."""
    extensions: dict[str, Any] = {"code": code, "status": status, "classification": classification(status)}
    if field:
        extensions["field"] = field
    if errors:
        extensions["errors"] = errors
    if retry_after is not None:
        extensions["retry_after"] = retry_after
    return extensions


def transport_error(
    message: str,
    code: str,
    status: int,
    *,
    field: str | None = None,
    errors: list[dict[str, Any]] | None = None,
    retry_after: int | None = None,
) -> dict[str, Any]:
    """The GraphQL response of a request refused before any operation ran (a body that is not
    JSON, no query, the database not reachable): one error, shaped as an operation's are."""
    extensions = extensions_of(code, status, field=field, errors=errors, retry_after=retry_after)
    return {"errors": [{"message": message, "extensions": extensions}]}


class DomainErrors(SchemaExtension):
    async def on_operation(self) -> AsyncIterator[None]:
        yield
        result = self.execution_context.result
        if result is None or not result.errors:
            return
        result.errors = [self._format(e) for e in result.errors]

    def on_stream_result(self, result: StreamExecutionResult) -> Iterator[None]:
        # WebSocket operations: each result is shaped before it is sent. After the first result, an
        # error without a path is an exception that ended a subscription's stream: not the request's fault.
        # A subsequent incremental result carries its errors inside `incremental`, not at the top.
        if not isinstance(result, SubsequentIncrementalExecutionResult) and result.errors:
            streamed = not isinstance(result, PreExecutionError)
            result.errors = [self._format(e, streamed=streamed) for e in result.errors]
        yield

    @staticmethod
    def _format(error: GraphQLError, *, streamed: bool = False) -> GraphQLError:
        domain = domain_error_of(error)
        if domain is not None:
            extensions = extensions_of(
                domain.code,
                domain.status,
                field=domain.field,
                errors=domain.errors,
                retry_after=domain.retry_after,
            )
            return GraphQLError(
                domain.detail,
                error.nodes,
                error.source,
                error.positions,
                error.path,
                original_error=domain,
                extensions=extensions,
            )
        if error.original_error is None or not (error.path or streamed):
            # parse / validation errors of the document, variable coercion: the request's fault
            return GraphQLError(
                error.message,
                error.nodes,
                error.source,
                error.positions,
                error.path,
                extensions={
                    "code": "graphql_validation",
                    "status": 400,
                    "classification": "ValidationError",
                },
            )
        log.error("Unexpected error in GraphQL operation", exc_info=error.original_error)
        return GraphQLError(
            "Internal server error.",
            error.nodes,
            error.source,
            error.positions,
            error.path,
            extensions={"code": "internal", "status": 500, "classification": "INTERNAL_ERROR"},
        )
