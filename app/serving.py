"""The HTTP server under `tdg serve`: uvicorn's httptools protocol with the guards uvicorn lacks.

uvicorn (0.54) arms its keep-alive timer only after a response, so a connection that sends
nothing, or trickles its request line and headers a byte at a time, is held open forever (the
slowloris attack: enough of them and the process runs out of file descriptors). Its
`limit_concurrency` answers 503 only once a request's headers are complete, so it cannot cap
such connections either, and httptools, unlike h11, puts no limit on the size of the headers.
`GuardedHttpToolsProtocol` adds, per connection:

- a header-read deadline: from the moment a connection opens (or a keep-alive connection's next
  request begins), its request line and headers must be complete within `header_timeout`
  seconds, however steadily bytes trickle in; else 408 and close (close alone when not a byte
  of the request came),
- a cap on the bytes of a request's head: over `max_header_bytes`, 431 and close,
- a pipelined request refused so (408, 431) while an earlier one is still being answered gets
  its refusal after that answer, as HTTP/1.1 answers in order; the client's further bytes are
  dropped unread,
- a connection cap: a connection accepted while `max_connections` are open is answered 503 at
  once (`connection: close`, `retry-after`) and closed, so it holds its descriptor for at most
  a second; past `max_connections // 8 + 16` such lingering refusals, refused ones are closed
  without waiting for the client.

The keep-alive timeout is uvicorn's own (`timeout_keep_alive`). The limits travel on the uvicorn
`Config` (`ServeConfig`), so a server process started from a pickled config keeps them.

Memory: a large request (an upload) leaves garbage in reference cycles and freed memory in
glibc's heaps, which glibc keeps; once the server has been idle for a second after one, a full
garbage collection and then `malloc_trim(0)` return the free pages to the system. `tune_allocator` caps glibc at two malloc arenas (see there). Together they took the
idle server from 398 to 363 MB after 400 uploads of 1 MB, with a 64 MiB schema cache
(benchmarks/memory.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import ctypes.util
import dataclasses
import gc
import logging
import os
import resource
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, cast

import uvicorn
from uvicorn.config import STARTUP_FAILURE, Config
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol, RequestResponseCycle
from uvicorn.server import ServerState
from uvicorn.supervisors import Multiprocess

from app.core.error_codes import ErrorCode
from app.core.settings import Settings
from app.listening import worker_sockets

logger = logging.getLogger("uvicorn.error")

# how long a refused connection waits for the client to read the 503 and close
REFUSED_LINGER_SECONDS = 1.0
REFUSAL_LOG_INTERVAL = 10.0
# A request body this large (an upload) leaves freed memory in the C heap when it has been
# handled; once the server has been idle for TRIM_IDLE_SECONDS after the last such request,
# malloc_trim(0) hands the free pages back to the system (glibc; elsewhere nothing is done).
TRIM_AFTER_BODY_BYTES = 256 * 1024
TRIM_IDLE_SECONDS = 1.0
# descriptors kept free of connections: the database, the generation pool's pipes, log files
DESCRIPTOR_RESERVE = 128


def _libc(name: str, argtypes: list[type[ctypes.c_int] | type[ctypes.c_size_t]]) -> Callable[..., int] | None:
    """A glibc allocator function, or None (another C library, or none found)."""
    try:
        function = getattr(ctypes.CDLL(ctypes.util.find_library("c")), name)
    except (OSError, AttributeError, TypeError):
        return None
    function.argtypes, function.restype = argtypes, ctypes.c_int
    return cast(Callable[..., int], function)


_malloc_trim = _libc("malloc_trim", [ctypes.c_size_t])
_collect_garbage = gc.collect
_mallopt = _libc("mallopt", [ctypes.c_int, ctypes.c_int])
_M_ARENA_MAX = -8
_M_MMAP_THRESHOLD = -3
MALLOC_ARENAS = 2
# blocks this large are mapped on their own and unmapped when freed (glibc's default is 128 KiB,
# raised on the fly up to 32 MiB by every larger block freed)
MMAP_THRESHOLD_BYTES = 1024 * 1024


def tune_allocator() -> None:
    """At most MALLOC_ARENAS glibc malloc arenas, unless MALLOC_ARENA_MAX says otherwise: glibc
    gives each thread that allocates its own arena (up to 8 per core), and each keeps the memory
    its peak took; the server's threads (the event loop, uvloop's executor, aiosqlite's) mostly
    wait for the GIL anyway. Set for this process and, through the environment, for the
    processes it starts (--workers, the generation pool)."""
    fix_mmap_threshold()
    if "MALLOC_ARENA_MAX" in os.environ:
        return
    os.environ["MALLOC_ARENA_MAX"] = str(MALLOC_ARENAS)
    if _mallopt is not None:
        _mallopt(_M_ARENA_MAX, MALLOC_ARENAS)


def fix_mmap_threshold() -> None:
    """Blocks of MMAP_THRESHOLD_BYTES or more always mapped on their own, in this server process
    (not the generation processes, whose large arrays come and go), unless MALLOC_MMAP_THRESHOLD_
    is set. glibc's threshold otherwise rises to the size of every larger mapped block freed: after
    one 1 MB upload, each password hash (argon2's 19 MiB) came from the heap and stayed resident,
    19 MiB per malloc arena."""
    if _mallopt is not None and "MALLOC_MMAP_THRESHOLD_" not in os.environ:
        _mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD_BYTES)


@dataclass(frozen=True)
class ConnectionLimits:
    header_timeout: float = 10.0
    keep_alive: int = 5
    max_connections: int = 1000
    max_header_bytes: int = 64 * 1024

    @classmethod
    def of(
        cls,
        settings: Settings,
        header_timeout: float | None = None,
        keep_alive: int | None = None,
        max_connections: int | None = None,
    ) -> ConnectionLimits:
        """The settings' limits, with `tdg serve`'s options in place of the ones given."""
        return cls(
            header_timeout=header_timeout or settings.http_header_timeout_seconds,
            keep_alive=keep_alive or settings.http_keep_alive_seconds,
            max_connections=max_connections or settings.http_max_connections,
            max_header_bytes=settings.http_max_header_bytes,
        )

    @property
    def max_lingering_refusals(self) -> int:
        return self.max_connections // 8 + 16


class ServeConfig(Config):
    """uvicorn's Config with the guarded protocol and its limits."""

    def __init__(self, app: Any, limits: ConnectionLimits, **kwargs: Any) -> None:
        super().__init__(app, http=GuardedHttpToolsProtocol, timeout_keep_alive=limits.keep_alive, **kwargs)
        self.limits = limits
        self.lingering_refusals = 0
        self._refusals_logged_at = -REFUSAL_LOG_INTERVAL
        self._refusals_unlogged = 0
        self._trim_timer: asyncio.TimerHandle | None = None

    def note_refusal(self, open_connections: int) -> None:
        """Log refusals, at most once per REFUSAL_LOG_INTERVAL (a flood would flood the log)."""
        self._refusals_unlogged += 1
        now = time.monotonic()
        if now - self._refusals_logged_at >= REFUSAL_LOG_INTERVAL:
            logger.warning(
                "Refused %d connection(s): %d are open, the cap (TDG_HTTP_MAX_CONNECTIONS) is %d.",
                self._refusals_unlogged,
                open_connections,
                self.limits.max_connections,
            )
            self._refusals_logged_at, self._refusals_unlogged = now, 0

    def large_request_done(self, loop: asyncio.AbstractEventLoop) -> None:
        """(Re)arm the idle trim: TRIM_IDLE_SECONDS after the last large request ends."""
        timer = self._trim_timer
        if timer is not None:
            timer.cancel()
        self._trim_timer = loop.call_later(TRIM_IDLE_SECONDS, self._trim, loop)

    def _trim(self, loop: asyncio.AbstractEventLoop) -> None:
        self._trim_timer = None
        # what the large requests left in reference cycles (parsed schemas, compiled fields) waits
        # for a full collection, which the start-up's raised thresholds make rare (app/main.py):
        # collect it first, so that the trim finds its memory free. The server is idle; the pause
        # (tens of ms, the start-up's objects are frozen out of it) delays no request in progress
        _collect_garbage()
        if _malloc_trim is not None:
            loop.run_in_executor(None, _malloc_trim, 0)

    def __getstate__(self) -> dict[str, Any]:
        # pickled for --workers processes: a timer belongs to the loop of the process that set it
        return {**self.__dict__, "_trim_timer": None}


def _response(status: int, reason: str, detail: str, code: ErrorCode, extra: bytes = b"") -> bytes:
    body = b'{"detail":"%s","code":"%s"}' % (detail.encode(), code.value.encode())
    return (
        b"HTTP/1.1 %d %s\r\ncontent-type: application/json\r\ncontent-length: %d\r\n"
        b"connection: close\r\n%s\r\n%s" % (status, reason.encode(), len(body), extra, body)
    )


REFUSED = _response(
    503,
    "Service Unavailable",
    "The server has too many open connections; retry shortly.",
    ErrorCode.BUSY,
    b"retry-after: 1\r\n",
)
HEADER_TIMEOUT = _response(
    408, "Request Timeout", "The request headers did not arrive in time.", ErrorCode.REQUEST_TIMEOUT
)
HEADER_TOO_LARGE = _response(
    431, "Request Header Fields Too Large", "The request headers are too large.", ErrorCode.HEADERS_TOO_LARGE
)


class HeadTooLarge(Exception):
    """Raised in a parser callback: httptools stops and reports a parser error, answered 431."""


class GuardedHttpToolsProtocol(HttpToolsProtocol):
    def __init__(
        self,
        config: Config,
        server_state: ServerState,
        app_state: dict[str, Any],
        _loop: asyncio.AbstractEventLoop | None = None,
    ) -> None:
        super().__init__(config, server_state, app_state, _loop)
        self.serve_config = config if isinstance(config, ServeConfig) else None
        self.limits = self.serve_config.limits if self.serve_config is not None else ConnectionLimits()
        self.header_deadline: asyncio.TimerHandle | None = None
        self.awaiting_headers = False
        self.head_bytes = 0  # bytes received since the current request began, while its head is incomplete
        self.head_started = False  # a byte of the current request has arrived
        self.head_parsed = 0  # bytes of the current request's line and headers, as parsed
        self.head_too_large = False
        self.refused = False
        self.lingering = False
        self.body_bytes = 0  # of the current request
        self.pending_refusal: bytes | None = None  # sent once the earlier requests are answered

    # connection cap

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]  # as uvicorn narrows it
        if len(self.connections) >= self.limits.max_connections:
            self._refuse(transport)
            return
        super().connection_made(transport)
        self._await_headers()

    def _refuse(self, transport: asyncio.Transport) -> None:
        self.refused = True
        self.transport = transport
        transport.write(REFUSED)
        config = self.serve_config
        if config is not None:
            config.note_refusal(len(self.connections))
        if config is None or config.lingering_refusals >= self.limits.max_lingering_refusals:
            transport.close()
            return
        # read (and drop) what the client sends until it closes (uvicorn closes on EOF), so the kernel does not answer its
        # unread request with a reset that would discard the 503 before the client reads it
        config.lingering_refusals += 1
        self.lingering = True
        if transport.can_write_eof():
            transport.write_eof()
        self.header_deadline = self.loop.call_later(REFUSED_LINGER_SECONDS, transport.abort)

    # header-read deadline and size cap

    def _await_headers(self) -> None:
        self.awaiting_headers = True
        self.head_bytes = 0
        if self.header_deadline is None:
            self.header_deadline = self.loop.call_later(self.limits.header_timeout, self._headers_late)

    def _headers_arrived(self) -> None:
        self.awaiting_headers = False
        self.head_started = False
        if self.header_deadline is not None:
            self.header_deadline.cancel()
            self.header_deadline = None

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self.body_bytes = 0
        self.head_parsed = 0
        self._await_headers()  # keeps the deadline already running (a connection's first request)
        self.head_started = True

    # The parser's own count of the head: data_received counts bytes only while the head is
    # incomplete after a read, and a read (up to 256 KiB) holding a whole head parses it first
    def on_url(self, url: bytes) -> None:
        self._count_head(len(url))
        super().on_url(url)

    def on_header(self, name: bytes, value: bytes) -> None:
        self._count_head(len(name) + len(value) + 4)  # ": " and CRLF
        super().on_header(name, value)

    def _count_head(self, size: int) -> None:
        self.head_parsed += size
        if self.head_parsed > self.limits.max_header_bytes:
            self.head_too_large = True
            raise HeadTooLarge  # stops the parser before the app sees the request: send_400_response

    def send_400_response(self, msg: str) -> None:
        if self.head_too_large:
            self._end_request(HEADER_TOO_LARGE, "Closed a connection whose request headers were too large.")
            return
        super().send_400_response(msg)

    def on_body(self, body: bytes) -> None:
        self.body_bytes += len(body)
        super().on_body(body)

    def on_response_complete(self) -> None:
        if self.body_bytes >= TRIM_AFTER_BODY_BYTES and self.serve_config is not None:
            self.serve_config.large_request_done(self.loop)
        refusal = self.pending_refusal
        # once the last request before the refused one is answered (a queued one may still be due)
        if (
            refusal is not None
            and not self.pipeline
            and self.cycle.response_complete
            and not self.transport.is_closing()
        ):
            self.transport.write(refusal)
            self.transport.close()
        super().on_response_complete()

    def on_headers_complete(self) -> None:
        self._headers_arrived()
        super().on_headers_complete()

    def data_received(self, data: bytes) -> None:
        if self.refused or self.pending_refusal is not None:
            return
        super().data_received(data)
        if self.awaiting_headers and not self.transport.is_closing():
            # a chunk that ends an earlier request's body and begins this one counts whole: only
            # pipelining clients send such chunks
            self.head_bytes += len(data)
            if self.head_bytes > self.limits.max_header_bytes:
                self._end_request(
                    HEADER_TOO_LARGE, "Closed a connection whose request headers were too large."
                )

    def _headers_late(self) -> None:
        self.header_deadline = None
        if self.head_started:
            self._end_request(HEADER_TIMEOUT, "Closed a connection whose request headers were late.")
        elif not self.transport.is_closing():
            self.transport.close()

    def _end_request(self, response: bytes, message: str) -> None:
        """Refuse the request whose head is too large or late with `response`, then close. HTTP/1.1
        answers in order: when a pipelined request is refused while an earlier one is still being
        answered, the refusal waits for that answer (on_response_complete) and the client's further
        bytes are dropped unread (counted by no limit any more, they would pile up in the parser)."""
        if self.transport.is_closing():
            return
        logger.debug("%s: %s", self.client, message)
        self._headers_arrived()
        cycle: RequestResponseCycle | None = self.cycle
        if cycle is not None and not cycle.response_complete:
            self.pending_refusal = response
            self.flow.pause_reading()
            return
        self.transport.write(response)
        self.transport.close()

    def connection_lost(self, exc: Exception | None) -> None:
        if self.header_deadline is not None:
            self.header_deadline.cancel()
            self.header_deadline = None
        if self.refused:
            if self.lingering and self.serve_config is not None:
                self.serve_config.lingering_refusals -= 1
            return
        super().connection_lost(exc)


def run(config: ServeConfig) -> None:
    """Serve until interrupted: uvicorn.run's paths for one process and for several (the app is
    then an import string each worker imports; the limits reach the workers on the pickled config)."""
    fit_descriptor_limit(config)
    if config.workers > 1:
        sockets, claim = worker_sockets(config)
        with claim:
            Multiprocess(config, sockets=sockets).run()
        return
    server = uvicorn.Server(config)
    with contextlib.suppress(KeyboardInterrupt):  # uvicorn handles SIGINT itself
        server.run()
    if not server.started:
        sys.exit(STARTUP_FAILURE)


def fit_descriptor_limit(config: ServeConfig) -> None:
    """Make room for the connection cap under the process's open-file limit (RLIMIT_NOFILE),
    which the cap is meant to protect: raise the soft limit towards the hard one if it is short
    of the cap plus DESCRIPTOR_RESERVE (database, pool, log files), else lower the cap."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = config.limits.max_connections + DESCRIPTOR_RESERVE
    if soft != resource.RLIM_INFINITY and soft < wanted:
        target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
    if soft != resource.RLIM_INFINITY and soft < wanted:
        cap = max(1, soft - DESCRIPTOR_RESERVE)
        logger.warning(
            "The open-file limit (%d) leaves room for %d connections, not %d: the cap is %d.",
            soft,
            cap,
            config.limits.max_connections,
            cap,
        )
        config.limits = dataclasses.replace(config.limits, max_connections=cap)
