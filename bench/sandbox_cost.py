"""Each sandbox side by side through `make run`'s server (bench/latency.py --mode cost).

    .venv/bin/python -m bench.latency --mode cost [--sandboxes local,docker] [--port 7400]
        [--rounds 3] [--class-duration 120] [--stress-duration 60]

One server per sandbox: gunicorn as `make run` starts it (`--workers 1 --threads 8`, the host's
default grading threads and pool size), on a fresh SQLite database, in a cpuacct cgroup of its
own. Each is started alone and its first grading timed (nothing warmed by hand); then both stay
up and, for amp-train-one-epoch's solution, each round runs one sandbox's window after the
other's, so that a drift of this shared machine's speed falls on both alike:
  - a class of 30 anonymous learners thinking 30-90 s (uniform) for --class-duration s;
  - a stress of 10 learners thinking 4-7 s for --stress-duration s.
Each window prints p50, p90, max, gradings a minute and the load average, and a stress window
also the core-seconds per grading: the CPU of the server's cgroup (web process, grading threads,
the local zygote and its forks) and of the sandbox containers it made (their cpuacct cgroups)
over the window, divided by its gradings, less the server's cost of answering the learners'
status polls (every 20 ms while a grading runs, so a slower grading pays for more of them):
measured once at start as the server's CPU for 400 polls of a finished submission, times the
polls counted. The engine's own CPU (dockerd, containerd, the shims) is printed apart: it is
shared with whatever else uses the engine. At the end: every round's gradings together, each
side's core-seconds per round with their median, and the ratio per round.
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
import statistics
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
        self.initial = set(self.seen)
        self._thread.start()
        return self

    @property
    def started(self) -> int:
        """Containers that appeared during the window (slot replacements): their start is in `used`."""
        return len(set(self.seen) - self.initial)

    def settled(self, timeout: float = 180) -> tuple[float, int]:
        """Once the containers stop using CPU (every slot started and idle): their CPU and count."""
        deadline = time.monotonic() + timeout
        total = self._total()
        while time.monotonic() < deadline:
            time.sleep(3)
            before, total = total, self._total()
            if total - before < 0.05:
                break
        return total, len(self.seen)

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
            f" | not a pass: {failed}")


class Side:
    """One sandbox's server, its counted learners, and what each window measured."""

    def __init__(self, sandbox: str, port: int, learner_class: Any):
        self.sandbox = sandbox
        self.counted = Counted(learner_class)
        self.server = Server(sandbox, port)
        self.per_poll = 0.0
        self.classes: list[tuple[float, float, str]] = []
        self.class_s = 0.0
        self.stresses: list[tuple[float, float, str]] = []
        self.stress_s = 0.0
        self.costs: list[float] = []  # core-seconds a grading, one per stress window
        self.cpu = 0.0  # every stress window's core-seconds, gradings and slot starts
        self.gradings = 0
        self.starts = 0
        self.start_cost = 0.0  # a slot container's start (docker), measured once the server settled

    def learner(self) -> Any:
        return self.counted.learner_class(self.server.base)

    def first(self, code: str) -> str:
        answering = self.server.wait_answering()
        seconds, result = self.learner().submit_and_wait(code)
        self.per_poll = poll_cpu_s(self.server, self.learner(), code)
        line = (f"{self.sandbox:6} first grading after start: {seconds:.2f} s ({result['status']}; the "
                f"server answered {answering - self.server.started_at:.1f} s after its start)")
        if self.sandbox == "docker":
            # Every slot's start (a torch import) and the two gradings so far, over the slots:
            # a start's cost, slightly over (the gradings are in it), to amortise below.
            total, count = ContainerCpu(self.server.process.pid).settled()
            self.start_cost = total / max(1, count)
            line += f"; {count} slot containers, at most {self.start_cost:.2f} core-seconds a start"
        return line

    def class_window(self, code: str, seconds: float) -> str:
        outcome = run_class(self.learner, code, learners=30, think=(30, 90), duration_s=seconds,
                            validate=None, validate_at_s=0)
        self.classes += outcome["records"]
        self.class_s += outcome["elapsed"]
        return figures(f"{self.sandbox:6} class of 30, think 30-90 s, {seconds:.0f} s", outcome["records"],
                       outcome["elapsed"])

    def stress_window(self, code: str, seconds: float) -> str:
        server = self.server
        cpu_before, engine_before, requests_before = server.cpu_s(), engine_cpu_s(), self.counted.count
        with ContainerCpu(server.process.pid) as containers:
            outcome = run_class(self.learner, code, learners=10, think=(4, 7), duration_s=seconds,
                                validate=None, validate_at_s=0)
        server_cpu, engine = server.cpu_s() - cpu_before, engine_cpu_s() - engine_before
        requests = self.counted.count - requests_before
        count = max(1, len(outcome["records"]))
        grading_server = max(0.0, server_cpu - requests * self.per_poll)
        cost = (grading_server + containers.used) / count
        self.stresses += outcome["records"]
        self.stress_s += outcome["elapsed"]
        self.costs.append(cost)
        self.cpu += grading_server + containers.used
        self.gradings += len(outcome["records"])
        self.starts += containers.started
        return (figures(f"{self.sandbox:6} stress of 10, think 4-7 s, {seconds:.0f} s", outcome["records"],
                        outcome["elapsed"])
                + f" | {cost:.3f} core-seconds a grading (server {grading_server / count:.3f} + containers "
                  f"{containers.used / count:.3f}; less {requests / count:.0f} polls at {self.per_poll * 1000:.1f} ms"
                  f"; engine, shared: {engine / count:.3f})")

    def pooled(self) -> float:
        """Core-seconds a grading over every stress window; docker's with its slot replacements
        amortised at the configured limit instead of as many as the windows happened to hold."""
        if self.sandbox != "docker":
            return self.cpu / max(1, self.gradings)
        own = self.cpu - self.starts * self.start_cost
        return own / max(1, self.gradings) + self.start_cost / _jobs_a_slot()

    def summary(self) -> list[str]:
        lines = [figures(f"{self.sandbox:6} class of 30, every round", self.classes, self.class_s),
                 figures(f"{self.sandbox:6} stress of 10, every round", self.stresses, self.stress_s),
                 f"{self.sandbox:6} core-seconds a grading, per round: "
                 + ", ".join(f"{cost:.3f}" for cost in self.costs)
                 + f" (median {statistics.median(self.costs):.3f}); over every window: {self.pooled():.3f}"]
        if self.sandbox == "docker":
            lines[-1] += (f" ({self.starts} slot replacements in the windows taken out, one every "
                          f"{_jobs_a_slot():.0f} gradings at {self.start_cost:.2f} core-seconds put in)")
        return lines


def _jobs_a_slot() -> float:
    """The jobs a slot container serves on average at the configured limit (the stagger's mean)."""
    from grader.sandboxes.docker.settings import slot_max_jobs
    from grader.sandboxes.docker.slot import jobs_served_on_average

    return jobs_served_on_average(slot_max_jobs())


def log(line: str, lines: list[str]) -> None:
    lines.append(line)
    print(f"{line}  [load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs]", flush=True)


def run(options: Any, code: str, learner_factory: Any) -> int:
    """Each sandbox's server started (and its first grading timed) alone, then both kept up and
    their windows alternated, round by round: a drift of the shared machine's speed (seen: a
    third between two runs an hour apart) falls on both sides alike, and the ratio of core-seconds
    is taken within each round."""
    print(f"{sys.executable} -m bench.latency --mode cost: gunicorn --workers 1 --threads 8, "
          f"defaults but the lifted admission limits; {options.rounds} rounds", flush=True)
    sides: list[Side] = []
    lines: list[str] = []
    try:
        for offset, sandbox in enumerate(options.sandboxes.split(",")):
            side = Side(sandbox, options.port + offset, learner_factory)
            sides.append(side)
            log(side.first(code), lines)
        for round_number in range(1, options.rounds + 1):
            print(f"round {round_number}", flush=True)
            for side in sides:
                log(side.class_window(code, options.class_duration), lines)
            for side in sides:
                log(side.stress_window(code, options.stress_duration), lines)
    except BaseException:
        for side in sides:  # the servers' own words on what went wrong, before their folders go
            print(f"--- {side.sandbox} server log", file=sys.stderr)
            print((side.server.folder / "server.log").read_text(errors="replace")[-4000:], file=sys.stderr, flush=True)
        raise
    finally:
        for side in sides:
            side.server.stop()
    print("\nevery round together:")
    for side in sides:
        print("\n".join(side.summary()))
    if len(sides) == 2 and all(side.costs for side in sides):
        ratios = [b / a for a, b in zip(sides[0].costs, sides[1].costs, strict=True)]
        print(f"{sides[1].sandbox} / {sides[0].sandbox} core-seconds, per round: "
              + ", ".join(f"{ratio:.2f}" for ratio in ratios)
              + f" (median {statistics.median(ratios):.2f}; ratio of the medians "
              f"{statistics.median(sides[1].costs) / statistics.median(sides[0].costs):.2f}); "
              f"over every window, replacements amortised: {sides[1].pooled() / sides[0].pooled():.2f}")
    return 0
