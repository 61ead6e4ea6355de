"""Docker sandboxes: hardened containers, started ahead (warm) or for a job, each for ONE job file."""

from __future__ import annotations

import contextlib
import logging
import threading
import time
import uuid
from collections.abc import Callable
from typing import Any, TypeVar

from grader.sandboxes import resources
from grader.sandboxes.contract import READY
from grader.sandboxes.docker.gpus import device_request
from grader.sandboxes.docker.image import image_name
from grader.sandboxes.docker.settings import container_kwargs, slot_max_age_s, wall_limit_s
from grader.sandboxes.lane import LOW_PRIORITY_LIMIT_S, LOW_SHARES, NORMAL_SHARES
from grader.sandboxes.pool import WarmPool, get_pool, max_idle_s
from grader.sandboxes.run_lane import run_pool_size
from grader.schema import MAX_TIME_S, Limits

log = logging.getLogger(__name__)
M = TypeVar("M", bound="DockerMember")
READY_TIMEOUT_S = 180.0  # container start, torch and pytest imports on a very busy host
READY_POLL_S = 0.1


class DockerMember:
    """One container, hardened like every job's (settings.py): a warm pool's, or one for a job now.

    Its entry imports everything and starts the learner runner as the job's own uid, then
    waits for /grading/job.json, grades or runs that one job and exits; the container is then
    removed. A warm one is started ahead, at a low CPU weight and with no GPU; one for a job is
    the same container taken at once: at the job's weight, with its GPU, started once its job
    is in. Its deadline label covers its whole life, so the janitor removes it if this process
    dies without cleaning up.
    """

    def __init__(self, client: Any, limits: Limits, *, warm: bool = True,
                 cpu_shares: int | None = None, gpu: str | None = None, slot: bool = False):
        idle = max_idle_s()
        self.limits = limits
        # A warm one's job, and so its time limit, is not known yet: the longest any may have.
        life = idle + wall_limit_s(Limits(time_s=MAX_TIME_S)) if warm else wall_limit_s(limits)
        if slot:  # it serves jobs until its maximum age, then waits at most for one more
            life += slot_max_age_s()
        kwargs = container_kwargs(limits, job_id=uuid.uuid4().hex[:16], deadline=time.time() + life,
                                  max_idle_s=idle, warm=warm, slot=slot,
                                  cpu_shares=LOW_SHARES if warm and cpu_shares is None else cpu_shares)
        if gpu is not None:
            kwargs["device_requests"] = [device_request(gpu)]
        self.lifeline: Any = None
        self.started = False
        # A job's own container has the job's weight from the start; so has one given a weight.
        self._raised = not warm or cpu_shares is not None
        with _live_lock:
            self.container = client.containers.create(**kwargs)
            _live.add(self)
        try:
            # Attached before it starts, held for its whole life: this connection is what keeps
            # the container's stdin open. If this process dies, the kernel closes it, Docker
            # closes stdin and the container ends itself (warm_entry --lifeline): no atexit needed.
            # A slot container is also talked to over it (frames.py): its stdout comes back too.
            output = {"stdout": 1, "stderr": 1} if slot else {}
            self.lifeline = self.container.attach_socket(params={"stdin": 1, "stream": 1, **output})
            if warm:
                self.start()
        except BaseException:
            self.discard()
            raise

    def start(self) -> None:
        """Start it (once): a warm one at once, one for a job when its job is in."""
        if not self.started:
            self.container.start()
            self.started = True

    def wait_ready(self, timeout: float = READY_TIMEOUT_S) -> None:
        """Until the harness says "ready" in its log; RuntimeError (and removed) if it never does."""
        started = time.monotonic()
        deadline = started + timeout
        raised = False
        while time.monotonic() < deadline:
            if READY.encode() in self.container.logs(stdout=True, stderr=False, tail=5):
                return
            if not raised and time.monotonic() - started > LOW_PRIORITY_LIMIT_S:
                raised = True  # a refill that yields must still finish (lane.py)
                self.raise_shares()
            if not self.alive():
                break
            time.sleep(READY_POLL_S)
        tail = self.container.logs(tail=20).decode("utf-8", "replace")
        self.discard()
        raise RuntimeError(f"warm container did not get ready: {tail[-1000:]}")

    def busy(self) -> None:
        """Mark this member as given a job: no longer idle, and back to a grading's CPU weight.

        The engine call runs beside the job's put_archive, not before it (about 10 ms saved).
        """
        _busy.add(self)
        if not self._raised:
            threading.Thread(target=self.raise_shares, name="warm-shares", daemon=True).start()

    def raise_shares(self) -> None:
        """To a grading's CPU weight (once: later calls cost nothing)."""
        if self._raised:
            return
        self._raised = True
        try:
            self.container.update(cpu_shares=NORMAL_SHARES)
        except Exception as exc:  # noqa: BLE001 -- removed meanwhile: nothing left to weigh
            log.debug("could not raise the CPU shares of %s: %s", self.container.name, exc)

    def idle_again(self) -> None:
        """A slot container back from its job, waiting for the next (it keeps a grading's weight)."""
        _busy.discard(self)

    def alive(self) -> bool:
        import docker.errors

        try:
            self.container.reload()
        except docker.errors.NotFound:
            return False
        return self.container.status == "running"

    def discard(self) -> None:
        import docker.errors

        if self not in _busy:  # still at LOW_SHARES: its end must not wait for CPU either
            self.raise_shares()
        try:
            self.container.remove(force=True, v=True)
        except docker.errors.NotFound:
            pass
        finally:
            if self.lifeline is not None:
                with contextlib.suppress(OSError):
                    self.lifeline.close()
            with _live_lock:
                _live.discard(self)
            _busy.discard(self)


_live: set[DockerMember] = set()  # containers this process made, not yet removed
_live_lock = threading.Lock()
_busy: set[DockerMember] = set()  # members given a job (until discarded)


def idle_container_ids() -> set[str]:
    """Containers of this process's pools that are waiting (or starting), not grading."""
    busy = _busy.copy()
    with _live_lock:
        return {m.container.id for m in _live if m not in busy}


def discard_all() -> None:
    """Remove every container this process made that is still there (at exit, after the pools
    stopped refilling: grader.sandboxes.resources closes them first)."""
    with _live_lock:
        members = list(_live)
    for member in members:
        try:
            member.discard()
        except Exception:  # noqa: BLE001, S110 -- at exit the janitor is the backstop
            pass


def _forget_after_fork() -> None:
    global _live_lock
    _live_lock = threading.Lock()
    _live.clear()
    _busy.clear()


resources.register("docker containers", forget=_forget_after_fork, close=discard_all)


def spawning(make: Callable[[], M]) -> tuple[Callable[[], M], Callable[[], None]]:
    """A pool's spawn (make a member, wait until it is ready) and hurry (a job waits for one of
    those still starting, WarmPool.take: a grading's CPU weight from now on). The pool keeps
    the pair of the call that made it, so both share one set of members still starting."""
    starting: set[M] = set()
    starting_lock = threading.Lock()

    def spawn() -> M:
        member = make()
        with starting_lock:
            starting.add(member)
        try:
            member.wait_ready()
        finally:
            with starting_lock:
                starting.discard(member)
        return member

    def hurry() -> None:
        with starting_lock:
            members = list(starting)
        for member in members:
            member.raise_shares()

    return spawn, hurry


def docker_pool(client: Any, limits: Limits, *, lane: str = "grade") -> WarmPool:
    """This process's warm containers for jobs of this lane with these container-level limits.

    Runs (lane "run") have pools of their own, GRADER_RUN_POOL_SIZE each (run_lane): a Run
    never takes the warm container a grading was going to use.

    Memory and process counts are fixed when a container is created, so exercises that
    differ in them get pools of their own (each made on its first job, which runs cold);
    so does another image (GRADER_SANDBOX_IMAGE changed): a container of the old one is
    never handed a job meant for the new one.
    """
    key = ("docker", image_name(), limits.memory_mb, limits.processes) + (("run",) if lane == "run" else ())
    pool_limits = Limits(memory_mb=limits.memory_mb, processes=limits.processes)

    spawn, hurry = spawning(lambda: DockerMember(client, pool_limits))
    return get_pool(key, spawn, run_pool_size() if lane == "run" else None, hurry=hurry)
