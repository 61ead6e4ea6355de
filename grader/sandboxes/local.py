"""The local sandbox: the harness in a child process with limits and a timeout; its runner jailed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from grader.sandboxes import jail
from grader.sandboxes.base import HARNESS_SLACK_S, STARTING, Job, report_phase, warm_up_pool
from grader.sandboxes.contract import MAX_RESULTS_BYTES
from grader.sandboxes.lane import background_slot, lowered
from grader.sandboxes.local_warm import LocalMember, local_pool, local_run_pool, use_zygote
from grader.sandboxes.outcome import GRADING, Outcome, documents_for
from grader.sandboxes.pool import WarmPool
from grader.sandboxes.zygote_client import same_grader_path


class LocalSandbox:
    """Runs the harness as a child of this process: limits, a wall clock, a fresh directory.

    Where the kernel has Landlock (and libseccomp is there), each job's learner runner is
    forked into a jail of its own (grader/sandboxes/jail.py): its own uid where this process
    may change uid, a private folder, no file outside the interpreter's, no network, no other
    process. Elsewhere (or GRADER_JAIL=0) it runs under this machine's user with rlimits only:
    `isolated` says which, and the server says so at start and on the instructor pages.
    """

    name = "local"

    @property
    def isolated(self) -> bool:
        return jail.enabled() and jail.support().isolated

    def warm_pool(self) -> WarmPool:
        return local_pool()

    def warm_up(self, wait_s: float = 0.0) -> bool:
        return warm_up_pool(local_pool(), wait_s)

    def remove_orphans(self, *, this_worker: bool = False) -> int:
        return 0  # a local sandbox is a process of its worker's: it ends with it (local_warm)

    def run(self, job: Job) -> dict[str, Any]:
        if job.background:  # never a learner's warm sandbox; one at a time, lowest priority
            with background_slot(True):
                return self._run_cold(job)
        member = local_pool().take()
        if member is None:
            report_phase(job, STARTING)
        if member is None and use_zygote():
            # None warm: a fresh fork of the zygote (grader/sandboxes/zygote.py) is a cold start
            # without the imports; it runs the job at once, at normal priority.
            member = LocalMember(from_zygote=True)
        if member is not None:  # warm: torch, pytest and the runner are already up
            return self._run_warm(member, job, "grade")
        return self._run_cold(job)

    def execute(self, job: Job) -> dict[str, Any]:
        """Run without grading: the submission's top level, in a sandbox of the Run lane.

        The lane's own warm pool (run_lane): a Run never takes the warm sandbox a grading was
        going to use; with none of its own idle it starts one now. How many run at once is the
        caller's lane (RUN_WORKERS threads, or a `-Q runs` worker's processes), as for gradings.
        """
        member = local_run_pool().take()
        return self._run_warm(member or LocalMember(from_zygote=use_zygote()), job, "run")

    def _run_warm(self, member: LocalMember, job: Job, mode: str) -> dict[str, Any]:
        limits = job.exercise.config.limits
        started = time.monotonic()
        try:
            outcome = member.run(job, mode, timeout=limits.time_s + HARNESS_SLACK_S)
        finally:
            (local_run_pool() if mode == "run" else local_pool()).release(member)  # one job each
        return documents_for(mode).decide(job, outcome, started)

    def _run_cold(self, job: Job) -> dict[str, Any]:
        limits = job.exercise.config.limits
        started = time.monotonic()
        with tempfile.TemporaryDirectory(prefix="grade-") as scratch:
            root = Path(scratch)
            submission = root / "submission.py"
            submission.write_text(job.code, encoding="utf-8")
            results_path = root / "out" / "results.json"
            command = [sys.executable, "-m", "grader", "harness", str(job.exercise.path),
                       str(submission), "--results", str(results_path), "--lang", job.lang]
            cell = jail.new_job() if jail.enabled() else None
            if cell is not None:
                command += ["--jail", cell.to_arg()]
            env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", OMP_NUM_THREADS="1",
                       PYTORCH_NVML_BASED_CUDA_CHECK="1", PYTHONPATH=same_grader_path())
            try:
                completed = subprocess.run(  # noqa: S603 -- our own interpreter and module
                    lowered(command) if job.background else command, cwd=root, env=env,
                    stdin=subprocess.DEVNULL, capture_output=True,
                    timeout=limits.time_s + HARNESS_SLACK_S, check=False,
                )
            except subprocess.TimeoutExpired:
                return GRADING.decide(job, Outcome(timed_out=True), started)
            finally:
                if cell is not None and Path(cell.directory).exists():
                    jail.end(cell)  # the harness was killed before it could end the job itself
                if cell is not None:
                    jail.release(cell)
            return GRADING.decide(job, self._read(results_path, completed), started)

    def _read(self, path: Path, completed: subprocess.CompletedProcess[bytes]) -> Outcome:
        tail = completed.stderr.decode("utf-8", "replace")[-2000:]
        try:
            if path.is_symlink() or path.stat().st_size > MAX_RESULTS_BYTES:
                raise ValueError("results file is not a plain file of sane size")
            return Outcome(document=json.loads(path.read_text(encoding="utf-8")), exit_code=completed.returncode)
        except (OSError, ValueError) as exc:
            return Outcome(problem=str(exc), exit_code=completed.returncode, log_tail=tail)
