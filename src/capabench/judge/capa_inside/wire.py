"""Length-prefixed frames over pipes, shared by the harness and the sandbox.

Stdlib only: this file runs inside the sandbox, where capabench is not importable.
"""

import json
import os
import select
import struct
import time

_HEADER = struct.Struct(">I")
MAX_FRAME = 64 * 1024 * 1024


class WireError(Exception):
    """The peer sent something that is not a frame, or went away mid-frame."""


def write_all(fd, data, deadline=None):
    view = memoryview(data)
    while view:
        if deadline is not None:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("peer stopped reading")
            if not select.select([], [fd], [], left)[1]:
                continue
        view = view[os.write(fd, view) :]


def read_exact(fd, n, deadline=None):
    """Read exactly n bytes; None on a clean EOF before the first byte."""
    chunks = []
    got = 0
    while got < n:
        if deadline is not None:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("peer stopped writing")
            if not select.select([fd], [], [], left)[0]:
                continue
        chunk = os.read(fd, min(n - got, 1 << 20))
        if not chunk:
            if got == 0:
                return None
            raise WireError(f"EOF after {got} of {n} bytes")
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)


def send(fd, payload, deadline=None):
    write_all(fd, _HEADER.pack(len(payload)) + payload, deadline)


def recv(fd, limit=MAX_FRAME, deadline=None):
    """One frame's payload, or None on EOF."""
    head = read_exact(fd, _HEADER.size, deadline)
    if head is None:
        return None
    (size,) = _HEADER.unpack(head)
    if size > limit:
        raise WireError(f"frame of {size} bytes exceeds the limit of {limit}")
    body = read_exact(fd, size, deadline)
    if body is None and size:
        raise WireError("EOF before the frame body")
    return body or b""


def send_json(fd, obj, deadline=None):
    send(fd, json.dumps(obj).encode(), deadline)


def recv_json(fd, limit=MAX_FRAME, deadline=None):
    payload = recv(fd, limit, deadline)
    if payload is None:
        return None
    try:
        return json.loads(payload)
    except ValueError as exc:
        raise WireError(f"malformed JSON frame: {exc}") from None
