"""The streaming download door: `GET /data/{dataset_id}?format=&file_index=`. It maps HTTP to
the datasets service and streams the file from disk (Range requests honoured by FileResponse);
the file is never read into memory. A browser sends `link=` (from create_download_link) instead
of the Authorization header; the download is then authorized as the link's user."""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any

from fastapi import Depends, Request
from starlette.responses import FileResponse, Response

from app.core.services import datasets, download_links
from app.graphql.context import Context, open_context
from app.rest.route import Route
from app.rest.variables import build_variables

# a route's handler as FastAPI calls it: the request, and the context its dependency opened
Endpoint = Callable[[Request, Context], Coroutine[Any, Any, Response]]


def make_download_endpoint(route: Route) -> Endpoint:
    async def endpoint(request: Request, context: Context = Depends(open_context)) -> Response:
        link = request.query_params.get("link")
        if not link:
            context.principal  # noqa: B018  (401 before any parameter parsing)
        # the same path/query parsing as every other row: id range, integer checks, defaults
        variables = await build_variables(route, request)
        dataset_id, fmt, file_index = (
            variables["dataset_id"],
            str(variables["format"]).lower(),
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
        return FileResponse(
            found.path,
            media_type=found.media_type,
            filename=found.filename,
            headers={"X-Content-SHA256": found.sha256, "Cache-Control": "private, max-age=0"},
        )

    endpoint.__name__ = route.operation_id
    return endpoint
