"""The Strawberry schema: the single API; REST is a facade over it."""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache
from typing import Any

import strawberry
from graphql import GraphQLError, NoSchemaIntrospectionCustomRule
from strawberry.extensions import (
    AddValidationRules,
    MaxAliasesLimiter,
    MaxTokensLimiter,
    ParserCache,
    QueryDepthLimiter,
    ValidationCache,
)
from strawberry.schema.config import StrawberryConfig
from strawberry.schema.schema import DEFAULT_ALLOWED_OPERATION_TYPES
from strawberry.tools import merge_types
from strawberry.types import ExecutionResult
from strawberry.types.graphql import OperationType

from app.core.settings import Settings
from app.graphql.analytics.queries import AnalyticsQuery
from app.graphql.auth.mutations import ApiTokenMutation, SignInMutation
from app.graphql.auth.queries import AuthQuery
from app.graphql.datasets.downloads import DownloadMutation
from app.graphql.datasets.mutations import DatasetMutation
from app.graphql.datasets.queries import DatasetPlanQuery, DatasetQuery
from app.graphql.errors import DomainErrors
from app.graphql.execution import FastLeafExecutionContext
from app.graphql.integrations.mutations import IntegrationsMutation
from app.graphql.integrations.queries import IntegrationsQuery
from app.graphql.library.mutations import LibraryMutation
from app.graphql.library.queries import LibraryQuery
from app.graphql.notifications.mutations import NotificationsMutation
from app.graphql.notifications.queries import NotificationsQuery
from app.graphql.projects.mutations import ProjectsMutation
from app.graphql.projects.queries import ProjectsQuery
from app.graphql.subscriptions import SocketOperations, Subscription
from app.graphql.tenants.mutations import TenantsMutation
from app.graphql.tenants.queries import TenantsQuery
from app.graphql.token_scope import ReadScope
from app.graphql.unit_of_work import UnitOfWork
from app.graphql.users.account import AccountMutation, AccountQuery
from app.graphql.users.mutations import UsersMutation
from app.graphql.users.queries import UsersQuery

# The root types of the domain packages, merged in this order: a root field's place in the
# published SDL (docs/schema.graphql, which the contract test compares byte for byte) is its
# place here, so a domain whose fields are not contiguous there has more than one class.
QUERY_ROOTS = (
    UsersQuery,
    ProjectsQuery,
    TenantsQuery,
    AuthQuery,
    LibraryQuery,
    DatasetQuery,
    NotificationsQuery,
    AccountQuery,
    IntegrationsQuery,
    DatasetPlanQuery,
    AnalyticsQuery,
)
MUTATION_ROOTS = (
    SignInMutation,
    UsersMutation,
    TenantsMutation,
    ProjectsMutation,
    ApiTokenMutation,
    LibraryMutation,
    DatasetMutation,
    NotificationsMutation,
    AccountMutation,
    IntegrationsMutation,
    DownloadMutation,
)


class AppSchema(strawberry.Schema):
    async def execute(
        self,
        query: str | None,
        variable_values: dict[str, Any] | None = None,
        context_value: Any | None = None,
        root_value: Any | None = None,
        operation_name: str | None = None,
        allowed_operation_types: Iterable[OperationType] | None = None,
        operation_extensions: dict[str, Any] | None = None,
    ) -> ExecutionResult:
        # a subscription runs over the WebSocket only: executed once over HTTP it has no event to resolve
        allowed = set(allowed_operation_types or DEFAULT_ALLOWED_OPERATION_TYPES) - {
            OperationType.SUBSCRIPTION
        }
        return await super().execute(
            query, variable_values, context_value, root_value, operation_name, allowed, operation_extensions
        )

    def process_errors(self, errors: list[GraphQLError], execution_context: Any = None) -> None:
        # DomainErrors logs the unexpected ones with their traceback; domain errors are answers, not incidents
        return None


def build_schema(settings: Settings) -> strawberry.Schema:
    """The schema for these settings; built once per distinct set of limits, since a schema is
    stateless across requests and building it (and validating the REST operations against it)
    is most of an app's start-up."""
    return _build_schema(
        settings.graphql_max_depth,
        settings.graphql_max_aliases,
        settings.graphql_max_tokens,
        settings.graphql_introspection and not settings.is_production,
    )


@lru_cache(maxsize=8)
def _build_schema(
    max_depth: int, max_aliases: int, max_tokens: int, introspection: bool
) -> strawberry.Schema:
    # Validation rules are built once: a fresh rule class per request would defeat the
    # ValidationCache (its key includes the rules), re-validating every stored REST operation.
    rules = [
        *QueryDepthLimiter(max_depth=max_depth).validation_rules,
        *MaxAliasesLimiter(max_alias_count=max_aliases).validation_rules,
    ]
    if not introspection:
        rules.append(NoSchemaIntrospectionCustomRule)
    extensions: list = [
        lambda: AddValidationRules(rules),
        lambda: MaxTokensLimiter(max_token_count=max_tokens),
        lambda: ParserCache(maxsize=512),
        lambda: ValidationCache(maxsize=512),
        UnitOfWork,
        DomainErrors,
        SocketOperations,
        ReadScope,
    ]
    return AppSchema(
        query=merge_types("Query", QUERY_ROOTS),
        mutation=merge_types("Mutation", MUTATION_ROOTS),
        subscription=Subscription,
        config=StrawberryConfig(auto_camel_case=False),
        extensions=extensions,
        execution_context_class=FastLeafExecutionContext,
    )
