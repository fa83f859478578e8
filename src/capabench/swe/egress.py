"""An agent CLI's only way out of its sandbox's network namespace: a relay on the host,
listening on a unix socket that is bound into the sandbox, where a forwarder
(swe.egress_inside) passes it every loopback connection the CLI makes. The relay speaks
HTTP proxy (CONNECT host:port, or a request with an absolute URL; the CLI's HTTPS_PROXY
points at the forwarder) and, for an endpoint on the host's loopback, plain connections to
the endpoint's own port too. It connects only to the model endpoint the run was given;
every other destination is refused (403) and counted, and the counts are the session's."""

from __future__ import annotations

import socket
import threading
from collections import Counter
from pathlib import Path
from urllib.parse import urlsplit

from pydantic import BaseModel

from capabench.swe.containment import INSIDE

FORWARDER = Path(__file__).with_name("egress_inside.py")
SOCKET_NAME = "relay.sock"
PROXY_PORT = 3128  # the forwarder's proxy port when the endpoint is not on loopback
LOOPBACK = ("127.0.0.1", "localhost", "::1")
MAX_HEAD = 65536


class EgressReport(BaseModel):
    """What the sandbox tried to reach: connections made to the endpoint, and refusals."""

    endpoint: str
    allowed: int = 0
    refused: dict[str, int] = {}


def endpoint_of(url: str) -> tuple[str, int]:
    parts = urlsplit(url)
    if not parts.hostname:
        raise ValueError(f"no host in the endpoint {url!r}")
    return parts.hostname, parts.port or (443 if parts.scheme == "https" else 80)


class Relay:
    """The host side, for one session: start() before the sandbox, close() after."""

    def __init__(self, endpoint: tuple[str, int], directory: Path) -> None:
        host, port = endpoint
        self.endpoint = (host.lower(), port)
        self.loopback = self.endpoint[0] in LOOPBACK
        self.allowed = {(h, port) for h in LOOPBACK} if self.loopback else {self.endpoint}
        self.directory = directory
        self.path = directory / SOCKET_NAME
        self.report = EgressReport(endpoint=f"{host}:{port}")
        self._lock = threading.Lock()
        self._refused: Counter[str] = Counter()
        self._server: socket.socket | None = None

    # --- inside the sandbox ------------------------------------------------------------------

    @property
    def port(self) -> int:
        """The forwarder's port inside: the endpoint's own for a loopback endpoint (the CLI
        may connect to it directly), else the proxy port."""
        return self.endpoint[1] if self.loopback else PROXY_PORT

    def binds(self) -> list[tuple[Path, str]]:
        return [(self.directory, f"{INSIDE}/egress"), (FORWARDER, f"{INSIDE}/forward.py")]

    def wrap(self, argv: list[str], python: Path) -> list[str]:
        """`argv` under the forwarder (run by `python`, visible inside)."""
        inside = f"{INSIDE}/egress/{SOCKET_NAME}"
        return [
            str(python),
            "-I",
            "-S",
            f"{INSIDE}/forward.py",
            inside,
            str(self.port),
            "--",
            *argv,
        ]

    def env(self) -> dict[str, str]:
        """The proxy settings every HTTP client reads, pointing at the forwarder."""
        proxy = f"http://127.0.0.1:{self.port}"
        names = ("HTTPS_PROXY", "HTTP_PROXY", "ALL_PROXY")
        return {
            **{n: proxy for n in names},
            **{n.lower(): proxy for n in names},
            "NO_PROXY": "",
            "no_proxy": "",
        }

    # --- on the host -------------------------------------------------------------------------

    def start(self) -> Relay:
        self.directory.mkdir(parents=True, exist_ok=True)
        self.directory.chmod(0o755)
        server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        server.bind(str(self.path))
        self.path.chmod(0o666)  # the sandbox user connects; nothing else sees the directory
        server.listen(64)
        self._server = server
        threading.Thread(target=self._accept, daemon=True).start()
        return self

    def close(self) -> EgressReport:
        if self._server is not None:
            try:
                self._server.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            self._server.close()
            self._server = None
        with self._lock:
            self.report.refused = dict(self._refused)
        return self.report

    def __enter__(self) -> Relay:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.close()

    def _accept(self) -> None:
        server = self._server
        while server is not None:
            try:
                conn, _ = server.accept()
            except OSError:
                return
            threading.Thread(target=self._handle, args=(conn,), daemon=True).start()

    def _count(self, allowed: bool, target: str) -> None:
        with self._lock:
            if allowed:
                self.report.allowed += 1
            else:
                self._refused[target] += 1

    def _handle(self, conn: socket.socket) -> None:
        try:
            head = self._read_head(conn)
            target, forward, reply = self._route(head)
            if target is None:
                self._count(False, reply)
                conn.sendall(
                    b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                )
                conn.close()
                return
            self._count(True, f"{target[0]}:{target[1]}")
            upstream = socket.create_connection(target, timeout=30)
            upstream.settimeout(None)
            if reply:
                conn.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
            if forward:
                upstream.sendall(forward)
        except OSError:
            conn.close()
            return
        for a, b in ((conn, upstream), (upstream, conn)):
            threading.Thread(target=_pipe, args=(a, b), daemon=True).start()

    @staticmethod
    def _read_head(conn: socket.socket) -> bytes:
        """The first bytes: up to the end of an HTTP request head, or whatever came first
        (a TLS hello to a loopback endpoint's own port)."""
        conn.settimeout(30)
        data = conn.recv(MAX_HEAD)
        while data[:1].isalpha() and b"\r\n\r\n" not in data and len(data) < MAX_HEAD:
            more = conn.recv(MAX_HEAD)
            if not more:
                break
            data += more
        conn.settimeout(None)
        return data

    def _route(self, head: bytes) -> tuple[tuple[str, int] | None, bytes, str]:
        """(where to connect or None, bytes to send it first, and for CONNECT the 200 to
        send back; for a refusal the refused destination)."""
        line = head.split(b"\r\n", 1)[0].decode("latin-1", errors="replace")
        method, _, rest = line.partition(" ")
        uri = rest.rpartition(" ")[0] if " " in rest else rest
        if method == "CONNECT":
            host, _, port = uri.rpartition(":")
            target = (host.strip("[]").lower(), int(port) if port.isdigit() else 443)
            if target in self.allowed:
                return self._connect_to(target), b"", "connect"
            return None, b"", f"{target[0]}:{target[1]}"
        if method.isalpha() and method.isupper() and "://" in uri:
            parts = urlsplit(uri)
            host = (parts.hostname or "").lower()
            target = (host, parts.port or (443 if parts.scheme == "https" else 80))
            if target not in self.allowed or parts.scheme != "http":
                return None, b"", f"{target[0]}:{target[1]}"
            path = parts.path or "/"
            origin = f"{method} {path}{'?' + parts.query if parts.query else ''}"
            rewritten = head.replace(f"{method} {uri}".encode("latin-1"), origin.encode(), 1)
            return self._connect_to(target), rewritten, ""
        if self.loopback and head:  # a direct connection to the loopback endpoint's port
            return self._connect_to(self.endpoint), head, ""
        return None, b"", "(not a proxy request)"

    def _connect_to(self, target: tuple[str, int]) -> tuple[str, int]:
        """A loopback endpoint is reached at its own address, whatever name was used."""
        return (self.endpoint[0], target[1]) if self.loopback else target


def _pipe(src: socket.socket, dst: socket.socket) -> None:
    try:
        while data := src.recv(65536):
            dst.sendall(data)
    except OSError:
        pass
    finally:
        for sock in (src, dst):
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
