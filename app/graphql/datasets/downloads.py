"""The download-link mutation: how a browser downloads a file without a bearer header."""

from __future__ import annotations

import strawberry
from strawberry.types import Info

from app.core.clock import iso
from app.core.datasets import download_links
from app.graphql.context import Context


@strawberry.type(
    description="A relative URL that downloads one file without an Authorization header, until expires_at."
)
class DownloadLink:
    url: str
    expires_at: str


@strawberry.type
class DownloadMutation:
    @strawberry.mutation(
        description=(
            "A short-lived link (5 minutes) that downloads one file of a completed dataset without an Authorization "
            "header; the same authorization as GET /data/{dataset_id} is checked now and again when the link is used."
        )
    )
    async def create_download_link(
        self, info: Info[Context, None], dataset_id: int, format: str, file_index: int = 0
    ) -> DownloadLink:
        ctx = info.context
        link = await download_links.create(
            ctx.session, ctx.principal, ctx.settings, dataset_id, format, file_index
        )
        return DownloadLink(url=link.url, expires_at=iso(link.expires_at) or "")
