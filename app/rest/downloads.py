"""The streaming download door: `GET /data/{dataset_id}?format=&file_index=`. It maps HTTP to
the datasets service and streams the file from disk (Range requests honoured by FileResponse);
the file is never read into memory."""

from __future__ import annotations

from fastapi import Depends, Request
from starlette.responses import FileResponse, Response

from app.core.services import datasets
from app.graphql.context import Context, open_context
from app.rest.route import Param, Route


def make_download_endpoint(route: Route):  # type: ignore[no-untyped-def]
    from app.rest.facade import MAX_ID, _convert

    fmt_param = next(p for p in route.query if p.name == "format")
    index_param = next(p for p in route.query if p.name == "file_index")

    async def endpoint(request: Request, context: Context = Depends(open_context)) -> Response:
        principal = context.principal
        dataset_id = int(request.path_params["dataset_id"])
        if not 1 <= dataset_id <= MAX_ID:
            from app.core.errors import NotFound

            raise NotFound(f"Dataset {dataset_id} was not found.")
        fmt = request.query_params.get("format") or str(fmt_param.default)
        raw_index = request.query_params.get("file_index")
        file_index = _convert(Param("file_index", "int"), raw_index) if raw_index else int(str(index_param.default))
        renderer = getattr(context.services, "executor", None)
        found = await datasets.download(context.session, principal, context.settings, renderer, dataset_id,
                                        fmt.lower(), file_index)
        await context.session.commit()
        return FileResponse(
            found.path, media_type=found.media_type, filename=found.filename,
            headers={"X-Content-SHA256": found.sha256, "Cache-Control": "private, max-age=0"},
        )

    endpoint.__name__ = route.operation_id
    return endpoint
