"""The zygote: a clean interpreter that already lives inside the sandbox.

Per job it forks one fresh submission process (before the job arrives, so its memory
never held a job), hands the job to a long-lived checker process, and afterwards
kills every process the submission left. Run as a script, stdlib only.

Channels with the harness:
  stdin  (ctl)   JSON frames: {"op": "run", ...limits} or {"op": "ping"}
  stdout (out)   JSON frames: one result per job, one answer per ping
  code_fd        one JSON frame per job, {"code", "entry_point", "limits"}: read by the submission
  tests_fd       one marshal frame per job, (source, compiled tests): read by the checker
The zygote never reads code or tests itself.
"""

import ctypes
import gc
import json
import marshal
import os
import random
import resource
import shutil
import signal
import socket
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from capa_inside import candidate, checker, wire

PRELOAD = ("math", "typing", "re", "collections", "itertools", "functools", "string")
PR_SET_DUMPABLE, PR_SET_CHILD_SUBREAPER = 4, 36
MAX_FD = 1024
_libc = ctypes.CDLL(None, use_errno=True)
_SIGNAL_STATUS = {
    signal.SIGXCPU: ("timeout", "CPU time limit exceeded"),
    signal.SIGXFSZ: ("resource_limit", "file size limit exceeded"),
}


def _close_all_except(keep):
    low = 3
    for fd in sorted(keep):
        os.closerange(low, fd)
        low = fd + 1
    os.closerange(low, MAX_FD)


def _confine(uid, limits, cwd, out_path, err_path, *, dumpable, cpu_limit):
    """Turn a freshly forked child into a confined process."""
    os.setsid()
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    for fd, path in ((1, out_path), (2, err_path)):
        handle = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.dup2(handle, fd)
        os.close(handle)
    mem = limits["memory_mb"] * 1024 * 1024
    fsize = limits["fsize_mb"] * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    resource.setrlimit(resource.RLIMIT_AS, (mem, mem))
    resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))
    resource.setrlimit(resource.RLIMIT_NOFILE, (256, 256))
    if cpu_limit:
        cpu = int(limits["timeout_s"]) + 1
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    if uid is not None:
        # A per-uid process count only means something for a uid of its own.
        resource.setrlimit(resource.RLIMIT_NPROC, (limits["nproc"], limits["nproc"]))
        os.setgroups([])
        os.setresgid(uid, uid, uid)
        os.setresuid(uid, uid, uid)
    if not dumpable:
        _libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    os.chdir(cwd)
    os.umask(0o077)


def _children():
    """Direct children of this process, by a scan of /proc."""
    me = str(os.getpid())
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if fields[1] == me:
            found.append(int(name))
    return found


def _checker_loop(sock, tests_fd, report_fd):
    """The checker: one job per message on `sock`, which also carries the job's pipe ends;
    reports go back as frames on `report_fd` (a record of every call can be large)."""
    while True:
        try:
            message, fds, _, _ = socket.recv_fds(sock, 1 << 16, 2)
        except OSError:
            return
        if not message:
            return
        job = json.loads(message)
        req_w, resp_r = fds
        source, code = marshal.loads(wire.recv(tests_fd))  # compiled by the harness
        random.seed(0)  # tests that draw random inputs draw the same ones every run
        report = checker.run(source, code, job["entry_point"], req_w, resp_r, record=job["record"])
        os.close(req_w)
        os.close(resp_r)
        wire.send_json(report_fd, report)


class Zygote:
    def __init__(self, config):
        self.code_fd = config["code_fd"]
        self.tests_fd = config["tests_fd"]
        self.uids = config.get("uids")  # [checker uid, submission uid] or None
        self.pidns = bool(config.get("pidns")) and os.getpid() <= 3
        self.scratch = config["scratch"]  # all the submission may write to, wiped per job
        self.work = os.path.join(self.scratch, "work")
        self.logs = config["logs"]
        # The harness channels move off 0/1 so nothing a child prints can corrupt them.
        self.ctl, self.out = os.dup(0), os.dup(1)
        null = os.open(os.devnull, os.O_RDWR)
        os.dup2(null, 0)
        os.dup2(null, 1)
        os.close(null)
        _libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
        for name in PRELOAD:
            __import__(name)
        # The first compile in a process sets the compiler up (about 3 ms of page faults and
        # work); done here once, every forked submission inherits it.
        compile("def _warm(x):\n    return [y for y in x if y]\n", "warm", "exec")
        self.checker_pid, self.checker_sock, self.checker_reports = None, None, None
        self.checker_limits = None
        gc.collect()
        gc.freeze()  # keep the collector off inherited objects: fewer copy-on-write faults per fork

    # ---- files ----------------------------------------------------------------

    def _reset_scratch(self):
        if os.listdir(self.scratch) == ["work"] and not os.listdir(self.work):
            return  # nothing was written
        for name in os.listdir(self.scratch):
            path = os.path.join(self.scratch, name)
            if os.path.isdir(path) and not os.path.islink(path):
                shutil.rmtree(path, onerror=_force_remove)
            else:
                os.unlink(path)
        os.mkdir(self.work)
        os.chmod(self.work, 0o777)  # the submission's uid writes here

    def _head(self, name, cap):
        try:
            with open(os.path.join(self.logs, name), "rb") as fh:
                data = fh.read(cap + 1)
        except OSError:
            return ""
        text = data[:cap].decode("utf-8", "replace")
        return text + ("\n[output truncated]" if len(data) > cap else "")

    # ---- processes ------------------------------------------------------------

    def _start_checker(self, limits):
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        report_r, report_w = os.pipe()
        pid = os.fork()
        if pid:
            theirs.close()
            os.close(report_w)
            self.checker_pid, self.checker_sock, self.checker_reports = pid, ours, report_r
            return
        try:
            _close_all_except({self.tests_fd, theirs.fileno(), report_w})
            uid = self.uids[0] if self.uids else None
            # No CPU rlimit: it would add up over jobs. The wall clock bounds each job.
            _confine(
                uid,
                limits,
                "/",
                f"{self.logs}/checker.out",
                f"{self.logs}/checker.err",
                dumpable=False,
                cpu_limit=False,
            )
            _checker_loop(theirs, self.tests_fd, report_w)
        finally:
            os._exit(0)

    def _stop_checker(self):
        if self.checker_pid is not None:
            self.checker_sock.close()
            os.close(self.checker_reports)
            try:
                os.kill(self.checker_pid, signal.SIGKILL)
                os.waitpid(self.checker_pid, 0)
            except (ProcessLookupError, ChildProcessError):
                pass
            self.checker_pid, self.checker_sock, self.checker_reports = None, None, None

    def _fork_submission(self, req_r, resp_w):
        pid = os.fork()
        if pid:
            return pid
        try:
            _close_all_except({self.code_fd, req_r, resp_w})
            uid = self.uids[1] if self.uids else None

            def confine(limits):
                _confine(
                    uid,
                    limits,
                    self.work,
                    f"{self.logs}/sub.out",
                    f"{self.logs}/sub.err",
                    dumpable=True,
                    cpu_limit=True,
                )

            candidate.serve(self.code_fd, req_r, resp_w, confine)
        finally:
            os._exit(0)

    def _others(self):
        """Processes other than us and the checker that we must clean up."""
        keep = {os.getpid(), self.checker_pid}
        if self.pidns:
            return [
                int(p)
                for p in os.listdir("/proc")
                if p.isdigit() and int(p) != 1 and int(p) not in keep
            ]
        return [p for p in _children() if p not in keep]

    def _kill_others(self):
        """Kill every process the job left (escapees included); their wait statuses."""
        statuses = {}
        while True:
            others = self._others()
            if not others:
                return statuses
            for pid in others:
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
            reaped = False
            for pid in others:
                try:
                    done, status = os.waitpid(pid, 0)
                except ChildProcessError:
                    continue  # not ours (yet): it comes to us, the subreaper, when its parent dies
                statuses[done] = status
                reaped = True
            if not reaped:
                time.sleep(0.0005)

    # ---- the loop -------------------------------------------------------------

    def serve(self):
        while True:
            self._reset_scratch()
            req_r, req_w = os.pipe()
            resp_r, resp_w = os.pipe()
            pid_b = self._fork_submission(req_r, resp_w)
            os.close(req_r)
            os.close(resp_w)
            job = wire.recv_json(self.ctl)
            while job is not None and job.get("op") == "ping":
                leftover = [p for p in self._others() if p != pid_b]
                wire.send_json(self.out, {"ok": True, "leftover": leftover})
                job = wire.recv_json(self.ctl)
            if job is None:
                self._stop_checker()
                self._kill_others()
                return
            result = self._run(job, pid_b, req_w, resp_r)
            wire.send_json(self.out, result)
            if result["restart"]:
                self._stop_checker()
                self._kill_others()
                return

    def _run(self, job, pid_b, req_w, resp_r):
        start = time.monotonic()
        limits = (job["memory_mb"], job["fsize_mb"])
        if self.checker_pid is not None and self.checker_limits != limits:
            self._stop_checker()  # the long-lived checker keeps the limits it started with
        if self.checker_pid is None:
            self._start_checker(job)
            self.checker_limits = limits
        header = json.dumps(
            {"entry_point": job["entry_point"], "record": job.get("record", False)}
        ).encode()
        try:
            socket.send_fds(self.checker_sock, [header], [req_w, resp_r])
        except OSError:
            self._stop_checker()
        os.close(req_w)
        os.close(resp_r)
        report, timed_out = None, False
        if self.checker_sock is not None:
            deadline = start + job["timeout_s"]
            try:
                report = wire.recv_json(self.checker_reports, deadline=deadline)
            except TimeoutError:
                timed_out = True
            except wire.WireError:
                report = None
        duration = time.monotonic() - start
        statuses = {}
        if report and report.get("status") == "candidate_gone":
            statuses.update(_wait_briefly(pid_b, 0.5))
        if report is None:
            # The checker is stuck (timeout) or gone: it can't be trusted to be in step.
            self._stop_checker()
        statuses.update(self._kill_others())
        result = self._classify(job, report, timed_out, statuses, pid_b)
        result.update(
            id=job.get("id"),
            duration_s=round(duration, 6),
            stdout=self._head("sub.out", job["output_cap"]),
            stderr=self._head("sub.err", job["output_cap"]),
            # Without a handshake we can't know both frames were consumed: start afresh.
            restart=not (report and report.get("handshake")),
        )
        return result

    def _classify(self, job, report, timed_out, statuses, pid_b):
        if timed_out:
            return {
                "status": "timeout",
                "detail": f"exceeded the time limit of {job['timeout_s']}s",
            }
        if report is None:
            return {
                "status": "error",
                "detail": "the checker died: " + self._head("checker.err", 2000),
            }
        if report["status"] != "candidate_gone":
            return report
        status = statuses.get(pid_b)
        if status is None:
            return {
                "status": "error",
                "detail": f"{report['detail']} (the submission process kept running)",
            }
        if os.WIFSIGNALED(status):
            sig = os.WTERMSIG(status)
            verdict, why = _SIGNAL_STATUS.get(
                sig, ("error", f"killed by signal {signal.Signals(sig).name}")
            )
            return {
                "status": verdict,
                "detail": f"the submission process: {why}",
                "calls": report.get("calls", 0),
            }
        return {
            "status": "error",
            "detail": f"the submission process exited with status {os.WEXITSTATUS(status)} before the tests completed",
            "calls": report.get("calls", 0),
        }


def _wait_briefly(pid, seconds):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        try:
            done, status = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            return {}
        if done:
            return {pid: status}
        time.sleep(0.001)
    return {}


def _force_remove(func, path, _exc):
    os.chmod(os.path.dirname(path), 0o700)
    func(path)


def main():
    Zygote(json.loads(sys.argv[1])).serve()


if __name__ == "__main__":
    main()
