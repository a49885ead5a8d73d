"""Root mutations of integrations: create, update, delete, test, redeliver a webhook, export a
dataset's files to an object store."""

from __future__ import annotations

import strawberry
from strawberry.experimental.pydantic import input as pydantic_input
from strawberry.scalars import JSON
from strawberry.types import Info

from app.core.integrations import deliveries as webhooks
from app.core.integrations import object_export
from app.core.integrations import payloads as integrations_payloads
from app.core.integrations import service as integrations
from app.core.integrations.models import Integration as IntegrationRow
from app.graphql.common import DeleteResult
from app.graphql.context import Context
from app.graphql.inputs import to_payload
from app.graphql.integrations.types import (
    ConnectionCheck,
    Integration,
    IntegrationSaved,
    ObjectExport,
    WebhookDelivery,
)


@pydantic_input(model=integrations_payloads.IntegrationCreate, all_fields=True)
class IntegrationCreateInput:
    provider: str = strawberry.field(description="webhook or s3")
    config: JSON = strawberry.field(description="Provider fields, see integration_providers")
    events: list[str] | None = None


@pydantic_input(model=integrations_payloads.IntegrationUpdate, all_fields=True)
class IntegrationUpdateInput:
    config: JSON | None = None
    events: list[str] | None = None


@pydantic_input(model=integrations_payloads.ObjectExportCreate, all_fields=True)
class ObjectExportInput:
    pass


def _saved(row: IntegrationRow, secret: str | None) -> IntegrationSaved:
    return IntegrationSaved(**vars(Integration.from_row(row)), signing_secret=secret)


@strawberry.type
class IntegrationsMutation:
    @strawberry.mutation(
        description="Create an integration (Admin); a webhook's signing secret is returned once."
    )
    async def create_integration(
        self, info: Info[Context, None], input: IntegrationCreateInput
    ) -> IntegrationSaved:
        ctx = info.context
        row, secret = await integrations.create(
            ctx.session, ctx.principal, ctx.settings, to_payload(integrations_payloads.IntegrationCreate, input)
        )
        return _saved(row, secret)

    @strawberry.mutation(description="Update an integration (Admin); omitted secrets are kept.")
    async def update_integration(
        self, info: Info[Context, None], integration_id: int, input: IntegrationUpdateInput
    ) -> IntegrationSaved:
        ctx = info.context
        row, secret = await integrations.update(
            ctx.session,
            ctx.principal,
            ctx.settings,
            integration_id,
            to_payload(integrations_payloads.IntegrationUpdate, input),
        )
        return _saved(row, secret)

    @strawberry.mutation(description="Remove an integration and its delivery log (Admin).")
    async def delete_integration(self, info: Info[Context, None], integration_id: int) -> DeleteResult:
        ctx = info.context
        await integrations.delete(ctx.session, ctx.principal, integration_id)
        return DeleteResult(deleted=True, id=integration_id)

    @strawberry.mutation(
        description="Really connect: a signed ping to a webhook, a bucket check for s3 (Admin)."
    )
    async def test_integration(self, info: Info[Context, None], integration_id: int) -> ConnectionCheck:
        ctx = info.context
        outcome = await integrations.check_connection(
            ctx.session, ctx.principal, ctx.settings, integration_id
        )
        return ConnectionCheck.from_outcome(outcome)

    @strawberry.mutation(description="Queue an event again with the same webhook-id (Admin).")
    async def redeliver_webhook(
        self, info: Info[Context, None], integration_id: int, delivery_id: int
    ) -> WebhookDelivery:
        ctx = info.context
        row, attempts = await webhooks.redeliver(ctx.session, ctx.principal, integration_id, delivery_id)
        dispatcher = ctx.services.webhooks if ctx.services is not None else None
        if dispatcher is not None:
            ctx.after_commit(dispatcher.wake)
        return WebhookDelivery.from_row(row, attempts)

    @strawberry.mutation(description="Upload a completed dataset's files to an s3 integration.")
    async def export_dataset_objectstore(
        self, info: Info[Context, None], dataset_id: int, input: ObjectExportInput
    ) -> ObjectExport:
        ctx = info.context
        renderer = ctx.services.executor if ctx.services is not None else None
        row = await object_export.export(
            ctx.session,
            ctx.principal,
            ctx.settings,
            renderer,
            dataset_id,
            to_payload(integrations_payloads.ObjectExportCreate, input),
        )
        return ObjectExport.from_row(row)
