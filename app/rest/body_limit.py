"""Caps request bodies before anything reads them into memory (413 with a JSON detail).
The schema limit itself (10 MiB of file) is checked by the service; this cap only has to
leave room for base64 and multipart framing around such a file."""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.core.error_codes import ErrorCode
from app.rest.errors import error_response

MAX_REQUEST_BYTES = 16 * 1024 * 1024


class _TooLarge(Exception):
    pass


class BodyLimitMiddleware:
    def __init__(self, app: ASGIApp, max_bytes: int = MAX_REQUEST_BYTES) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        detail = f"The request body exceeds the limit of {self.max_bytes:,} bytes."
        for name, value in scope.get("headers", []):
            if name == b"content-length" and value.isdigit() and int(value) > self.max_bytes:
                await error_response(413, detail, code=ErrorCode.PAYLOAD_TOO_LARGE)(scope, receive, send)
                return
        seen = 0
        started = False

        async def limited_receive() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.max_bytes:
                    raise _TooLarge
            return message

        async def tracking_send(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, limited_receive, tracking_send)
        except _TooLarge:
            if not started:
                await error_response(413, detail, code=ErrorCode.PAYLOAD_TOO_LARGE)(scope, receive, send)
