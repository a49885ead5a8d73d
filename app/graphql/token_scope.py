"""Every query reads: a scoped API token needs `read` in its scope for one (authz.require_read).
Mutations are checked by the services they call, subscriptions by each of their polls."""

from __future__ import annotations

from collections.abc import Iterator

from graphql import ExecutionResult, GraphQLError
from strawberry.extensions import SchemaExtension
from strawberry.types.graphql import OperationType

from app.core.authz import require_read
from app.core.errors import Forbidden
from app.graphql.context import Context


class ReadScope(SchemaExtension):
    def on_execute(self) -> Iterator[None]:
        ctx = self.execution_context
        context = ctx.context
        principal = context.maybe_principal if isinstance(context, Context) else None
        if principal is not None and ctx.operation_type is OperationType.QUERY:
            try:
                require_read(principal)
            except Forbidden as refused:
                # a result set here is the answer: nothing executes, and DomainErrors formats the
                # error as a resolver's (an exception raised here would lose its code and status)
                ctx.result = ExecutionResult(None, [GraphQLError(refused.detail, original_error=refused)])
        yield
