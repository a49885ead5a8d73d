"""The ASGI application: GraphQL at /graphql (subscriptions over WebSocket), the REST facade at
/api/v1, docs, health, and the web interface at `/`."""

from __future__ import annotations

import asyncio
import gc
import logging
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any
from weakref import WeakKeyDictionary

import orjson
from fastapi import Depends, FastAPI, Request
from fastapi.staticfiles import StaticFiles
from sqlalchemy import text
from starlette.responses import HTMLResponse, Response
from strawberry.exceptions import ConnectionRejectionError
from strawberry.fastapi import GraphQLRouter

from app.core.database import make_async_engine, make_sessionmaker, make_sync_engine
from app.core.errors import DomainError
from app.core.jobs.dispatcher import Dispatcher
from app.core.jobs.executors import make_executor
from app.core.jobs.retention import RetentionPurger
from app.core.migrate import upgrade
from app.core.security.passwords import configure_hashing
from app.core.services import profile
from app.core.services.bootstrap import ensure_bootstrap
from app.core.settings import Settings, get_settings
from app.core.webhooks.dispatcher import WebhookDispatcher
from app.graphql.context import AppServices, Context, LiveContext, open_context
from app.graphql.schema import build_schema
from app.rest import errors
from app.rest.body_limit import BodyLimitMiddleware
from app.rest.facade import build_router
from app.rest.openapi import build_openapi
from app.rest.reference import reference_html, swagger_static_dir
from app.rest.routes import ROUTES
from app.web import spa

log = logging.getLogger("tdg")
API_PREFIX = "/api/v1"
GRAPHIQL_HTML = Path(__file__).parent / "graphql" / "graphiql.html"
GRAPHQL_STATIC = Path(__file__).parent / "graphql" / "static"


def _version() -> str:
    try:
        return version("tdg")
    except PackageNotFoundError:
        return "0.0.0"


async def graphql_context(context: Context | LiveContext = Depends(open_context)) -> Context | LiveContext:
    """open_context as the GraphQL router's context getter. The router takes a function returning
    the context (or an awaitable of it), not a generator: FastAPI resolves open_context here as the
    generator dependency it is (its session closes once the response is sent)."""
    return context


class OfflineGraphQLRouter(GraphQLRouter):
    """GraphiQL served from vendored assets: no CDN."""

    async def render_graphql_ide(self, request: Request) -> HTMLResponse:
        if GRAPHIQL_HTML.exists():
            return HTMLResponse(GRAPHIQL_HTML.read_text())
        return HTMLResponse("<p>GraphiQL assets are not installed; POST GraphQL queries to /graphql.</p>")

    async def on_ws_connect(self, context: Any) -> Any:
        """connection_init: a socket without a valid token is closed (graphql-transport-ws: 4403)."""
        if isinstance(context, LiveContext):
            try:
                await context.connect()
            except DomainError as exc:
                raise ConnectionRejectionError({"message": exc.detail, "code": exc.code}) from None
        return await super().on_ws_connect(context)


# the document depends only on the (cached, shared) schema: built once per schema, not per app
_OPENAPI: WeakKeyDictionary[Any, bytes] = WeakKeyDictionary()


def _openapi_document(schema: Any) -> bytes:
    doc = _OPENAPI.get(schema)
    if doc is None:
        doc = _OPENAPI[schema] = orjson.dumps(build_openapi(ROUTES, schema._schema, version=_version()))
    return doc


def _lifespan(
    settings: Settings, run_migrations: bool
) -> Callable[[FastAPI], AbstractAsyncContextManager[None]]:
    """Start-up and shut-down of one app: the database, the job dispatcher and the background
    deliveries, stopped in reverse order."""

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        settings.data_dir.mkdir(parents=True, exist_ok=True)
        if run_migrations:
            await asyncio.to_thread(upgrade, settings.database_url)
        engine = make_async_engine(settings.database_url)
        app.state.engine = engine
        app.state.sessionmaker = make_sessionmaker(engine)
        async with app.state.sessionmaker() as session:
            await ensure_bootstrap(session, settings)
        jobs_engine = make_sync_engine(settings.database_url)
        executor = make_executor(settings)
        dispatcher = Dispatcher(settings, jobs_engine, executor)
        # webhook delivery runs in every `tdg serve` process (leases keep replicas from double-sending)
        webhooks = WebhookDispatcher(settings, jobs_engine)
        app.state.services = AppServices(executor=executor, dispatcher=dispatcher, webhooks=webhooks)
        retention = RetentionPurger(settings, jobs_engine)
        dispatcher.start()
        # start-up leaves ~300k long-lived objects; moving them out of the collector's view
        # keeps full collections (the p99 tail of request latency) short
        gc.collect()
        gc.freeze()
        webhooks.start()
        retention.start()
        try:
            yield
        finally:
            await retention.stop()
            await webhooks.stop()
            await dispatcher.stop()
            executor.shutdown()
            jobs_engine.dispose()
            await engine.dispose()

    return lifespan


def _add_service_routes(app: FastAPI, settings: Settings, schema: Any) -> None:
    """The routes outside the API proper: its documents, avatars, health and readiness."""
    openapi_doc = _openapi_document(schema)

    @app.get(f"{API_PREFIX}/openapi.json", include_in_schema=False)
    async def openapi() -> Response:
        return Response(openapi_doc, media_type="application/json")

    @app.get("/api/reference", include_in_schema=False)
    async def reference() -> HTMLResponse:
        return HTMLResponse(reference_html(f"{API_PREFIX}/openapi.json"))

    @app.get("/avatars/{key}.png", include_in_schema=False)
    async def avatar(key: str) -> Response:
        # content-addressed and unguessable, so an <img> can load it without a bearer token
        png = await asyncio.to_thread(profile.avatar_file, settings, key)
        if png is None:
            return errors.error_response(404, "No such avatar.")
        return Response(
            png,
            media_type="image/png",
            headers={
                "Cache-Control": "public, max-age=31536000, immutable",
                "X-Content-Type-Options": "nosniff",
            },
        )

    @app.get("/healthz", include_in_schema=False)
    async def healthz() -> dict[str, str]:
        return {"status": "ok"}

    @app.get("/readyz", include_in_schema=False)
    async def readyz(request: Request) -> Response:
        try:
            async with request.app.state.sessionmaker() as session:
                await session.exec(text("SELECT 1"))
        except Exception:
            log.exception("readiness check failed")
            return errors.error_response(503, "The database is not reachable.")
        return Response(b'{"status":"ready"}', media_type="application/json")


def create_app(
    settings: Settings | None = None, *, run_migrations: bool = True, web_dir: Path = spa.STATIC_DIR
) -> FastAPI:
    """`web_dir` holds the web interface's production build (index.html, assets/)."""
    settings = settings or get_settings()
    configure_hashing(settings.password_hash_time_cost, settings.password_hash_memory_kib)
    schema = build_schema(settings)
    app = FastAPI(
        title="Test Data Generation Service",
        version=_version(),
        lifespan=_lifespan(settings, run_migrations),
        docs_url=None,
        redoc_url=None,
        openapi_url=None,
    )
    app.state.settings = settings
    app.state.schema = schema
    app.state.services = None
    errors.install(app)
    app.add_middleware(BodyLimitMiddleware)

    app.include_router(build_router(ROUTES, schema), prefix=API_PREFIX)
    app.include_router(
        OfflineGraphQLRouter(schema, context_getter=graphql_context, graphql_ide="graphiql"),
        prefix="/graphql",
    )
    if GRAPHQL_STATIC.exists():
        app.mount("/graphql/static", StaticFiles(directory=GRAPHQL_STATIC), name="graphql-static")
    app.mount("/api/reference/static", StaticFiles(directory=swagger_static_dir()), name="reference-static")
    _add_service_routes(app, settings, schema)
    # last: the app answers only what no route above does
    spa.install(
        app,
        web_dir,
        {
            "GraphiQL": "/graphql",
            "REST reference": "/api/reference",
            "OpenAPI document": f"{API_PREFIX}/openapi.json",
        },
    )
    return app
