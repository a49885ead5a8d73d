"""One webhook POST through the SSRF guard. httpcore's network backend is replaced by one that
vets the destination at connect time and connects to the vetted address (TLS still verifies
the original host name); redirects are never followed, an answer 3xx counts as a failure."""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass

import httpcore

from app.core.webhooks import ssrf

RESPONSE_KEEP_BYTES = 1024


class _VettedBackend(httpcore.AsyncNetworkBackend):
    def __init__(self, *, allow_private: bool) -> None:
        self._inner = httpcore.AnyIOBackend()
        self._allow_private = allow_private

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        addresses = await ssrf.resolve(host, port, allow_private=self._allow_private)
        last: Exception | None = None
        for address in addresses:
            try:
                return await self._inner.connect_tcp(
                    address, port, timeout=timeout, local_address=local_address, socket_options=socket_options
                )
            except (httpcore.ConnectError, httpcore.ConnectTimeout) as exc:
                last = exc
        assert last is not None
        raise last

    async def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,
        socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        raise httpcore.ConnectError("unix sockets are not webhook destinations")

    async def sleep(self, seconds: float) -> None:
        await self._inner.sleep(seconds)


@dataclass(frozen=True, slots=True)
class SendResult:
    ok: bool
    status_code: int | None
    error: str | None
    response_body: str | None
    duration_ms: int


async def post(
    url: str, headers: dict[str, str], body: bytes, *, timeout: float, allow_private: bool
) -> SendResult:
    """POST once; never raises for network trouble, the outcome is in the result."""
    started = time.monotonic()

    def done(ok: bool, status: int | None, error: str | None, text: str | None) -> SendResult:
        return SendResult(ok, status, error, text, int((time.monotonic() - started) * 1000))

    try:
        ssrf.split_url(url)
        async with httpcore.AsyncConnectionPool(
            network_backend=_VettedBackend(allow_private=allow_private), max_connections=1, retries=0
        ) as pool:
            response = await pool.request(
                "POST",
                url,
                headers=list(headers.items()),
                content=body,
                extensions={
                    "timeout": {"connect": timeout, "read": timeout, "write": timeout, "pool": timeout}
                },
            )
            text = response.content[:RESPONSE_KEEP_BYTES].decode("utf-8", "replace")
    except ssrf.UnsafeDestination as exc:
        return done(False, None, str(exc), None)
    except httpcore.TimeoutException:
        return done(False, None, "The receiver did not answer in time.", None)
    except (httpcore.NetworkError, httpcore.ProtocolError, httpcore.UnsupportedProtocol, OSError) as exc:
        return done(False, None, f"Connection failed ({exc.__class__.__name__}).", None)
    status = response.status
    if 200 <= status < 300:
        return done(True, status, None, text)
    if 300 <= status < 400:
        return done(False, status, f"The receiver answered {status} (redirects are not followed).", text)
    return done(False, status, f"The receiver answered {status}.", text)
