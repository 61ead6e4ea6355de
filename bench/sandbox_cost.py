"""Each sandbox side by side through `make run`'s server (bench/latency.py --mode cost).

    .venv/bin/python -m bench.latency --mode cost [--sandboxes local,docker] [--port 7400]
        [--class-duration 180] [--stress-duration 120]

For each sandbox in turn, one after the other in one run: gunicorn as `make run` starts it
(`--workers 1 --threads 8`, the host's default grading threads and pool size), on a fresh
SQLite database, in a cpuacct cgroup of its own; then, for amp-train-one-epoch's solution:
  - the first grading after the server answers (nothing warmed by hand);
  - a class of 30 anonymous learners thinking 30-90 s (uniform) for --class-duration s;
  - a stress of 10 learners thinking 4-7 s for --stress-duration s.
Each prints p50, p90, max, gradings a minute and the load average, and the stress also the
core-seconds per grading: the CPU of the server's cgroup (web process, grading threads, the
local zygote and its forks) and of the sandbox containers it made (their cpuacct cgroups)
over the stress window, divided by its gradings, less the server's cost of answering the
learners' status polls (every 20 ms while a grading runs, so a slower grading pays for more of
them): measured after the stress as the server's CPU for 400 polls of a finished submission,
times the polls counted during it. The engine's own CPU (dockerd, containerd, the shims) is
printed apart: it is shared with whatever else uses the engine.
Every simulated learner comes from 127.0.0.1, which a real class does not: the per-learner
and per-address admission limits are lifted (SUBMISSION_*_RATE_LIMIT, GRADING_MAX_*), and
the start-up check of every folder is off (CHECK_SEEN_FOLDERS=0, above); nothing else
differs from the defaults.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

from bench.class_mode import run_class
from bench.stats import percentile

ROOT = Path(__file__).resolve().parents[1]
CGROUP_ROOT = Path("/sys/fs/cgroup/cpuacct")
DOCKER_CGROUPS = CGROUP_ROOT / "docker"
ENGINE_PROCESSES = ("dockerd", "containerd", "containerd-shim", "containerd-shim-runc-v2")
LIFTED = {  # 127.0.0.1 for every learner: one address's caps would serialise the whole class
    "SUBMISSION_RATE_LIMIT": "10000/minute", "SUBMISSION_ADDRESS_RATE_LIMIT": "10000/minute",
    "GRADING_MAX_PENDING_PER_ANON_ADDRESS": "10000", "GRADING_MAX_RUNNING_PER_KEY": "10000",
}


class Server:
    """gunicorn as `make run` starts it, in a cpuacct cgroup of its own (where this process may make one)."""

    def __init__(self, sandbox: str, port: int):
        with socket.socket() as probe:  # another server there would answer for this one
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                raise SystemExit(f"port {port} is taken (a server left from an earlier run?): --port another")
        self.folder = Path(tempfile.mkdtemp(prefix="bench-cost-"))
        # CHECK_SEEN_FOLDERS=0: a fresh server would check every folder at start (about 15 minutes
        # of the background lane's low-priority CPU on 2 cores); this bench measures a grading's
        # cost and a class's latency, not a start-up's. bench.classroom runs a class beside them.
        self.env = dict(os.environ, GRADER_SANDBOX=sandbox, SECRET_KEY="bench", PYTHONPATH=str(ROOT),  # noqa: S106 -- a throwaway server
                        DATABASE_URL=f"sqlite:///{self.folder}/bench.db", CHECK_SEEN_FOLDERS="0", **LIFTED)
        subprocess.run([str(ROOT / ".venv/bin/flask"), "--app", "app", "db", "upgrade"], cwd=ROOT,
                       env=self.env, check=True, capture_output=True)
        self.cgroup: Path | None = CGROUP_ROOT / f"learnai-bench-{os.getpid()}-{sandbox}"
        try:
            self.cgroup.mkdir()
        except OSError:
            self.cgroup = None  # not root: the server's own CPU is then read from /proc below
        self.process = subprocess.Popen(  # noqa: S603 -- make run's command line
            [str(ROOT / ".venv/bin/gunicorn"), "--workers", "1", "--threads", "8",
             "--bind", f"127.0.0.1:{port}", "app:create_app()"], cwd=ROOT, env=self.env,
            stdout=subprocess.DEVNULL, stderr=open(self.folder / "server.log", "wb"),  # noqa: SIM115
            start_new_session=True, preexec_fn=self._enter_cgroup)  # noqa: PLW1509 -- before exec
        self.base = f"http://127.0.0.1:{port}"
        self.started_at = time.monotonic()

    def _enter_cgroup(self) -> None:
        if self.cgroup is not None:
            (self.cgroup / "cgroup.procs").write_text(str(os.getpid()))

    def wait_answering(self, timeout: float = 120) -> float:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(self.base + "/", timeout=5):  # noqa: S310 -- our own server
                    return time.monotonic()
            except OSError:
                time.sleep(0.1)
        raise RuntimeError(f"the server did not answer: {(self.folder / 'server.log').read_text()[-2000:]}")

    def cpu_s(self) -> float:
        """CPU of the server and everything it started (ended children included)."""
        if self.cgroup is not None:
            return int((self.cgroup / "cpuacct.usage").read_text()) / 1e9
        return _tree_cpu_s(self.process.pid)

    def stop(self) -> None:
        os.killpg(self.process.pid, signal.SIGTERM)
        try:
            self.process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()
        if self.cgroup is not None:
            for _ in range(50):  # the cgroup empties once the last process is reaped
                try:
                    self.cgroup.rmdir()
                    break
                except OSError:
                    time.sleep(0.1)
        shutil.rmtree(self.folder, ignore_errors=True)


def _stat_cpu_s(pid: int | str, *, children: bool) -> float:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return 0.0
    ticks = fields[11:15] if children else fields[11:13]
    return sum(int(value) for value in ticks) / os.sysconf("SC_CLK_TCK")


def _tree_cpu_s(root: int) -> float:
    """The process tree under `root` (live processes, with what each reaped)."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parents[int(entry.name)] = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
    tree, grew = {root}, True
    while grew:
        grew = False
        for pid, parent in parents.items():
            if parent in tree and pid not in tree:
                tree.add(pid)
                grew = True
    return sum(_stat_cpu_s(pid, children=True) for pid in tree)


def engine_cpu_s() -> float:
    total = 0.0
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                name = (entry / "comm").read_text().strip()
            except OSError:
                continue
            if name in ENGINE_PROCESSES:
                total += _stat_cpu_s(entry.name, children=False)
    return total


class ContainerCpu:
    """CPU of the sandbox containers a server made, sampled while they live (a removed one keeps its last sample)."""

    def __init__(self, server_pid: int):
        self.server_pid = server_pid
        self.seen: dict[str, float] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def __enter__(self) -> ContainerCpu:
        self.start = self._total()
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self.used = self._total() - self.start

    def _ours(self) -> list[str]:
        import docker

        client = docker.from_env(timeout=10)
        try:
            return [c.id for c in client.containers.list(filters={"label": "learnai.job"})
                    if c.labels.get("learnai.owner", "").endswith(f":{self._worker()}")]
        finally:
            client.close()

    def _worker(self) -> int:
        """gunicorn's one worker process (it owns the containers), else the server itself."""
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                try:
                    if int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1]) == self.server_pid:
                        return int(entry.name)
                except (OSError, IndexError, ValueError):
                    continue
        return self.server_pid

    def _sample(self) -> None:
        while not self._stop.wait(0.5):
            self._total()

    def _total(self) -> float:
        try:
            ids = self._ours()
        except Exception:  # noqa: BLE001 -- no engine: the local sandbox
            ids = []
        for cid in ids:
            try:
                self.seen[cid] = int((DOCKER_CGROUPS / cid / "cpuacct.usage").read_text()) / 1e9
            except (OSError, ValueError):
                pass
        return sum(self.seen.values())


CALIBRATION_POLLS = 400


class Counted:
    """A learner class whose HTTP requests are counted (the status polls above all)."""

    def __init__(self, learner_class: Any):
        self.count = 0
        self._lock = threading.Lock()
        counter = self

        class Counting(learner_class):  # type: ignore[misc,valid-type]
            def _json(self, *args: Any, **kwargs: Any) -> Any:
                with counter._lock:
                    counter.count += 1
                return super()._json(*args, **kwargs)

        self.learner_class = Counting


def poll_cpu_s(server: Server, learner: Any, code: str) -> float:
    """The server's CPU for one status poll: CALIBRATION_POLLS polls of a finished submission."""
    _, sent = learner._json("POST", "/api/exercises/amp-train-one-epoch/submissions", {"code": code})
    while learner._json("GET", f"/api/submissions/{sent['id']}")[1].get("status") != "done":
        time.sleep(0.1)
    before = server.cpu_s()
    for _ in range(CALIBRATION_POLLS):
        learner._json("GET", f"/api/submissions/{sent['id']}")
    return (server.cpu_s() - before) / CALIBRATION_POLLS


def figures(label: str, records: list[tuple[float, float, str]], elapsed: float) -> str:
    seconds = [s for _, s, _ in records]
    if not seconds:
        return f"{label}: no gradings"
    failed = sum(1 for _, _, status in records if status != "pass")
    return (f"{label}: {len(seconds)} gradings, {len(seconds) / (elapsed / 60):.1f}/min | p50 "
            f"{percentile(seconds, 0.5):.2f} s, p90 {percentile(seconds, 0.9):.2f} s, max {max(seconds):.2f} s"
            f" | not a pass: {failed} (load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs)")


def measure(sandbox: str, options: Any, code: str, learner_class: Any) -> list[str]:
    counted = Counted(learner_class)
    learner_factory = counted.learner_class
    server = Server(sandbox, options.port)
    lines = []
    try:
        answering = server.wait_answering()
        seconds, result = learner_factory(server.base).submit_and_wait(code)
        lines.append(f"{sandbox:6} first grading after start: {seconds:.2f} s ({result['status']}; the "
                     f"server answered {answering - server.started_at:.1f} s after its start)")
        print(lines[-1], flush=True)
        outcome = run_class(lambda: learner_factory(server.base), code, learners=30, think=(30, 90),
                            duration_s=options.class_duration, validate=None, validate_at_s=0)
        lines.append(figures(f"{sandbox:6} class of 30, think 30-90 s, {options.class_duration:.0f} s",
                             outcome["records"], outcome["elapsed"]))
        print(lines[-1], flush=True)
        cpu_before, engine_before, requests_before = server.cpu_s(), engine_cpu_s(), counted.count
        with ContainerCpu(server.process.pid) as containers:
            outcome = run_class(lambda: learner_factory(server.base), code, learners=10, think=(4, 7),
                                duration_s=options.stress_duration, validate=None, validate_at_s=0)
        server_cpu, engine = server.cpu_s() - cpu_before, engine_cpu_s() - engine_before
        requests = counted.count - requests_before
        per_poll = poll_cpu_s(server, learner_factory(server.base), code)
        count = max(1, len(outcome["records"]))
        grading_server = max(0.0, server_cpu - requests * per_poll)
        lines.append(figures(f"{sandbox:6} stress of 10, think 4-7 s, {options.stress_duration:.0f} s",
                             outcome["records"], outcome["elapsed"]))
        lines.append(f"{sandbox:6} core-seconds per grading: {(grading_server + containers.used) / count:.2f} "
                     f"(server {grading_server / count:.2f} + containers {containers.used / count:.2f}; "
                     f"less {requests / count:.0f} polls a grading at {per_poll * 1000:.1f} ms each: "
                     f"the server {server_cpu / count:.2f} with them); engine, shared: {engine / count:.2f}")
        print("\n".join(lines[-2:]), flush=True)
    except BaseException:
        # The server's own words on what went wrong, before its folder is removed.
        print((server.folder / "server.log").read_text(errors="replace")[-6000:], file=sys.stderr, flush=True)
        raise
    finally:
        server.stop()
    return lines


def run(options: Any, code: str, learner_factory: Any) -> int:
    print(f"{sys.executable} -m bench.latency --mode cost: gunicorn --workers 1 --threads 8, "
          f"defaults but the lifted admission limits", flush=True)
    lines = []
    for sandbox in options.sandboxes.split(","):
        lines += measure(sandbox, options, code, learner_factory)
    print("\n".join(["", "side by side:", *lines]))
    return 0
