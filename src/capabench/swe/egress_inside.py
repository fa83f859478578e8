"""The forwarder that runs inside an agent's sandbox (stdlib only; capabench is not
importable there): it listens on loopback in the sandbox's own network namespace, passes
every connection, bytes unchanged, to the host's relay (swe.egress) through a unix socket
bound into the sandbox, and runs the agent as its child, exiting as it does. It decides
nothing: what may be reached is the relay's decision, on the host.

usage: python -I -S egress_inside.py SOCKET PORT[,PORT...] -- ARGV..."""

import os
import signal
import socket
import subprocess
import sys
import threading


def pipe(src: socket.socket, dst: socket.socket) -> None:
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


def serve(listener: socket.socket, path: str) -> None:
    while True:
        conn, _ = listener.accept()
        try:
            relay = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            relay.connect(path)
        except OSError:
            conn.close()
            continue
        for a, b in ((conn, relay), (relay, conn)):
            threading.Thread(target=pipe, args=(a, b), daemon=True).start()


def listen(family: int, host: str, port: int) -> socket.socket | None:
    try:
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(64)
        return sock
    except OSError:
        return None


def main() -> int:
    path, ports, sep, *argv = sys.argv[1:]
    assert sep == "--" and argv
    for port in map(int, ports.split(",")):
        for family, host in ((socket.AF_INET, "127.0.0.1"), (socket.AF_INET6, "::1")):
            if (sock := listen(family, host, port)) is not None:
                threading.Thread(target=serve, args=(sock, path), daemon=True).start()
    child = subprocess.Popen(argv)
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, lambda s, _f: child.send_signal(s))
    code = child.wait()
    return 128 - code if code < 0 else code


if __name__ == "__main__":
    sys.stdout.flush()
    os._exit(main())
