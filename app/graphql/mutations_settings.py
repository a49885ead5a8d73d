"""Root mutations of the caller's settings, two-factor, integrations and object exports."""

from __future__ import annotations

import strawberry
from strawberry.experimental.pydantic import input as pydantic_input
from strawberry.scalars import JSON
from strawberry.types import Info

from app.core.auth import payloads as auth_payloads
from app.core.auth import two_factor
from app.core.integrations import deliveries as webhooks
from app.core.integrations import object_export
from app.core.integrations import payloads as integrations_payloads
from app.core.integrations import service as integrations
from app.core.integrations.models import Integration as IntegrationRow
from app.core.notifications import payloads as notifications_payloads
from app.core.users import payloads as users_payloads
from app.core.users import profile
from app.graphql.auth.types import TwoFactorStatus
from app.graphql.common import DeleteResult
from app.graphql.context import Context
from app.graphql.inputs import to_payload
from app.graphql.types.settings import (
    ConnectionCheck,
    Integration,
    IntegrationSaved,
    ObjectExport,
    PasswordChanged,
    UserSettings,
    WebhookDelivery,
)


@pydantic_input(model=users_payloads.SettingsUpdate, all_fields=True)
class SettingsUpdateInput:
    theme: str | None = strawberry.field(default=None, description="light, dark or system")


@pydantic_input(model=users_payloads.AvatarUpload, all_fields=True)
class AvatarUploadInput:
    pass


@pydantic_input(model=users_payloads.PasswordChange, all_fields=True)
class PasswordChangeInput:
    pass


@pydantic_input(model=users_payloads.EmailChange, all_fields=True)
class EmailChangeInput:
    pass


@pydantic_input(model=notifications_payloads.NotificationPrefsUpdate, all_fields=True)
class NotificationPrefsInput:
    preferences: JSON = strawberry.field(
        description='{"dataset.completed": {"in_app": true, "webhook": false}, ...}'
    )


@pydantic_input(model=auth_payloads.TwoFactorEnable, all_fields=True)
class TwoFactorEnableInput:
    pass


@pydantic_input(model=auth_payloads.TwoFactorDisable, all_fields=True)
class TwoFactorDisableInput:
    pass


@pydantic_input(model=users_payloads.AccountDelete, all_fields=True)
class AccountDeleteInput:
    pass


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
class SettingsMutation:
    @strawberry.mutation(description="Update display name, theme or locale.")
    async def update_settings(self, info: Info[Context, None], input: SettingsUpdateInput) -> UserSettings:
        ctx = info.context
        row = await profile.update(ctx.session, ctx.principal, to_payload(users_payloads.SettingsUpdate, input))
        return UserSettings.from_row(row)

    @strawberry.mutation(
        description="Upload an avatar (PNG, JPEG or WebP, up to 2 MiB); stored as a 256x256 PNG."
    )
    async def upload_avatar(self, info: Info[Context, None], input: AvatarUploadInput) -> UserSettings:
        ctx = info.context
        row = await profile.upload_avatar(
            ctx.session, ctx.principal, ctx.settings, to_payload(users_payloads.AvatarUpload, input)
        )
        return UserSettings.from_row(row)

    @strawberry.mutation(description="Change the password; earlier session tokens stop working.")
    async def change_password(self, info: Info[Context, None], input: PasswordChangeInput) -> PasswordChanged:
        ctx = info.context
        done = await profile.change_password(
            ctx.session, ctx.principal, ctx.settings, to_payload(users_payloads.PasswordChange, input)
        )
        return PasswordChanged(
            ok=True,
            detail="Password changed; earlier session tokens no longer work.",
            access_token=done.access_token,
            token_type="bearer",
            expires_in=done.expires_in,
        )

    @strawberry.mutation(description="Change the email address (password required).")
    async def change_email(self, info: Info[Context, None], input: EmailChangeInput) -> UserSettings:
        ctx = info.context
        row = await profile.change_email(ctx.session, ctx.principal, to_payload(users_payloads.EmailChange, input))
        return UserSettings.from_row(row)

    @strawberry.mutation(description="Set notification preferences per event.")
    async def update_notification_preferences(
        self, info: Info[Context, None], input: NotificationPrefsInput
    ) -> UserSettings:
        ctx = info.context
        row = await profile.update_notifications(
            ctx.session, ctx.principal, to_payload(notifications_payloads.NotificationPrefsUpdate, input)
        )
        return UserSettings.from_row(row)

    @strawberry.mutation(description="Start two-factor enrolment (no code) or confirm it (with a code).")
    async def enable_2fa(self, info: Info[Context, None], input: TwoFactorEnableInput) -> TwoFactorStatus:
        ctx = info.context
        state = await two_factor.enable(
            ctx.session, ctx.principal, ctx.settings, to_payload(auth_payloads.TwoFactorEnable, input)
        )
        return TwoFactorStatus.from_state(state)

    @strawberry.mutation(description="Turn two-factor authentication off (password and a code).")
    async def disable_2fa(self, info: Info[Context, None], input: TwoFactorDisableInput) -> TwoFactorStatus:
        ctx = info.context
        state = await two_factor.disable(
            ctx.session, ctx.principal, ctx.settings, to_payload(auth_payloads.TwoFactorDisable, input)
        )
        return TwoFactorStatus.from_state(state)

    @strawberry.mutation(description="Delete (deactivate and anonymise) the caller's account.")
    async def delete_account(self, info: Info[Context, None], input: AccountDeleteInput) -> DeleteResult:
        ctx = info.context
        row = await profile.delete_account(
            ctx.session, ctx.principal, to_payload(users_payloads.AccountDelete, input)
        )
        assert row.id is not None
        return DeleteResult(deleted=True, id=row.id)

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
