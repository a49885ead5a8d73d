"""A real HTTP receiver on loopback for webhook tests: records every request and answers with a
scripted sequence of statuses (then a default), optionally redirecting."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from tests.support.ports import free_port


@dataclass
class Received:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes


@dataclass
class Receiver:
    statuses: list[int] = field(default_factory=list)
    default_status: int = 200
    redirect_to: str | None = None
    requests: list[Received] = field(default_factory=list)

    def __post_init__(self) -> None:
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def _handle(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(length) if length else b""
                receiver.requests.append(Received(self.command, self.path, {k.lower(): v for k, v in
                                                                            self.headers.items()}, body))
                status = receiver.statuses.pop(0) if receiver.statuses else receiver.default_status
                self.send_response(status)
                if receiver.redirect_to is not None:
                    self.send_header("Location", receiver.redirect_to)
                answer = f"<b>status {status}</b>".encode() + b"x" * 4000
                self.send_header("Content-Length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)

            do_GET = do_POST = do_PUT = _handle

            def log_message(self, *args: object) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/hook"

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()


def closed_port() -> int:
    """A loopback port nobody listens on (claimed for this process: no other test listens on it)."""
    return free_port()
