"""The ASGI application: GraphQL at /graphql (subscriptions over WebSocket), the REST facade at
/api/v1, docs, health, and the web interface at `/`."""

from __future__ import annotations

import asyncio
import gc
import json
import logging
import os
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager, contextmanager
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any
from weakref import WeakKeyDictionary

import orjson
from cross_web import HTTPException
from fastapi import Depends, FastAPI, Request
from fastapi.staticfiles import StaticFiles
from sqlalchemy import text
from sqlalchemy.engine import Engine
from starlette.responses import HTMLResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from strawberry.exceptions import ConnectionRejectionError

from app.core.auth.bootstrap import ensure_bootstrap
from app.core.database import make_async_engine, make_sessionmaker, make_sync_engine
from app.core.errors import DomainError
from app.core.jobs.dispatcher import Dispatcher
from app.core.jobs.executors import CeleryExecutor, LocalPoolExecutor, make_executor
from app.core.jobs.leader import Leadership, lock_path
from app.core.jobs.retention import RetentionPurger
from app.core.migrate import upgrade_apart
from app.core.security.passwords import configure_hashing
from app.core.settings import Settings, get_settings
from app.core.storage import store_problem
from app.core.users import profile
from app.core.webhooks.dispatcher import WebhookDispatcher
from app.graphql.context import AppServices, Context, LiveContext, open_context
from app.graphql.door import JsonErrorsGraphQLRouter
from app.graphql.schema import build_schema
from app.graphql.surrogates import lone_surrogate_at
from app.rest import errors
from app.rest.body_limit import BodyLimitMiddleware
from app.rest.facade import build_router
from app.rest.openapi import build_openapi
from app.rest.reference import reference_html, swagger_static_dir
from app.rest.routes import ROUTES
from app.serving import fix_mmap_threshold
from app.web import spa

log = logging.getLogger("tdg")
API_PREFIX = "/api/v1"
LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
SERVE_WORKER_FACTORY = "app.main:create_serve_worker"
WORKER_START_SECONDS = 60
GC_THRESHOLDS = (20_000, 20, 20)
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


class OfflineGraphQLRouter(JsonErrorsGraphQLRouter):
    """GraphiQL served from vendored assets: no CDN. Answers are encoded with orjson (the REST
    facade's encoder), not the standard library's json: a page of 50 rows took ~0.2 ms there."""

    def decode_json(self, data: str | bytes) -> object:
        decoded = super().decode_json(data)
        # json lets a lone surrogate escape through (a resolver then failed with 500); only a
        # body with an escape at all is walked
        if ("\\u" in data if isinstance(data, str) else b"\\u" in data) and (
            where := lone_surrogate_at(decoded)
        ) is not None:
            raise HTTPException(
                400,
                f"The request body holds a lone UTF-16 surrogate escape (such as \\ud800) at {where}; "
                "a character beyond U+FFFF is written as a pair of escapes or as UTF-8.",
            )
        return decoded

    def encode_json(self, data: object) -> str:
        # str, not bytes: strawberry sends bytes over the WebSocket as binary frames, which
        # graphql-ws in the browser cannot parse (it closed every socket with 4004 on its ack)
        try:
            return orjson.dumps(data).decode()
        except TypeError:  # what orjson cannot encode (an integer beyond 64 bits) json can
            return json.dumps(data, separators=(",", ":"))

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


@dataclass
class _Background:
    """The loops a server runs beside its requests: started together, stopped in reverse order.
    With `tdg serve --workers N` only the elected process starts them (app/core/jobs/leader.py)."""

    settings: Settings
    executor: LocalPoolExecutor | CeleryExecutor
    dispatcher: Dispatcher
    webhooks: WebhookDispatcher
    retention: RetentionPurger
    warm_pool: bool = False  # start the local pool's processes on election (not in every process)

    def start(self) -> None:
        if self.warm_pool and isinstance(self.executor, LocalPoolExecutor):
            self.executor.pool.start_all()
        self.dispatcher.start()
        self.webhooks.start()
        self.retention.start()

    async def stop(self) -> None:
        await self.retention.stop()
        await self.webhooks.stop()
        await self.dispatcher.stop()


def _background(settings: Settings, jobs_engine: Engine, by_election: bool) -> _Background:
    """The loops, and the process pool the dispatcher feeds. A process that runs the loops only
    if elected (`by_election`) starts its pool's processes only then; until then its pool only
    renders a format on demand (starting a process for it at that time)."""
    executor = make_executor(settings.model_copy(update={"warm_pool": False}) if by_election else settings)
    return _Background(
        settings,
        executor,
        Dispatcher(settings, jobs_engine, executor),
        # webhook delivery runs in every `tdg serve` instance (leases keep replicas from double-sending)
        WebhookDispatcher(settings, jobs_engine),
        RetentionPurger(settings, jobs_engine),
        warm_pool=by_election and settings.warm_pool,
    )


def _lifespan(
    settings: Settings, run_migrations: bool, leader_lock: Path | None
) -> Callable[[FastAPI], AbstractAsyncContextManager[None]]:
    """Start-up and shut-down of one app: the database, the job dispatcher and the background
    deliveries, stopped in reverse order. With `leader_lock` (one of several server processes)
    the background loops run only while this process holds the lock."""

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        settings.data_dir.mkdir(parents=True, exist_ok=True)
        if (problem := await asyncio.to_thread(store_problem, settings)) is not None:
            log.error("the file store cannot be used (/readyz says so until it can): %s", problem)
        if run_migrations:
            await asyncio.to_thread(upgrade_apart, settings.database_url)
        engine = make_async_engine(
            settings.database_url, settings.database_pool_size, settings.database_pool_timeout_seconds
        )
        app.state.engine = engine
        app.state.sessionmaker = make_sessionmaker(engine)
        async with app.state.sessionmaker() as session:
            await ensure_bootstrap(session, settings)
        jobs_engine = make_sync_engine(settings.database_url)
        loops = _background(settings, jobs_engine, by_election=leader_lock is not None)
        leadership: Leadership | None = None
        if leader_lock is None:
            app.state.services = AppServices(loops.executor, loops.dispatcher, loops.webhooks)
            loops.start()
        else:
            wakers = {"dispatcher": loops.dispatcher.wake, "webhooks": loops.webhooks.wake}
            leadership = Leadership(leader_lock, loops.start, wakers)
            relays = (leadership.relay("dispatcher"), leadership.relay("webhooks"))
            app.state.services = AppServices(loops.executor, *relays)
            await leadership.start()
        # start-up leaves ~300k long-lived objects; moving them out of the collector's view
        # keeps full collections (the p99 tail of request latency) short
        gc.collect()
        gc.freeze()
        # a request allocates thousands of objects: at the default thresholds (700, 10, 10) 50
        # concurrent clients set off a collection every other request, and the frequent older-
        # generation passes cost ~0.4 ms of CPU a request; at these, ~0.1 ms (the young generation
        # holds at most 20,000 objects, a few MB, before it is collected)
        gc.set_threshold(*GC_THRESHOLDS)
        try:
            yield
        finally:
            if leadership is not None:
                await leadership.stop()
            await loops.stop()
            if leadership is not None:
                leadership.release()  # only now may another process start the loops
            loops.executor.shutdown()
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
        # each dependency within TDG_READY_TIMEOUT_SECONDS: one that hangs is "not ready", and the
        # probe answers instead of hanging with it (the store's check gives up as soon, in its thread)
        timeout = settings.ready_timeout_seconds
        try:
            async with asyncio.timeout(timeout), request.app.state.sessionmaker() as session:
                await session.exec(text("SELECT 1"))
        except Exception:
            log.exception("readiness check failed")
            return errors.error_response(503, "The database is not reachable.")
        try:
            problem = await asyncio.wait_for(asyncio.to_thread(store_problem, settings), timeout)
        except TimeoutError:
            problem = f"it did not answer within {timeout:g} s."
        if problem is not None:
            return errors.error_response(503, f"The file store cannot be used: {problem}")
        return Response(b'{"status":"ready"}', media_type="application/json")


def create_app(
    settings: Settings | None = None,
    *,
    run_migrations: bool = True,
    web_dir: Path = spa.STATIC_DIR,
    leader_lock: Path | None = None,
) -> FastAPI:
    """`web_dir` holds the web interface's production build (index.html, assets/). With
    `leader_lock` the app is one of several processes of a server: its background loops run only
    while it holds that lock (app/core/jobs/leader.py)."""
    settings = settings or get_settings()
    configure_hashing(settings.password_hash_time_cost, settings.password_hash_memory_kib)
    schema = build_schema(settings)
    app = FastAPI(
        title="Test Data Generation Service",
        version=_version(),
        lifespan=_lifespan(settings, run_migrations, leader_lock),
        docs_url=None,
        redoc_url=None,
        openapi_url=None,
    )
    app.state.settings = settings
    app.state.schema = schema
    app.state.services = None
    errors.install(app)
    app.add_middleware(BodyLimitMiddleware)

    # /graphql first: a request is matched against the routes in order, and the REST table's
    # ~60 rows cost a GraphQL request ~0.1 ms to rule out (no path is in both)
    app.include_router(
        OfflineGraphQLRouter(schema, context_getter=graphql_context, graphql_ide="graphiql"),
        prefix="/graphql",
    )
    app.include_router(build_router(ROUTES, schema), prefix=API_PREFIX)
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


class ServedBy:
    """`X-Served-By: <pid>` on every HTTP response: which process of `tdg serve --workers N`
    answered (outside production only)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.header = (b"x-served-by", str(os.getpid()).encode())

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def sending(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", ()), self.header]
            await send(message)

        await self.app(scope, receive, sending)


def create_serve_worker() -> FastAPI:
    """The app of one process of `tdg serve --workers N`: uvicorn's factory, called in each worker
    process it starts. Settings come from the environment (the parent exported what it derived);
    the parent applied the migrations and created the SuperUser; the background loops run in the
    process elected by the lock of this server (its supervising process is our parent)."""
    logging.basicConfig(level=logging.INFO, format=LOG_FORMAT)
    fix_mmap_threshold()  # the supervising process set it for itself only
    settings = get_settings()
    app = create_app(settings, run_migrations=False, leader_lock=lock_path(settings.data_dir, os.getppid()))
    if not settings.is_production:
        app.add_middleware(ServedBy)
    return app


async def _bootstrap(settings: Settings) -> None:
    engine = make_async_engine(settings.database_url)
    try:
        async with make_sessionmaker(engine)() as session:
            await ensure_bootstrap(session, settings)
    finally:
        await engine.dispose()


@contextmanager
def serve_target(settings: Settings, workers: int) -> Iterator[tuple[FastAPI | str, dict[str, Any]]]:
    """What `tdg serve` hands uvicorn.run, and the options that go with it: for one process, the
    app; for several, the import string of the worker factory (each worker process builds its own
    app) with factory=True. Before the workers start, this process applies the migrations and
    creates the SuperUser and the signing key, once rather than raced by N processes, and exports
    the public URL it derived for the workers' settings."""
    if workers <= 1:
        yield create_app(settings), {}
        return
    configure_hashing(settings.password_hash_time_cost, settings.password_hash_memory_kib)
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    upgrade_apart(settings.database_url)
    settings.signing_key()
    asyncio.run(_bootstrap(settings))
    if settings.public_url:
        os.environ["TDG_PUBLIC_URL"] = settings.public_url
    lock = lock_path(settings.data_dir, os.getpid())
    try:
        # a worker answers uvicorn's health check only once it runs, after its interpreter started
        # and imported uvicorn: on a busy machine that took over the default 5 s, and the worker was
        # killed and replaced before it had started
        options = {"factory": True, "workers": workers, "timeout_worker_healthcheck": WORKER_START_SECONDS}
        yield SERVE_WORKER_FACTORY, options
    finally:
        lock.unlink(missing_ok=True)
