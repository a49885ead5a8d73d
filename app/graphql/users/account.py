"""The caller's own account (the web's Settings page): settings, avatar, password, email,
notification preferences, two-factor authentication, account deletion.

Core: users.profile, and auth.two_factor for the two-factor pair. The query and the mutations
are classes of their own since the root fields keep their published order (docs/schema.graphql)."""

from __future__ import annotations

import strawberry
from strawberry.experimental.pydantic import input as pydantic_input
from strawberry.scalars import JSON
from strawberry.types import Info

from app.core.auth import account_deletion, two_factor
from app.core.auth import payloads as auth_payloads
from app.core.notifications import payloads as notifications_payloads
from app.core.users import payloads as users_payloads
from app.core.users import profile
from app.graphql.auth.types import TwoFactorStatus
from app.graphql.common import DeleteResult
from app.graphql.context import Context
from app.graphql.inputs import to_payload
from app.graphql.users.types import PasswordChanged, UserSettings


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


@strawberry.type
class AccountQuery:
    @strawberry.field(description="The caller's own settings.")
    async def settings(self, info: Info[Context, None]) -> UserSettings:
        ctx = info.context
        return UserSettings.from_row(await profile.get(ctx.session, ctx.principal))


@strawberry.type
class AccountMutation:
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
        row = await account_deletion.delete_account(
            ctx.session, ctx.principal, to_payload(users_payloads.AccountDelete, input)
        )
        assert row.id is not None
        return DeleteResult(deleted=True, id=row.id)
