"""The streaming download door: `GET /data/{dataset_id}?format=&file_index=`. It maps HTTP to
the datasets service and streams the file from disk (Range requests honoured by FileResponse);
the file is never read into memory. A browser sends `link=` (from create_download_link) instead
of the Authorization header; the download is then authorized as the link's user."""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any

from fastapi import Depends, Request
from starlette.responses import FileResponse, Response
from starlette.types import Message, Receive, Scope, Send

from app.core.services import datasets, download_links
from app.graphql.context import Context, open_context
from app.rest.errors import error_response
from app.rest.route import Route
from app.rest.variables import build_variables

# a route's handler as FastAPI calls it: the request, and the context its dependency opened
Endpoint = Callable[[Request, Context], Coroutine[Any, Any, Response]]


class FileDownload(FileResponse):
    """FileResponse, but its refusals of a Range header (a plain-text 400 when malformed, a bare
    416 when it lies past the end) are the API's JSON errors with a sentence; a 416 keeps its
    Content-Range, which names the file's size."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        refused: dict[str, Any] = {}

        async def rewrite(message: Message) -> None:
            if message["type"] == "http.response.start" and message["status"] in (400, 416):
                refused["status"] = message["status"]
                refused["headers"] = {
                    k.decode("latin-1").lower(): v.decode("latin-1") for k, v in message["headers"]
                }
                return
            if not refused:
                await send(message)
            elif message["type"] == "http.response.body" and not message.get("more_body", False):
                await self._refusal(refused["status"], refused["headers"])(scope, receive, send)

        await super().__call__(scope, receive, rewrite)

    @staticmethod
    def _refusal(status: int, headers: dict[str, str]) -> Response:
        if status == 400:
            return error_response(
                400, "The Range header is malformed; send e.g. 'bytes=0-1023'.", code="bad_request"
            )
        content_range = headers.get("content-range", "")
        size = content_range.rpartition("/")[2]
        return error_response(
            416,
            f"The Range header asks for bytes past the end of the file ({size} bytes).",
            code="range_not_satisfiable",
            headers={"Content-Range": content_range},
        )


def make_download_endpoint(route: Route) -> Endpoint:
    async def endpoint(request: Request, context: Context = Depends(open_context)) -> Response:
        link = request.query_params.get("link")
        if not link:
            context.principal  # noqa: B018  (401 before any parameter parsing)
        # the same path/query parsing as every other row: id range, integer checks, defaults
        variables = await build_variables(route, request)
        dataset_id, fmt, file_index = (
            variables["dataset_id"],
            str(variables["format"]),
            variables["file_index"],
        )
        if link:
            principal = await download_links.principal_for(
                context.session,
                context.settings,
                link,
                dataset_id=dataset_id,
                fmt=fmt,
                file_index=file_index,
                ip=context.meta.ip,
            )
        else:
            principal = context.principal
        renderer = context.services.executor if context.services is not None else None
        found = await datasets.download(
            context.session, principal, context.settings, renderer, dataset_id, fmt, file_index
        )
        await context.session.commit()
        return FileDownload(
            found.path,
            media_type=found.media_type,
            filename=found.filename,
            headers={"X-Content-SHA256": found.sha256, "Cache-Control": "private, max-age=0"},
        )

    endpoint.__name__ = route.operation_id
    return endpoint
