"""The submission process: loads untrusted code and answers calls from the checker.

It never holds the hidden tests: it is forked from a zygote that never reads them,
before the job arrives. Everything it sends back is marshal data, which can only
hold built-in values, so an object that claims to equal everything cannot leave it.
"""

import builtins
import io
import marshal
import os
import pickle
import sys
import traceback

from . import wire

SOLUTION_FILE = "solution.py"
CAPTURE_CAP = 16 * 1024
FILES_CAP = 16  # files of the work dir shown to the tests after each call


class _CappedWriter(io.TextIOBase):
    """stdout/stderr stand-in for one call: keeps the first CAPTURE_CAP characters."""

    def __init__(self):
        self.parts = []
        self.size = 0

    def writable(self):
        return True

    def write(self, text):
        if self.size < CAPTURE_CAP:
            self.parts.append(text[: CAPTURE_CAP - self.size])
            self.size += len(self.parts[-1])
        return len(text)

    def value(self):
        return "".join(self.parts)


def exception_summary(exc):
    """(builtin-ancestor names, message, traceback limited to the submission's frames)."""
    names = [
        cls.__name__ for cls in type(exc).__mro__ if getattr(builtins, cls.__name__, None) is cls
    ]
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == SOLUTION_FILE]
    lines = traceback.format_list(frames[-5:])
    try:
        message = str(exc)
    except BaseException:  # a hostile __str__ must not take the protocol down
        message = "<unprintable>"
    return names, message[:2000], "".join(lines)[-4000:]


class _LogCapture:
    """Collects (logger, level, message) of every record emitted during a call."""

    def __init__(self):
        self.records = []
        self.handler = None

    def __enter__(self):
        logging = sys.modules.get("logging")
        if logging is None:  # the submission never imported logging: nothing can be logged
            return self
        records = self.records

        class Handler(logging.Handler):
            def emit(self, record):
                try:
                    records.append((record.name, record.levelname, record.getMessage()[:2000]))
                except Exception:
                    records.append((record.name, record.levelname, "<unformattable>"))

        self.handler = Handler(logging.DEBUG)
        root = logging.getLogger()
        self.saved_level = root.level
        root.addHandler(self.handler)
        root.setLevel(logging.DEBUG)  # as a test's log capture does: see INFO without config
        return self

    def __exit__(self, *exc):
        if self.handler is not None:
            root = sys.modules["logging"].getLogger()
            root.removeHandler(self.handler)
            root.setLevel(self.saved_level)
        return False


def _files():
    """The work dir's regular files after a call (name -> text, capped): tests can check
    what a submission wrote, without sharing a filesystem with it."""
    try:
        names = sorted(os.listdir("."))[:FILES_CAP]
    except OSError:
        return {}
    files = {}
    for name in names:
        try:
            with open(name, "rb") as fh:
                files[name] = fh.read(CAPTURE_CAP).decode("utf-8", "replace")
        except OSError:
            continue
    return files


def _flush():
    for stream in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
        try:
            stream.flush()
        except BaseException:
            pass


def _reply(fd, message):
    _flush()  # the zygote may kill us as soon as the checker is done: nothing stays buffered
    wire.send(fd, marshal.dumps(message))


def _call(fn, args, kwargs):
    out, err = _CappedWriter(), _CappedWriter()
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = out, err
    logs = _LogCapture()
    try:
        with logs:
            value = fn(*args, **kwargs)
    except BaseException as exc:
        sys.stdout, sys.stderr = saved
        names, message, tb = exception_summary(exc)
        return ("raise", names, message, tb, out.value(), err.value(), logs.records, _files())
    sys.stdout, sys.stderr = saved
    channels = (out.value(), err.value(), logs.records, _files())
    try:
        return ("ok", marshal.dumps(value), *channels)
    except (ValueError, TypeError):
        try:
            shown = repr(value)[:300]
        except BaseException:
            shown = "<unprintable>"
        return ("badtype", type(value).__qualname__, shown, *channels)


def _exit():
    _flush()
    os._exit(0)


def serve(code_fd, req_fd, resp_fd, enter_sandbox):
    """Read the job's code, load it, then answer calls until the checker hangs up."""
    job = wire.recv_json(code_fd)
    os.close(code_fd)
    if job is None:
        os._exit(0)
    enter_sandbox(job["limits"])
    namespace = {"__name__": "solution", "__builtins__": builtins}
    try:
        exec(compile(job["code"], SOLUTION_FILE, "exec"), namespace)
    except BaseException as exc:
        names, message, tb = exception_summary(exc)
        _reply(resp_fd, ("load_error", names, message, tb))
        _exit()
    fn = namespace.get(job["entry_point"])
    if not callable(fn):
        _reply(resp_fd, ("missing", job["entry_point"]))
        _exit()
    _reply(resp_fd, ("ready",))
    while True:
        request = wire.recv(req_fd)
        if request is None:
            _exit()
        decode = marshal.loads if request[:1] == b"m" else pickle.loads
        args, kwargs = decode(request[1:])
        _reply(resp_fd, _call(fn, args, kwargs))
