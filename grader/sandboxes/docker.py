"""The docker sandbox: a fresh locked-down container per job, harness inside, results read back."""

from __future__ import annotations

import logging
import os
import threading
import time
import uuid
from typing import Any

from grader.messages import run_error
from grader.results import error_result
from grader.sandboxes import run_lane
from grader.sandboxes.base import (
    STARTING,
    Job,
    internal_run,
    kill_on_cancel,
    report_phase,
    validate_run_document,
)
from grader.sandboxes.docker_files import ResultsUnreadable, job_archive, read_results
from grader.sandboxes.docker_gpus import GpuScheduler, device_request, host_gpu_ids
from grader.sandboxes.docker_image import image_name, image_state
from grader.sandboxes.docker_janitor import sweep
from grader.sandboxes.docker_settings import GRADING_DIR, RESULTS_PATH, container_kwargs, wall_limit_s
from grader.sandboxes.docker_warm import DockerMember, docker_pool
from grader.sandboxes.lane import BACKGROUND_SHARES, NORMAL_SHARES, background_slot
from grader.sandboxes.pool import WarmPool

log = logging.getLogger(__name__)
AVAILABLE_TTL_S = 30.0  # how long docker_available() trusts its last answer
JANITOR_EVERY_S = 60.0
GPU_WAIT_S = 300.0  # a `gpu = "required"` job waits this long for a free GPU
LOG_TAIL_BYTES = 4096

NO_GPU = {
    "en": "This exercise needs a GPU, and this grading server has none, so it was not graded. "
          "This is not your fault and does not count against you; your instructor has been told.",
    "ja": "この課題の採点には GPU が必要ですが、この採点サーバーには GPU がないため採点できません"
          "でした。あなたの誤りではなく、成績にも影響しません。",
}


class _Engine:
    """Per-process state shared by every DockerSandbox: client, job slots, GPUs, janitor clock."""

    def __init__(self) -> None:
        import docker

        jobs = max_jobs()
        # Each job holds a connection while it waits; the janitor and inspects need more.
        self.client = docker.from_env(timeout=30, max_pool_size=jobs + 4)
        self.slots = threading.BoundedSemaphore(jobs)
        self.gpus = GpuScheduler(host_gpu_ids(self.client.info()))
        self.last_sweep = 0.0
        self.sweep_lock = threading.Lock()

    def maybe_sweep(self) -> None:
        with self.sweep_lock:
            if time.monotonic() - self.last_sweep < JANITOR_EVERY_S:
                return
            self.last_sweep = time.monotonic()
        try:
            sweep(self.client)
        except Exception as exc:  # noqa: BLE001 -- housekeeping must never fail a job
            log.warning("janitor sweep failed: %s", exc)


_engine: _Engine | None = None
_engine_lock = threading.Lock()
_available: tuple[float, bool] = (0.0, False)


def max_jobs() -> int:
    """Concurrent jobs per process (GRADER_MAX_JOBS), default one per CPU."""
    try:
        return max(1, int(os.environ.get("GRADER_MAX_JOBS", "")))
    except ValueError:
        return max(1, os.cpu_count() or 1)


def engine() -> _Engine:
    global _engine
    with _engine_lock:
        if _engine is None:
            _engine = _Engine()
        return _engine


def _forget_engine_after_fork() -> None:
    """A forked child (a Celery prefork worker) opens its own engine connection."""
    global _engine, _engine_lock
    _engine = None
    _engine_lock = threading.Lock()


os.register_at_fork(after_in_child=_forget_engine_after_fork)


def docker_available() -> bool:
    """Whether an engine answers and holds a current sandbox image; cached for a few seconds."""
    global _available
    checked_at, answer = _available
    if time.monotonic() - checked_at < AVAILABLE_TTL_S:
        return answer
    try:
        import docker

        client = docker.from_env(timeout=3)
        try:
            state = image_state(client)
        finally:
            client.close()
        # A stale image would grade with other grader code than this host runs: `auto`
        # falls back rather than give verdicts nobody can reproduce. (GRADER_SANDBOX=docker
        # still uses it, with this warning.)
        if state == "stale":
            log.warning("sandbox image %s was built from other grader code; "
                        "run `make sandbox-image`", image_name())
        answer = state == "current"
    except Exception:  # noqa: BLE001 -- no SDK, no socket, no image: all mean "not here"
        answer = False
    _available = (time.monotonic(), answer)
    return answer


class DockerSandbox:
    """Grades each job in a fresh container: no network, read-only, non-root, capped resources."""

    name = "docker"
    isolated = True

    def warm_pool(self, limits: Any = None, *, lane: str = "grade") -> WarmPool:
        """The pool for jobs of this lane ("grade", or "run": Runs') with these limits (default: an exercise's)."""
        from grader.schema import Limits

        return docker_pool(engine().client, limits or Limits(), lane=lane)

    def execute(self, job: Job) -> dict[str, Any]:
        """Run without grading, in a container hardened like a job's, no GPU: in the Run lane.

        The lane's own slots and warm pool (run_lane): a Run never takes a grading's slot nor
        its warm container.
        """
        started = time.monotonic()
        try:
            state = engine()
        except Exception as exc:  # noqa: BLE001 -- no engine: the platform's fault
            return internal_run(run_error("internal", job.lang, detail=f"docker: {exc}"))
        with run_lane.slots():
            member = docker_pool(state.client, job.exercise.config.limits, lane="run").take()
            return self._run_container(state.client, job, None, started, member=member, mode="run")

    def run(self, job: Job) -> dict[str, Any]:
        started = time.monotonic()
        try:
            state = engine()
        except Exception as exc:  # noqa: BLE001 -- no engine: the platform's fault
            return self._internal(job, f"docker engine unavailable: {exc}", started)
        state.maybe_sweep()
        wanted = job.exercise.config.gpu
        if wanted == "required" and not len(state.gpus):
            return error_result(job.exercise.id, "internal", NO_GPU.get(job.lang, NO_GPU["en"]),
                                duration_s=0.0).to_dict()
        if job.background and wanted != "required":
            # Never a warm container nor a GPU a learner could use; one at a time, lowest weight.
            with background_slot(True):
                doc = self._run_container(state.client, job, None, started)
                if doc.get("error_kind") == "timeout":  # perhaps only its low weight (lane.py)
                    log.info("background job for %s timed out at low weight; once more at "
                             "a grading's", job.exercise.id)
                    doc = self._run_container(state.client, job, None, time.monotonic(),
                                              shares=NORMAL_SHARES)
                return doc
        with state.slots:
            gpu = None
            if wanted != "no" and len(state.gpus):
                gpu = state.gpus.acquire(timeout=GPU_WAIT_S if wanted == "required" else 0)
                if gpu is None and wanted == "required":
                    return self._internal(job, "no GPU became free in time", started)
            try:
                if gpu is None:  # warm containers hold no GPU (docs/grading.md, "Warm pool")
                    member = docker_pool(state.client, job.exercise.config.limits).take(
                        on_wait=lambda: report_phase(job, STARTING))
                    if member is not None:
                        return self._run_container(state.client, job, None, started, member=member)
                report_phase(job, STARTING)  # a container created and started for this job
                return self._run_container(state.client, job, gpu, started)
            finally:
                if gpu is not None:
                    state.gpus.release(gpu)

    def _run_container(self, client: Any, job: Job, gpu: str | None, started: float, *,
                       member: DockerMember | None = None, mode: str = "grade",
                       shares: int | None = None) -> dict[str, Any]:
        """One job in a container: a warm one given its job file, or one created now.

        mode "run" always uses the warm container's command (a fresh one if no warm one was
        free, given its job file before it starts): it runs the submission without tests.
        """
        import docker.errors
        import requests.exceptions

        limits = job.exercise.config.limits
        wall = wall_limit_s(limits)
        container = None
        try:
            if member is None and mode == "run":
                member = DockerMember(client, limits, start=False)
            if member is not None:
                member.busy()
                container = member.container
                order = {"exercise": f"{GRADING_DIR}/exercises/{job.exercise.path.name}",
                         "submission": f"{GRADING_DIR}/submission.py", "results": RESULTS_PATH,
                         "lang": job.lang, "mode": mode}
                container.put_archive(GRADING_DIR, job_archive(job.exercise.path, job.code, order))
                if container.status == "created":
                    container.start()
            else:
                kwargs = container_kwargs(limits, exercise_id=job.exercise.id,
                                          job_id=uuid.uuid4().hex[:16],
                                          deadline=time.time() + wall, lang=job.lang,
                                          cpu_shares=shares or (BACKGROUND_SHARES if job.background
                                                                else None))
                if gpu is not None:
                    kwargs["device_requests"] = [device_request(gpu)]
                container = client.containers.create(**kwargs)
                container.put_archive(GRADING_DIR, job_archive(job.exercise.path, job.code))
                container.start()
            waiting_since = time.monotonic()
            timed_out = False
            with kill_on_cancel(job.cancel, container.kill) as stopped:
                try:
                    container.wait(timeout=wall)
                except (requests.exceptions.ReadTimeout, requests.exceptions.ConnectionError):
                    # Over a unix socket a read timeout may surface as a ConnectionError; one
                    # that comes early is the engine's trouble, not the learner's slowness.
                    if time.monotonic() - waiting_since < wall - 1:
                        raise
                    timed_out = True  # our own flag: exit 137 alone could be the OOM killer too
                    container.kill()
                    container.wait(timeout=30)
            if stopped.is_set():
                elapsed = round(time.monotonic() - started, 3)
                return internal_run(run_error("stopped", job.lang, seconds=f"{elapsed:.1f}"),
                                    kind="stopped", duration_s=elapsed)
            container.reload()
            if mode == "run":
                return self._run_outcome(job, container, timed_out, started)
            return self._outcome(job, container, timed_out, started)
        except docker.errors.ImageNotFound:
            return self._internal(job, f"sandbox image {image_name()} is missing "
                                       "(run `make sandbox-image`)", started)
        except docker.errors.APIError as exc:
            if "could not select device driver" in str(exc):
                return self._internal(job, "the GPU could not be attached to the sandbox "
                                           "(NVIDIA Container Toolkit missing?)", started)
            return self._internal(job, f"docker: {exc.explanation or exc}", started)
        except (docker.errors.DockerException, requests.exceptions.RequestException) as exc:
            return self._internal(job, f"docker: {exc}", started)
        finally:
            if member is not None:  # one job per warm container too
                try:
                    docker_pool(client, limits, lane=mode).release(member)
                except docker.errors.APIError as exc:
                    log.warning("could not remove %s (the janitor will): %s", container.name, exc)
            elif container is not None:
                try:
                    container.remove(force=True, v=True)
                except docker.errors.APIError as exc:
                    log.warning("could not remove %s (the janitor will): %s", container.name, exc)

    def _outcome(self, job: Job, container: Any, timed_out: bool,
                 started: float) -> dict[str, Any]:
        """Decide the document from what we saw, never from exit codes or stdout."""
        limits = job.exercise.config.limits
        elapsed = round(time.monotonic() - started, 3)
        state = container.attrs.get("State", {})
        if timed_out:
            return error_result(job.exercise.id, "timeout", run_error(
                "timeout", job.lang, limit=f"{limits.time_s:g}"), duration_s=elapsed).to_dict()
        doc: dict[str, Any] | None = None
        problem = ""
        try:
            doc = read_results(container, RESULTS_PATH)
        except ResultsUnreadable as exc:
            problem = str(exc)
        if state.get("OOMKilled") and (doc is None or doc.get("error_kind") != "memory"):
            # The cgroup's OOM killer struck (perhaps a child the harness never saw die):
            # whatever the harness concluded, the run did not get the memory it needed.
            output = doc.get("output", "") if doc else ""
            return error_result(job.exercise.id, "memory", run_error(
                "memory", job.lang, limit=str(limits.memory_mb)), output=output,
                duration_s=elapsed).to_dict()
        if doc is None:
            tail = container.logs(tail=40)[-LOG_TAIL_BYTES:].decode("utf-8", "replace")
            log.warning("job %s: %s (exit %s)\n%s", container.name, problem,
                        state.get("ExitCode"), tail)
            return self._internal(job, f"{problem}; exit code {state.get('ExitCode')}", started)
        if doc.get("exercise") != job.exercise.id:
            return self._internal(job, "results document names another exercise", started)
        return doc

    def _run_outcome(self, job: Job, container: Any, timed_out: bool,
                     started: float) -> dict[str, Any]:
        """The run document of a run-without-grading job, decided like _outcome."""
        limits = job.exercise.config.limits
        elapsed = round(time.monotonic() - started, 3)
        if timed_out:
            return internal_run(run_error("timeout", job.lang, limit=f"{limits.time_s:g}"),
                                kind="timeout", duration_s=elapsed)
        try:
            doc = read_results(container, RESULTS_PATH, validate=validate_run_document)
        except ResultsUnreadable as exc:
            if container.attrs.get("State", {}).get("OOMKilled"):
                return internal_run(run_error("memory", job.lang, limit=str(limits.memory_mb)),
                                    kind="memory", duration_s=elapsed)
            detail = f"{exc}; exit code {container.attrs.get('State', {}).get('ExitCode')}"
            return internal_run(run_error("internal", job.lang, detail=detail), duration_s=elapsed)
        return doc

    @staticmethod
    def _internal(job: Job, detail: str, started: float) -> dict[str, Any]:
        log.warning("internal grading error for %s: %s", job.exercise.id, detail)
        message = run_error("internal", job.lang, detail=detail)
        return error_result(job.exercise.id, "internal", message,
                            duration_s=round(time.monotonic() - started, 3)).to_dict()
