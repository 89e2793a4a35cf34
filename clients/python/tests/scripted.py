"""Scripted in-process servers for the unit tests: http.server on 127.0.0.1, port 0."""

from __future__ import annotations

import json
import os
import socket
import ssl
import struct
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Callable, Dict, List, Optional, Tuple
from urllib.parse import parse_qs, urlsplit

ID64 = "application/vnd.idmint.id64"
Reply = Tuple[int, Dict[str, str], bytes]


def problem(status: int, title: str, detail: str,
            retry_after: Optional[int] = None) -> Reply:
    headers = {"Content-Type": "application/problem+json"}
    if retry_after is not None:
        headers["Retry-After"] = str(retry_after)
    body = json.dumps({"type": "urn:idmint:problem:test", "title": title, "status": status,
                       "detail": detail}).encode()
    return status, headers, body


def id64(ids: List[int]) -> Reply:
    return 200, {"Content-Type": ID64}, struct.pack(">%dq" % len(ids), *ids)


def as_json(doc: object) -> Reply:
    return 200, {"Content-Type": "application/json"}, json.dumps(doc).encode()


class Request:
    def __init__(self, path: str, headers: Dict[str, str]) -> None:
        self.path = path
        self.headers = headers
        split = urlsplit(path)
        self.route = split.path
        self.query = {k: v[0] for k, v in parse_qs(split.query).items()}

    @property
    def count(self) -> int:
        return int(self.query.get("count", "1"))


class Server:
    """An HTTP/1.1 keep-alive server whose answers come from ``script(request)``."""

    def __init__(self, script: Callable[[Request], Reply], close_after_each: bool = False,
                 tls: Optional[ssl.SSLContext] = None):
        self.script = script
        self.requests: List[Request] = []
        self.lock = threading.Lock()
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:  # noqa: N802 (http.server's name)
                req = Request(self.path, {k.lower(): v for k, v in self.headers.items()})
                with owner.lock:
                    owner.requests.append(req)
                status, headers, body = owner.script(req)
                self.send_response(status)
                for k, v in headers.items():
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
                if close_after_each:
                    # Closes without saying so, as a server whose idle timeout ran out.
                    self.close_connection = True

            def log_message(self, format: str, *args: object) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        if tls is not None:
            self.httpd.socket = tls.wrap_socket(self.httpd.socket, server_side=True)
        self.port = self.httpd.server_address[1]
        self.address = "127.0.0.1:%d" % self.port
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={
            "poll_interval": 0.05}, daemon=True)
        self.thread.start()

    def count(self, route: Optional[str] = None) -> int:
        with self.lock:
            return sum(1 for r in self.requests if route is None or r.route == route)

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


class IdSource:
    """``/v1/ids`` answers from a counter: IDs ``next``, ``next + 1``, … per request."""

    def __init__(self, start: int) -> None:
        self.next = start
        self.lock = threading.Lock()

    def __call__(self, req: Request) -> Reply:
        if req.route != "/v1/ids":
            return problem(404, "Not found", "no route " + req.route)
        with self.lock:
            ids = list(range(self.next, self.next + req.count))
            self.next += req.count
        return id64(ids)


class Silent:
    """Accepts TCP connections and never answers (a SIGSTOPped server)."""

    def __init__(self) -> None:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.port = self.sock.getsockname()[1]
        self.address = "127.0.0.1:%d" % self.port
        self.held: List[socket.socket] = []
        self.closed = False
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while not self.closed:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.held.append(conn)
            self._accepted(conn)

    def _accepted(self, conn: socket.socket) -> None:
        """What happens to a connection once accepted: here, nothing ever."""

    def close(self) -> None:
        self.closed = True
        self.sock.close()
        for c in self.held:
            c.close()


class Trickle(Silent):
    """Reads a request and answers 200 with IDs, but a byte at a time, one every ``gap``
    seconds: a server that is not silent and still never finishes an answer in time."""

    def __init__(self, gap: float) -> None:
        self.gap = gap
        super().__init__()

    def _accepted(self, conn: socket.socket) -> None:
        threading.Thread(target=self._answer, args=(conn,), daemon=True).start()

    def _answer(self, conn: socket.socket) -> None:
        body = struct.pack(">q", 1) * 100
        head = ("HTTP/1.1 200 OK\r\nContent-Type: %s\r\nContent-Length: %d\r\n\r\n"
                % (ID64, len(body))).encode()
        try:
            conn.recv(65536)
            conn.sendall(head)
            for i in range(len(body)):
                if self.closed:
                    return
                conn.sendall(body[i:i + 1])
                threading.Event().wait(self.gap)
        except OSError:
            return


TLS_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tls")


def tls_file(name: str) -> str:
    """A file of tests/tls (made by its gen.sh): ca.pem, server.pem, client.pem, …"""
    return os.path.join(TLS_DIR, name)


def server_tls(require_client_certificate: bool = False) -> ssl.SSLContext:
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(tls_file("server.pem"), tls_file("server-key.pem"))
    if require_client_certificate:
        ctx.verify_mode = ssl.CERT_REQUIRED
        ctx.load_verify_locations(tls_file("ca.pem"))
    return ctx


def refused_address() -> str:
    """An address where nothing listens: connecting is refused."""
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return "127.0.0.1:%d" % port
