"""Slot containers: one long-lived hardened container per job slot, forking one job at a time.

A slot container is hardened like every job's (settings.py) and runs the supervisor of
slot_entry.py: torch, pytest and the grader imported once, then a forked job process per job.
The worker talks to it over its attach stream only (frames.py): the job's order and files go in
on stdin, the document and what the job left come back on stdout. It is replaced (discarded;
its pool starts another) after GRADER_SLOT_MAX_JOBS jobs, after GRADER_SLOT_MAX_AGE_S, and at
once after any job that did not end cleanly: a time-out, an OOM kill, a process or a file left
behind, a job process that failed, or a stream that broke.
"""

from __future__ import annotations

import logging
import random
import time
from typing import Any

from grader.sandboxes.base import STARTING, Job, kill_on_cancel, report_phase
from grader.sandboxes.docker.contract import job_files
from grader.sandboxes.docker.frames import AttachStream, StreamEnded, frame, message
from grader.sandboxes.docker.image import image_name
from grader.sandboxes.docker.outcome import engine_fault
from grader.sandboxes.docker.settings import slot_max_age_s, slot_max_jobs
from grader.sandboxes.docker.warm import READY_TIMEOUT_S, DockerMember, spawning
from grader.sandboxes.lane import LOW_PRIORITY_LIMIT_S
from grader.sandboxes.outcome import Documents, Outcome
from grader.sandboxes.pool import WarmPool, get_pool
from grader.sandboxes.run_lane import run_pool_size
from grader.schema import Limits

log = logging.getLogger(__name__)
# A job whose document says one of these ended abnormally: its container is replaced.
ABNORMAL_KINDS = ("timeout", "memory", "internal", "stopped")
REPORT_S = 15.0  # after the document, how long the supervisor may take to say what the job left
_stagger = random.Random()  # noqa: S311 -- spreading retirements, not a secret
RETIREMENT_SHARES = (0.75, 1.0)  # a container's share of the limits is drawn between these


def jobs_served_on_average(limit: int) -> float:
    """The jobs a slot container serves on average before its job limit retires it."""
    return limit * sum(RETIREMENT_SHARES) / 2


def retirement_share(rng: random.Random = _stagger) -> float:
    """A container's own share of the retirement limits (jobs and age): between 3/4 and all of them.

    Slots started together and served in turn reach the same job count and age together; with
    one limit for all they were replaced together, every slot of the process starting (a torch
    import each) while learners' jobs waited for one: the docker stress's worst waits (5.7 s).
    """
    return rng.uniform(*RETIREMENT_SHARES)


def job_limit(limit: int, share: float) -> int:
    """The jobs a container with this share may serve (at least one; a limit of 2 stays 2)."""
    return max(1, round(limit * share))


class SlotMember(DockerMember):
    """One slot container, its attach stream, and how many jobs it has served."""

    def __init__(self, client: Any, limits: Limits, *, cpu_shares: int | None = None, gpu: str | None = None):
        super().__init__(client, limits, warm=True, cpu_shares=cpu_shares, gpu=gpu, slot=True)
        self.stream = AttachStream(self.lifeline)
        self.jobs = 0
        self.born = time.monotonic()
        self.clean = True  # every job so far ended cleanly
        self.share = retirement_share()  # the limits themselves are read when asked (settings.py)
        self.timing: dict[str, float] = {}  # the last job's: when its document and the report came

    def wait_ready(self, timeout: float = READY_TIMEOUT_S) -> None:
        """Until the supervisor says it is ready; RuntimeError (and removed) if it never does."""
        started = time.monotonic()
        try:
            first = min(timeout, LOW_PRIORITY_LIMIT_S)
            try:
                reply = self.stream.read_message(started + first)
            except TimeoutError:
                if timeout <= first:
                    raise
                self.raise_shares()  # a refill that yields must still finish (lane.py)
                reply = self.stream.read_message(started + timeout)
            if not reply.get("ready"):
                raise StreamEnded(f"unexpected first message {reply!r:.200}")
        except (TimeoutError, StreamEnded, ValueError) as exc:
            tail = self.stream.stderr_tail.decode("utf-8", "replace")[-1000:]
            self.discard()
            raise RuntimeError(f"slot container did not get ready: {exc}: {tail}") from exc

    def reusable(self) -> bool:
        """May it take another job: clean so far, under its own job count and age (staggered)."""
        return (self.clean and self.jobs < job_limit(slot_max_jobs(), self.share)
                and time.monotonic() - self.born < slot_max_age_s() * self.share)

    def run(self, job: Job, mode: str, wall: float) -> Outcome:
        """Send the job, wait for its document and the supervisor's report; kill it at the wall clock."""
        self.jobs += 1
        self.clean = False  # until the supervisor reports the job left nothing
        order = {"exercise": job.exercise.path.name, "lang": job.lang, "mode": mode}
        sent = time.monotonic()
        deadline = sent + wall
        document: Any = None
        problem = ""
        with kill_on_cancel(job.cancel, self.container.kill) as stopped:
            try:
                self.stream.send(message(order) + frame(job_files(job.exercise.path, job.code)))
                while True:
                    reply = self.stream.read_message(deadline if document is None else time.monotonic() + REPORT_S)
                    if "document" in reply:
                        document = reply["document"]
                        self.timing["document_s"] = time.monotonic() - sent
                    elif "problem" in reply:
                        problem = str(reply["problem"])
                    elif "left" in reply:
                        self.timing["report_s"] = time.monotonic() - sent
                        left = [str(item) for item in reply["left"]]
                        self.clean = not left
                        if left:
                            log.info("slot container %s is replaced: %s", self.container.name, "; ".join(left))
                        return Outcome(document=document, problem=problem or "no results file",
                                       oom=bool(reply.get("oom")), stopped=stopped.is_set())
            except TimeoutError:
                if document is not None:  # the document is in; only the report is late
                    return Outcome(document=document)
                self.container.kill()
                return Outcome(timed_out=True)
            except (StreamEnded, OSError) as exc:
                if stopped.is_set():
                    return Outcome(stopped=True)
                return self._ended(document, f"{problem or 'no results file'} ({exc})")

    def _ended(self, document: Any, problem: str) -> Outcome:
        """The container ended mid-job: was it the OOM killer (its init was the victim)?"""
        try:
            self.container.reload()
            state = self.container.attrs.get("State", {})
        except Exception:  # noqa: BLE001 -- removed meanwhile: nothing more to learn
            state = {}
        tail = self.stream.stderr_tail.decode("utf-8", "replace")[-2000:]
        log.warning("slot container %s ended mid-job: %s (exit %s)\n%s", self.container.name, problem,
                    state.get("ExitCode"), tail)
        return Outcome(document=document, problem=problem, oom=bool(state.get("OOMKilled")),
                       exit_code=state.get("ExitCode"))

    def discard(self) -> None:
        super().discard()
        if hasattr(self, "stream"):  # (not yet there if the container could not be made)
            self.stream.close()


def slot_pool(client: Any, limits: Limits, *, lane: str = "grade", gpu: str | None = None,
              cpu_shares: int | None = None) -> WarmPool:
    """This process's slot containers for jobs of this lane, these container-level limits, this GPU.

    Lanes: "grade" (GRADER_POOL_SIZE slots), "run" (Runs': GRADER_RUN_POOL_SIZE, run_lane) and
    "background" (an instructor's checks: one, at the weight it is given). Memory and process
    counts are fixed when a container is created, so exercises that differ in them get slots of
    their own; so does another image, and each GPU (one slot per GPU, holding it for its life).
    """
    key = ("docker-slot", image_name(), limits.memory_mb, limits.processes, lane, gpu)
    pool_limits = Limits(memory_mb=limits.memory_mb, processes=limits.processes)
    spawn, hurry = spawning(lambda: SlotMember(client, pool_limits, cpu_shares=cpu_shares, gpu=gpu))
    size = 1 if gpu is not None or lane == "background" else run_pool_size() if lane == "run" else None
    return get_pool(key, spawn, size, hurry=hurry, reuse=True)


def run_in_slot(client: Any, job: Job, documents: Documents, started: float, *, wall: float,
                lane: str = "grade", gpu: str | None = None, cpu_shares: int | None = None) -> dict[str, Any]:
    """One job in a slot container: take one (waiting for one starting), run, decide, give it back.

    `wall`: the backstop, after which the container is killed (the harness's own clock comes first).
    """
    limits = job.exercise.config.limits
    pool = slot_pool(client, limits, lane=lane, gpu=gpu, cpu_shares=cpu_shares)
    member = pool.take(on_wait=lambda: report_phase(job, STARTING))
    if member is None:  # none idle and none starting for us: start one for this job
        report_phase(job, STARTING)
        try:
            member = SlotMember(client, Limits(memory_mb=limits.memory_mb, processes=limits.processes),
                                cpu_shares=cpu_shares, gpu=gpu)
            member.busy()
            member.wait_ready()
        except RuntimeError as exc:
            return documents.internal(job, str(exc), started)
        except Exception as exc:  # noqa: BLE001 -- the engine's fault, as a document
            fault = engine_fault(documents, job, exc, started)
            if fault is None:
                raise
            return fault
        pool.adopt(member)
    assert isinstance(member, SlotMember)
    member.busy()
    doc: dict[str, Any] = {}
    try:
        doc = documents.decide(job, member.run(job, documents.mode, wall), started)
        return doc
    finally:
        # A time-out, an OOM kill or a platform fault inside: never trust that container again.
        kind = doc.get("error_kind") or (doc.get("error") or {}).get("kind")
        if member.clean and kind not in ABNORMAL_KINDS:
            member.idle_again()
            pool.give_back(member)
        else:
            pool.release(member)
