"""The checker process: runs the hidden tests against a proxy of the submission.

No submission code ever runs here. The proxy forwards each call to the submission
process and rebuilds the answer from marshal data (built-in values only), so a pass
is decided by code the harness trusts, after `check` has really returned.
"""

import ast
import base64
import builtins
import marshal
import pickle
import traceback
import types

from . import wire

REPR_CAP = 500
_RESOURCE_EXCEPTIONS = {"MemoryError": "memory", "BlockingIOError": "processes"}


class CandidateGone(BaseException):
    """The submission process stopped answering (it exited, was killed, or broke the protocol)."""


class CandidateAborted(BaseException):
    """The submission raised SystemExit/KeyboardInterrupt/GeneratorExit inside a call."""


class EqFailure(AssertionError):
    def __init__(self, line, got, expected, oriented):
        super().__init__(f"{got!r} != {expected!r}")
        self.line, self.got, self.expected, self.oriented = line, got, expected, oriented


def _short(value):
    text = repr(value)
    return text if len(text) <= REPR_CAP else text[: REPR_CAP - 3] + "..."


def _assert_eq(left, right, line, got_side):
    if left == right:
        return
    got, expected = (right, left) if got_side == 1 else (left, right)
    raise EqFailure(line, got, expected, got_side is not None)


class _AssertRewriter(ast.NodeTransformer):
    """`assert a == b` becomes a call that keeps both values for the failure report."""

    def __init__(self, candidate_names):
        self.candidate_names = candidate_names

    def _calls_candidate(self, node):
        return any(
            isinstance(n, ast.Call)
            and isinstance(n.func, ast.Name)
            and n.func.id in self.candidate_names
            for n in ast.walk(node)
        )

    def visit_Assert(self, node):
        test = node.test
        if not (
            isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)
        ):
            return node
        left, right = test.left, test.comparators[0]
        sides = [self._calls_candidate(left), self._calls_candidate(right)]
        got_side = sides.index(True) if sides.count(True) == 1 else None
        call = ast.Call(
            func=ast.Name("__capa_assert_eq__", ast.Load()),
            args=[left, right, ast.Constant(node.lineno), ast.Constant(got_side)],
            keywords=[],
        )
        return ast.fix_missing_locations(ast.copy_location(ast.Expr(call), node))

    def visit_stmt(self, node):
        """Asserts are statements: descend through statements only, never into the big
        expressions (literal case tables) that generated tests carry."""
        for field in ("body", "orelse", "finalbody", "handlers", "cases"):
            block = getattr(node, field, None)
            if isinstance(block, list):
                setattr(node, field, [self.visit(child) for child in block])
        return node

    visit_Module = visit_FunctionDef = visit_AsyncFunctionDef = visit_ClassDef = visit_stmt
    visit_If = visit_For = visit_AsyncFor = visit_While = visit_With = visit_AsyncWith = visit_stmt
    visit_Try = visit_TryStar = visit_ExceptHandler = visit_Match = visit_match_case = visit_stmt

    def generic_visit(self, node):
        return node  # any other node holds no assert statement


def compile_tests(source):
    """Compile HumanEval-style tests with assertion rewriting. Runs in the harness,
    which sends the code object in; raises SyntaxError/ValueError for unusable tests."""
    tree = ast.parse(source, "tests.py")
    if not any(isinstance(n, ast.FunctionDef) and n.name == "check" for n in tree.body):
        raise ValueError("the tests define no top-level check(candidate)")
    names = {"candidate"}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == "check" and node.args.args:
            names.add(node.args.args[0].arg)
    return compile(_AssertRewriter(names).visit(tree), "tests.py", "exec")


def _only_builtin_values(value, depth=0):
    """True when value holds no code objects (marshal's one non-value type)."""
    if depth > 200:
        return False
    if isinstance(value, types.CodeType):
        return False
    if isinstance(value, tuple | list | set | frozenset):
        return all(_only_builtin_values(v, depth + 1) for v in value)
    if isinstance(value, dict):
        return all(
            _only_builtin_values(k, depth + 1) and _only_builtin_values(v, depth + 1)
            for k, v in value.items()
        )
    return True


def _rebuild_exception(names, message):
    for name in names:
        cls = getattr(builtins, name, None)
        if not (isinstance(cls, type) and issubclass(cls, BaseException)):
            continue
        if not issubclass(cls, Exception):
            return CandidateAborted(f"the submission raised {name} inside a call")
        try:
            return cls(message)
        except Exception:
            continue
    return RuntimeError(message)


class Candidate:
    """Callable stand-in for the submission's entry point."""

    def __init__(self, name, req_fd, resp_fd, record=False):
        self.__name__ = self.__qualname__ = name
        self._req, self._resp = req_fd, resp_fd
        self.calls = 0
        self.last_request = None
        self.last_outcome = None  # ("returned", value) | ("raised", exc, traceback text, names)
        self.last_stdout = self.last_stderr = ""
        self.last_logs = []
        self.last_files = {}
        self.raised = set()
        self.record = [] if record else None

    def _receive(self):
        try:
            payload = wire.recv(self._resp)
        except (OSError, wire.WireError) as exc:
            raise CandidateGone(f"broken pipe from the submission: {exc}") from None
        if payload is None:
            raise CandidateGone("the submission process exited")
        try:
            message = marshal.loads(payload)
        except Exception:
            raise CandidateGone("the submission process sent a malformed answer") from None
        if not (isinstance(message, tuple) and message and isinstance(message[0], str)):
            raise CandidateGone("the submission process sent a malformed answer")
        if not _only_builtin_values(message):
            raise CandidateGone("the submission process sent code instead of a value")
        return message

    def handshake(self):
        """None when the submission loaded, else (status, detail)."""
        message = self._receive()
        if message[0] == "ready":
            return None
        if message[0] == "missing":
            return "error", f"the submission defines no callable `{message[1]}`"
        if message[0] == "load_error" and len(message) == 4:
            _, names, text, tb = message
            status = "resource_limit" if _resource_kind(names, text) else "error"
            return (
                status,
                f"loading the submission raised {names[0] if names else 'an exception'}: {text}\n{tb}".rstrip(),
            )
        raise CandidateGone("the submission process sent an unexpected message")

    def __call__(self, *args, **kwargs):
        try:
            request = b"m" + marshal.dumps((args, kwargs))
        except ValueError:
            request = b"p" + pickle.dumps((args, kwargs))
        self.calls += 1
        self.last_request = request
        try:
            wire.send(self._req, request)
        except OSError as exc:
            raise CandidateGone(f"the submission process stopped reading: {exc}") from None
        message = self._receive()
        if len(message) < 5:
            raise CandidateGone("the submission process sent a malformed answer")
        kind, body, (out, err, logs, files) = message[0], message[1:-4], message[-4:]
        self.last_stdout, self.last_stderr, self.last_logs = str(out), str(err), list(logs)
        self.last_files = dict(files) if isinstance(files, dict) else {}
        outcome = self._outcome(kind, body)
        if self.record is not None:
            args, kwargs = _decode(request)
            entry = {
                "args": args,
                "kwargs": kwargs,
                "stdout": self.last_stdout,
                "stderr": self.last_stderr,
                "logs": self.last_logs,
                "files": self.last_files,
            }
            if outcome[0] == "returned":
                entry["returned"] = outcome[1]
            else:
                entry["raised"] = outcome[3][0] if outcome[3] else type(outcome[1]).__name__
            self.record.append(entry)
        self.last_outcome = outcome
        if outcome[0] == "returned":
            return outcome[1]
        raise outcome[1]

    def _outcome(self, kind, body):
        if kind == "ok" and len(body) == 1 and isinstance(body[0], bytes):
            try:
                value = marshal.loads(body[0])
            except Exception:
                raise CandidateGone("the submission returned an undecodable value") from None
            if not _only_builtin_values(value):
                raise CandidateGone("the submission returned code instead of a value")
            return ("returned", value)
        if kind == "raise" and len(body) == 3:
            names, text, tb = body
            exc = _rebuild_exception(list(names), str(text))
            self.raised.add(id(exc))
            return ("raised", exc, str(tb), list(names))
        if kind == "badtype" and len(body) == 2:
            exc = TypeError(
                f"returned an object of type {body[0]} ({body[1]}); only built-in values can be checked"
            )
            self.raised.add(id(exc))
            return ("raised", exc, "", ["TypeError"])
        raise CandidateGone("the submission process sent an unexpected message")

    def describe_last_call(self):
        if self.last_request is None:
            return None
        args, kwargs = _decode(self.last_request)
        parts = [_short(a) for a in args] + [f"{k}={_short(v)}" for k, v in kwargs.items()]
        return f"{self.__name__}({', '.join(parts)})"


def _decode(request):
    return (marshal.loads if request[:1] == b"m" else pickle.loads)(request[1:])


def _resource_kind(names, text):
    for name in names:
        if name in _RESOURCE_EXCEPTIONS:
            return _RESOURCE_EXCEPTIONS[name]
    if str(text).startswith("[Errno 27]"):  # EFBIG: the file-size/output limit
        return "output size"
    return None


def _line(source, lineno):
    lines = source.splitlines()
    return lines[lineno - 1].strip() if 0 < lineno <= len(lines) else ""


def _failure_report(exc, candidate, source):
    call = candidate.describe_last_call()
    if isinstance(exc, EqFailure):
        if exc.oriented and call:
            case = {"input": call, "expected": _short(exc.expected), "got": _short(exc.got)}
            detail = f"{call} returned {case['got']}, expected {case['expected']}"
        else:
            case = {"input": call, "expected": _short(exc.expected), "got": _short(exc.got)}
            detail = f"assertion failed: {case['got']} != {case['expected']}"
        return {"status": "failed", "detail": detail, "case": case}
    if id(exc) in candidate.raised:
        _, _, tb, names = candidate.last_outcome
        kind = _resource_kind(names, str(exc))
        label = names[0] if names else type(exc).__name__
        detail = f"{call} raised {label}: {exc}"
        if tb:
            detail += "\n" + tb.rstrip()
        if kind:
            return {"status": "resource_limit", "detail": f"{kind} limit reached: {detail}"}
        return {
            "status": "failed",
            "detail": detail,
            "case": {"input": call, "expected": None, "got": f"{label}: {exc}"},
        }
    if isinstance(exc, AssertionError):
        lines = [
            f.lineno for f in traceback.extract_tb(exc.__traceback__) if f.filename == "tests.py"
        ]
        lineno = lines[-1] if lines else 0
        returned = candidate.last_outcome and candidate.last_outcome[0] == "returned"
        got = _short(candidate.last_outcome[1]) if returned else None
        # A message written for people (our generated tests) says more than the source line.
        detail = (
            str(exc)
            if exc.args and str(exc).strip()
            else f"assertion failed: {_line(source, lineno)}"
        )
        if call and returned and call not in detail:
            detail += f" (last call {call} returned {got})"
        return {
            "status": "failed",
            "detail": detail,
            "case": {"input": call, "expected": None, "got": got},
        }
    return {
        "status": "failed",
        "detail": f"the tests raised {type(exc).__name__}: {exc}"
        + (f" (last call {call})" if call else ""),
    }


def run(tests_source, code, entry_point, req_fd, resp_fd, record=False):
    """Run `check(candidate)` from the compiled tests; the report is a dict for the zygote.
    With `record`, the report also carries every call (arguments as sent, outcome, side
    channels) as base64 marshal data: spying on a reference is judging it with a record."""
    candidate = Candidate(entry_point, req_fd, resp_fd, record)
    try:
        refused = candidate.handshake()
    except CandidateGone as exc:
        return {"status": "candidate_gone", "detail": str(exc), "calls": 0}
    if refused:
        return {"status": refused[0], "detail": refused[1], "calls": 0, "handshake": True}
    report = _run_check(code, tests_source, candidate)
    report.update(calls=candidate.calls, handshake=True)
    if candidate.record is not None:
        try:
            report["record"] = base64.b64encode(marshal.dumps(candidate.record)).decode()
        except ValueError as exc:  # the tests passed arguments marshal can't carry
            report["record_error"] = f"unrecordable call: {exc}"
    return report


def _run_check(code, tests_source, candidate):
    namespace = {
        "__name__": "__capa_tests__",
        "__builtins__": builtins,
        "__capa_assert_eq__": _assert_eq,
    }
    try:
        exec(code, namespace)
    except BaseException as exc:
        return {
            "status": "invalid_tests",
            "detail": f"the tests failed to load: {type(exc).__name__}: {exc}",
        }
    check = namespace.get("check")
    if not callable(check):
        return {"status": "invalid_tests", "detail": "the tests define no check(candidate)"}
    # Checks may call the entry point by name (HumanEval/33 does): that name is the candidate.
    namespace[candidate.__name__] = candidate
    try:
        check(candidate)
    except CandidateGone as exc:
        return {"status": "candidate_gone", "detail": str(exc)}
    except CandidateAborted as exc:
        return {"status": "error", "detail": f"{candidate.describe_last_call()}: {exc}"}
    except BaseException as exc:
        return _failure_report(exc, candidate, tests_source)
    return {"status": "passed", "detail": f"all tests passed ({candidate.calls} calls)"}
