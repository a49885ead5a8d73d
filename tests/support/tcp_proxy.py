"""A TCP relay the test controls, between the app and a real server (PostgreSQL): `refuse()`
resets every relayed connection and stops listening, so the app meets what a database that went
away gives it (connections reset, new ones refused); `accept()` listens again on the same port.
Threads, not the test's event loop: the app's synchronous engine also connects through it."""

from __future__ import annotations

import contextlib
import socket
import struct
import threading


class TcpProxy:
    def __init__(self, port: int, target: tuple[str, int]) -> None:
        self.port = port
        self.target = target
        self._lock = threading.Lock()
        self._listener: socket.socket | None = None
        self._relayed: set[socket.socket] = set()

    @property
    def address(self) -> tuple[str, int]:
        return ("127.0.0.1", self.port)

    def accept(self) -> None:
        """Listen (again) and relay every connection to the target."""
        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(self.address)
        listener.listen(64)
        with self._lock:
            self._listener = listener
        threading.Thread(target=self._serve, args=(listener,), daemon=True).start()

    def refuse(self) -> None:
        """Stop listening (connections are refused) and reset every connection relayed so far."""
        with self._lock:
            listener, self._listener = self._listener, None
            relayed, self._relayed = self._relayed, set()
        if listener is not None:
            with contextlib.suppress(OSError):
                listener.shutdown(socket.SHUT_RDWR)
            listener.close()
        for sock in relayed:
            _reset(sock)

    def _serve(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return  # refuse() closed it
            try:
                upstream = socket.create_connection(self.target, timeout=5)
                upstream.settimeout(None)
            except OSError:
                _reset(client)
                continue
            with self._lock:
                if self._listener is not listener:
                    _reset(client)
                    _reset(upstream)
                    return
                self._relayed |= {client, upstream}
            for source, sink in ((client, upstream), (upstream, client)):
                threading.Thread(target=_pump, args=(source, sink), daemon=True).start()


def _pump(source: socket.socket, sink: socket.socket) -> None:
    try:
        while chunk := source.recv(65536):
            sink.sendall(chunk)
    except OSError:
        pass
    finally:
        _reset(sink)
        _reset(source)


def _reset(sock: socket.socket) -> None:
    """Close with RST (SO_LINGER 0), as a crashed host or a dropped route looks to the peer. The
    shutdown first: the other direction's thread may be blocked in recv() on this socket, and a
    close() alone neither wakes it nor ends the connection while that call holds the socket (the
    app would wait for an answer for ever)."""
    with contextlib.suppress(OSError):
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    with contextlib.suppress(OSError):
        sock.shutdown(socket.SHUT_RDWR)
    with contextlib.suppress(OSError):
        sock.close()
