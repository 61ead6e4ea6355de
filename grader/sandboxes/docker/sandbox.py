"""The docker sandbox: each job in a locked-down container of its own, from taking it to removing it."""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from typing import Any

from grader.results import error_result
from grader.sandboxes import run_lane
from grader.sandboxes.base import STARTING, Job, kill_on_cancel, report_phase, warm_up_pool
from grader.sandboxes.docker.contract import GRADING_DIR, container_order, job_archive
from grader.sandboxes.docker.engine import engine
from grader.sandboxes.docker.janitor import remove_orphans
from grader.sandboxes.docker.outcome import container_outcome, engine_fault
from grader.sandboxes.docker.settings import slot_mode, wall_limit_s
from grader.sandboxes.docker.slot import run_in_slot, slot_pool
from grader.sandboxes.docker.warm import DockerMember, docker_pool
from grader.sandboxes.lane import BACKGROUND_SHARES, NORMAL_SHARES, background_slot
from grader.sandboxes.outcome import GRADING, RUNNING, Documents
from grader.sandboxes.owner import worker_identity
from grader.sandboxes.pool import WarmPool
from grader.schema import Limits

log = logging.getLogger(__name__)
GPU_WAIT_S = 300.0  # a `gpu = "required"` job waits this long for a free GPU

NO_GPU = {
    "en": "This exercise needs a GPU, and this grading server has none, so it was not graded. "
          "This is not your fault and does not count against you; your instructor has been told.",
    "ja": "この課題の採点には GPU が必要ですが、この採点サーバーには GPU がないため採点できません"
          "でした。提出されたコードの誤りではなく、成績にも影響しません。",
}


@dataclass(frozen=True)
class Order:
    """One container's work: the job, the documents of its mode (grade or run), what it may use."""

    job: Job
    documents: Documents
    started: float  # when the caller began: the documents' durations count from here
    warm: bool = True  # may take a warm container of its lane's pool
    cpu_shares: int | None = None  # a container made for it weighs this much (None: Docker's default)
    gpu: str | None = None  # a GPU id: a container of its own, with that GPU


def run_in_container(client: Any, order: Order) -> dict[str, Any]:
    """One job in one container, top to bottom (the shape of epicbox's _start_sandbox).

    Take a warm container or create one -> put the job in -> start it -> wait, killing it at
    the wall clock or on cancel -> read the document -> remove it, whatever happened. A warm
    container and a fresh one go the same way (a fresh one is a warm one taken at once), and
    grading and running differ only in the order's data.
    """
    import docker.errors
    import requests.exceptions

    job, documents = order.job, order.documents
    limits = job.exercise.config.limits
    wall = wall_limit_s(limits)
    pool = docker_pool(client, limits, lane=documents.mode) if order.warm else None
    member: DockerMember | None = None
    try:
        # 1. A warm container of the lane's pool if one is free, else one made for this job.
        if pool is not None:
            member = pool.take(on_wait=lambda: report_phase(job, STARTING))
        if member is None:
            report_phase(job, STARTING)
            member = DockerMember(client, limits, warm=False, cpu_shares=order.cpu_shares, gpu=order.gpu)
        member.busy()
        container = member.container
        # 2. The exercise, the submission and, last, the order: the entry starts on seeing it whole.
        order_file = container_order(job.exercise.path, job.lang, documents.mode)
        container.put_archive(GRADING_DIR, job_archive(job.exercise.path, job.code, order_file))
        # 3. Start it (a warm one is running already, waiting for that order).
        member.start()
        # 4. Wait; at the wall clock it is killed (our own flag: exit 137 alone could be the OOM
        #    killer too), and at once if the caller cancels the job (a learner's Stop).
        waiting_since = time.monotonic()
        timed_out = False
        with kill_on_cancel(job.cancel, container.kill) as stopped:
            try:
                container.wait(timeout=wall)
            except (requests.exceptions.ReadTimeout, requests.exceptions.ConnectionError):
                # Over a unix socket a read timeout may surface as a ConnectionError; one that
                # comes early is the engine's trouble, not the learner's slowness.
                if time.monotonic() - waiting_since < wall - 1:
                    raise
                timed_out = True
                container.kill()
                container.wait(timeout=30)
        if stopped.is_set():
            return documents.stopped(job, order.started)
        # 5. The document, from what we saw and the results file (never from exit codes or stdout).
        container.reload()
        return documents.decide(job, container_outcome(container, timed_out=timed_out), order.started)
    except (docker.errors.DockerException, requests.exceptions.RequestException) as exc:
        fault = engine_fault(documents, job, exc, order.started)
        assert fault is not None  # every engine error has its document
        return fault
    finally:
        # 6. Removed: one job per container, warm or not (its pool starts a replacement).
        if member is not None:
            try:
                if pool is not None:
                    pool.release(member)
                else:
                    member.discard()
            except docker.errors.APIError as exc:
                log.warning("could not remove %s (the janitor will): %s", member.container.name, exc)


class DockerSandbox:
    """Grades each job in a container of its own: no network, read-only, non-root, capped resources."""

    name = "docker"
    isolated = True

    def warm_pool(self, limits: Any = None, *, lane: str = "grade") -> WarmPool:
        """The pool for jobs of this lane ("grade", or "run": Runs') with these limits (default: an exercise's):
        slot containers (GRADER_DOCKER_MODE=slot, the default) or warm per-job containers."""
        if slot_mode():
            return slot_pool(engine().client, limits or Limits(), lane=lane)
        return docker_pool(engine().client, limits or Limits(), lane=lane)

    def warm_up(self, wait_s: float = 0.0) -> bool:
        return warm_up_pool(self.warm_pool(), wait_s)

    def remove_orphans(self, *, this_worker: bool = False) -> int:
        client = engine().client
        return remove_orphans(client, only=worker_identity()) if this_worker else remove_orphans(client)

    def run(self, job: Job) -> dict[str, Any]:
        """Grade the job: in the process's job slots, with a GPU if it wants one and one is free."""
        started = time.monotonic()
        try:
            state = engine()
        except Exception as exc:  # noqa: BLE001 -- no engine: the platform's fault
            return GRADING.internal(job, f"docker engine unavailable: {exc}", started)
        state.maybe_sweep()
        wanted = job.exercise.config.gpu
        if wanted == "required" and not len(state.gpus):
            return error_result(job.exercise.id, "internal", NO_GPU.get(job.lang, NO_GPU["en"]),
                                duration_s=0.0).to_dict()
        shares = BACKGROUND_SHARES if job.background else None
        if job.background and wanted != "required":
            # Never a warm container nor a GPU a learner could use; one at a time, lowest weight.
            with background_slot(True):
                if slot_mode():  # the lane's own slot container, at the lowest weight
                    doc = run_in_slot(state.client, job, GRADING, started, lane="background", cpu_shares=shares,
                                      wall=wall_limit_s(job.exercise.config.limits))
                else:
                    doc = run_in_container(state.client, Order(job, GRADING, started, warm=False, cpu_shares=shares))
                if doc.get("error_kind") == "timeout":  # perhaps only its low weight (lane.py)
                    log.info("background job for %s timed out at low weight; once more at "
                             "a grading's", job.exercise.id)
                    doc = run_in_container(state.client, Order(job, GRADING, time.monotonic(), warm=False,
                                                               cpu_shares=NORMAL_SHARES))
                return doc
        with state.slots:
            gpu = None
            if wanted != "no" and len(state.gpus):
                gpu = state.gpus.acquire(timeout=GPU_WAIT_S if wanted == "required" else 0)
                if gpu is None and wanted == "required":
                    return GRADING.internal(job, "no GPU became free in time", started)
            try:
                if slot_mode():  # the slot container of that GPU, or one of the CPU slots
                    return run_in_slot(state.client, job, GRADING, started, gpu=gpu,
                                       wall=wall_limit_s(job.exercise.config.limits))
                # Warm per-job containers hold no GPU (docs/grading.md, "Warm pool"): a job
                # given one has a container of its own.
                return run_in_container(state.client, Order(job, GRADING, started, warm=gpu is None,
                                                            cpu_shares=shares, gpu=gpu))
            finally:
                if gpu is not None:
                    state.gpus.release(gpu)

    def execute(self, job: Job) -> dict[str, Any]:
        """Run without grading, in a container hardened like a job's, no GPU: in the Run lane.

        The lane's own slots and warm pool (run_lane): a Run never takes a grading's slot nor
        its warm container.
        """
        started = time.monotonic()
        try:
            state = engine()
        except Exception as exc:  # noqa: BLE001 -- no engine: the platform's fault
            return RUNNING.internal(job, f"docker: {exc}", started)
        with run_lane.slots():
            if slot_mode():
                return run_in_slot(state.client, job, RUNNING, started, wall=wall_limit_s(job.exercise.config.limits),
                                   lane="run")
            return run_in_container(state.client, Order(job, RUNNING, started))
