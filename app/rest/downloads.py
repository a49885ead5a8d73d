"""The streaming download door: `GET /data/{dataset_id}?format=&file_index=`. It maps HTTP to
the datasets service and streams the file from the store: from disk (Range requests honoured by
FileResponse), from an object store through the API (one Range honoured, as FileResponse parses
it), or with TDG_DOWNLOAD_REDIRECT a 307 to a presigned URL valid for minutes, once the caller was
authorized. The file is never read into memory. A browser sends `link=` (from create_download_link) instead
of the Authorization header; the download is then authorized as the link's user."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Callable, Coroutine, Iterator
from typing import Any
from urllib.parse import quote

from fastapi import Depends, Request
from starlette.responses import (
    FileResponse,
    MalformedRangeHeader,
    RangeNotSatisfiable,
    RedirectResponse,
    Response,
    StreamingResponse,
)
from starlette.types import Message, Receive, Scope, Send

from app.core.datasets import download_links
from app.core.datasets import service as datasets
from app.core.error_codes import ErrorCode
from app.core.errors import Gone, StorageUnavailable
from app.core.principal import Principal
from app.core.storage import Store, store_for
from app.graphql.context import Context, open_context
from app.rest.errors import error_response
from app.rest.route import Route
from app.rest.variables import build_variables

# a route's handler as FastAPI calls it: the request, and the context its dependency opened
# a route's endpoint: FastAPI reads its signature (the download door takes the context as a dependency)
Endpoint = Callable[..., Coroutine[Any, Any, Response]]
log = logging.getLogger("tdg.rest")
# how long a download waits for the store to say whether its file is there (S3's own probe gives
# up after 5 s connecting and 5 s reading; this bounds a local folder on a hung network volume)
STAT_SECONDS = 15


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
                400, "The Range header is malformed; send e.g. 'bytes=0-1023'.", code=ErrorCode.BAD_REQUEST
            )
        content_range = headers.get("content-range", "")
        size = content_range.rpartition("/")[2]
        return error_response(
            416,
            f"The Range header asks for bytes past the end of the file ({size} bytes).",
            code=ErrorCode.RANGE_NOT_SATISFIABLE,
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
        store = store_for(context.settings)
        await _check_stored(context, principal, store, dataset_id, found)
        headers = {"X-Content-SHA256": found.sha256, "Cache-Control": "private, max-age=0"}
        local = store.local_path(found.path)
        if local is not None:
            return FileDownload(local, media_type=found.media_type, filename=found.filename, headers=headers)
        if context.settings.download_redirect:
            url = await asyncio.to_thread(
                store.presigned_url,
                found.path,
                filename=found.filename,
                media_type=found.media_type,
                seconds=context.settings.download_url_seconds,
            )
            if url is not None:
                return RedirectResponse(url, status_code=307, headers={"Cache-Control": "no-store"})
        return stored_download(store, found, request.headers.get("range"), headers)

    endpoint.__name__ = route.operation_id
    return endpoint


async def _check_stored(
    context: Context, principal: Principal, store: Store, dataset_id: int, found: datasets.Download
) -> None:
    """The stored file is there, readable and whole, before any status line is sent (a 200 that
    then breaks off tells the client nothing). Missing or of another size: 410, and the dataset
    is expired with the reason, so its state says so too; the store not answering: 503."""
    try:
        size = await asyncio.wait_for(asyncio.to_thread(store.stat, found.path), STAT_SECONDS)
    except TimeoutError:
        raise StorageUnavailable(f"The file store did not answer within {STAT_SECONDS} seconds.") from None
    if size == found.size_bytes:
        return
    problem = (
        "is missing from the file store" if size is None else f"has {size} bytes, not {found.size_bytes}"
    )
    reason = f"The stored file {found.filename} {problem}; generate the dataset again."
    log.error("dataset %d: %s (%s)", dataset_id, reason, found.path)
    await datasets.lose_files(context.session, principal, dataset_id, reason)
    await context.session.commit()
    await asyncio.to_thread(store.remove, f"datasets/{dataset_id}")  # the rest of it, as expiry does
    raise Gone(reason, code=ErrorCode.DATASET_EXPIRED)


def stored_download(
    store: Store, found: datasets.Download, http_range: str | None, headers: dict[str, str]
) -> Response:
    """A file of an object store streamed through the API: the whole file, or the one range asked
    (several ranges get the whole file, as HTTP allows)."""
    size = found.size_bytes
    start, stop, status = 0, size, 200
    if http_range:
        try:
            ranges = FileResponse._parse_range_header(http_range, size)
        except MalformedRangeHeader:
            return FileDownload._refusal(400, {})
        except RangeNotSatisfiable:
            return FileDownload._refusal(416, {"content-range": f"bytes */{size}"})
        if len(ranges) == 1:
            (start, stop), status = ranges[0], 206
            headers = {**headers, "Content-Range": f"bytes {start}-{stop - 1}/{size}"}
    return StreamingResponse(
        _chunks(store.read_range(found.path, start, stop)),
        status_code=status,
        media_type=found.media_type,
        headers={
            **headers,
            "Content-Length": str(stop - start),
            "Accept-Ranges": "bytes",
            "Content-Disposition": _disposition(found.filename),
        },
    )


def _disposition(filename: str) -> str:
    """As FileResponse writes it: a plain quoted name when it is plain ASCII."""
    quoted = quote(filename)
    if quoted != filename:
        return f"attachment; filename*=utf-8''{quoted}"
    return f'attachment; filename="{filename}"'


async def _chunks(chunks: Iterator[bytes]) -> AsyncIterator[bytes]:
    """The store's blocking reads off the event loop, one chunk at a time."""
    while (chunk := await asyncio.to_thread(next, chunks, None)) is not None:
        yield chunk
