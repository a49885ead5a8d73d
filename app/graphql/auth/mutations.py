"""Root mutations of authentication: sign-in and sign-out, API tokens.

Two classes, since the root fields keep their published order (docs/schema.graphql): sign-in and
sign-out open the Mutation type, the API token pair follows the project mutations."""

from __future__ import annotations

import strawberry
from strawberry.types import Info

from app.core.auth import payloads as auth_payloads
from app.core.auth import service as auth
from app.graphql.auth.types import ApiToken, ApiTokenCreated, TokenResponse
from app.graphql.common import DeleteResult, OkResult
from app.graphql.context import Context
from app.graphql.inputs import ApiTokenCreateInput, to_payload


@strawberry.type
class SignInMutation:
    @strawberry.mutation(description="Exchange username and password for a bearer token.")
    async def login(
        self, info: Info[Context, None], username: str, password: str, otp: str | None = None
    ) -> TokenResponse:
        ctx = info.context
        issued = await auth.login(
            ctx.session, ctx.meta, ctx.settings, username=username, password=password, otp=otp
        )
        return TokenResponse(
            access_token=issued.access_token, token_type=issued.token_type, expires_in=issued.expires_in
        )

    @strawberry.mutation(
        description="Revoke the access token used for this request (API tokens are revoked in Settings)."
    )
    async def logout(self, info: Info[Context, None]) -> OkResult:
        ctx = info.context
        return OkResult(ok=True, detail=await auth.logout(ctx.session, ctx.principal))


@strawberry.type
class ApiTokenMutation:
    @strawberry.mutation(description="Create an API token; the secret is in the response once.")
    async def create_api_token(
        self, info: Info[Context, None], input: ApiTokenCreateInput
    ) -> ApiTokenCreated:
        ctx = info.context
        row, secret = await auth.create_api_token(
            ctx.session, ctx.principal, to_payload(auth_payloads.ApiTokenCreate, input)
        )
        return ApiTokenCreated(**vars(ApiToken.from_row(row)), token=secret)

    @strawberry.mutation
    async def revoke_api_token(self, info: Info[Context, None], token_id: int) -> DeleteResult:
        ctx = info.context
        await auth.revoke_api_token(ctx.session, ctx.principal, token_id)
        return DeleteResult(deleted=True, id=token_id)
