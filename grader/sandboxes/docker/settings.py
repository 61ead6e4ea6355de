"""Container settings for one job: the hardening, and the exercise's limits under platform-wide caps."""

from __future__ import annotations

import os
import secrets
import socket
from dataclasses import dataclass
from typing import Any

from grader.sandboxes.base import HARNESS_SLACK_S
from grader.sandboxes.docker.contract import GRADING_DIR, RUNNER_UIDS, entry_command, slot_command
from grader.sandboxes.docker.image import image_name
from grader.sandboxes.owner import worker_identity
from grader.schema import Limits

LABEL_JOB = "learnai.job"
LABEL_DEADLINE = "learnai.deadline"  # unix time after which the janitor may remove it
LABEL_OWNER = "learnai.owner"  # host:pid of the worker that made it, for operators and tests
LABEL_WARM = "learnai.warm"  # "1" on a pre-started container of a warm pool
LABEL_SLOT = "learnai.slot"  # "1" on a slot container (it forks many jobs, one at a time)
# The grading worker (host:pid:start of its main process) whose pool made the container:
# workers remove the containers of dead workers (janitor.remove_orphans).
LABEL_WORKER = "learnai.worker"
# What runs inside: a root entry that drops to `grader` (keeping only SETUID, SETGID and
# KILL, see entry.py), then the harness, which runs learner code under a uid of its own.
# CHOWN: the job jail gives its folder to the job's uid (grader/sandboxes/jail.py).
CAPABILITIES = ["CHOWN", "SETUID", "SETGID", "KILL"]

# The harness itself (interpreter, pytest, torch in the tests) lives beside the learner in
# the same cgroup; these margins keep it from being what the limits bite first.
HARNESS_MEMORY_MB = 768
HARNESS_PIDS = 96
START_SLACK_S = 15  # container start and teardown on a loaded host
# A slot container also holds its supervisor (the zygote: its pages are shared with the job's
# harness and runner, so little of its own) and a job process waiting for the next job.
SLOT_MEMORY_MB = 256
SLOT_PIDS = 16


def _env_float(name: str, default: float) -> float:
    try:
        return float(os.environ.get(name, default))
    except ValueError:
        return default


@dataclass(frozen=True)
class Caps:
    """Platform-wide ceilings, read from the environment so an operator can tighten them."""

    cpus: float = 1.0
    memory_mb: int = 8192
    tmp_mb: int = 64
    shm_mb: int = 256
    log_kb: int = 1024

    @classmethod
    def from_env(cls) -> Caps:
        return cls(
            cpus=_env_float("GRADER_DOCKER_CPUS", cls.cpus),
            memory_mb=int(_env_float("GRADER_DOCKER_MAX_MEMORY_MB", cls.memory_mb)),
            tmp_mb=int(_env_float("GRADER_DOCKER_TMP_MB", cls.tmp_mb)),
            shm_mb=int(_env_float("GRADER_DOCKER_SHM_MB", cls.shm_mb)),
        )


def slot_mode() -> bool:
    """GRADER_DOCKER_MODE: "slot" (default), a long-lived container per slot forking one job at a
    time; "per-job", a fresh container for every job (one torch import each: several times the CPU)."""
    mode = os.environ.get("GRADER_DOCKER_MODE", "slot").strip().lower() or "slot"
    if mode not in ("slot", "per-job"):
        raise ValueError(f"GRADER_DOCKER_MODE={mode!r}: choose slot or per-job")
    return mode == "slot"


def slot_max_jobs() -> int:
    """GRADER_SLOT_MAX_JOBS: jobs a slot container forks before it is replaced (default 200).

    Each job is already a fresh jail whose leftovers the supervisor checks (any of them replaces
    the container at once); this limit and the age bound what no check can see. Each
    replacement imports torch again (about 2.0 core-seconds): 0.046 core-seconds a grading at 50
    jobs, nearly a quarter of a grading's own cost; 0.011 at 200 (docs/grading.md, "Docker slot
    containers").
    """
    return max(1, int(_env_float("GRADER_SLOT_MAX_JOBS", 200)))


def slot_max_age_s() -> float:
    """GRADER_SLOT_MAX_AGE_S: how long a slot container may serve before it is replaced (default 30 min)."""
    return max(10.0, _env_float("GRADER_SLOT_MAX_AGE_S", 1800))


def owner() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def wall_limit_s(limits: Limits) -> float:
    """How long the whole container may run before it is killed: the harness's own clock first."""
    return limits.time_s + HARNESS_SLACK_S + START_SLACK_S


def runner_uid() -> int:
    return RUNNER_UIDS[secrets.randbelow(len(RUNNER_UIDS))]


def container_kwargs(limits: Limits, *, job_id: str, deadline: float, max_idle_s: float,
                     warm: bool = False, caps: Caps | None = None,
                     cpu_shares: int | None = None, slot: bool = False) -> dict[str, Any]:
    """Keyword arguments for `client.containers.create` (without the GPU request).

    Every container, a slot's, a warm pool's or one made for a job, is hardened alike. A
    per-job one runs the warm entry, which waits (at most `max_idle_s`) for its job file;
    `warm` only labels it. A slot's runs the supervisor that forks its jobs (slot_entry.py).
    """
    caps = caps or Caps.from_env()
    memory_mb = min(limits.memory_mb + HARNESS_MEMORY_MB + caps.shm_mb + caps.tmp_mb
                    + (SLOT_MEMORY_MB if slot else 0), caps.memory_mb)
    from docker.types import Mount, Ulimit  # imported late: docker is optional for `local`

    labels = {LABEL_JOB: job_id, LABEL_DEADLINE: str(int(deadline)), LABEL_OWNER: owner(),
              LABEL_WORKER: worker_identity()}
    if warm:
        labels[LABEL_WARM] = "1"
    if slot:
        labels[LABEL_SLOT] = "1"
    return {
        "image": image_name(),
        "command": slot_command(max_idle_s) if slot else entry_command(runner_uid(), max_idle_s),
        "name": f"learnai-{job_id}",
        "labels": labels,
        # Root only to start: the entry drops to `grader` before any grading code runs.
        "user": "0:0",
        "working_dir": GRADING_DIR,
        # /tmp is the container's own size-capped tmpfs, not the host's.
        # PYTORCH_NVML_BASED_CUDA_CHECK: torch.cuda.is_available() asks NVML, not the driver, so
        # CUDA is never initialised before a fork (a slot's supervisor checks it); a job does.
        "environment": {"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "HOME": "/tmp",  # noqa: S108
                        "PYTHONDONTWRITEBYTECODE": "1", "TMPDIR": "/tmp",  # noqa: S108
                        "PYTORCH_NVML_BASED_CUDA_CHECK": "1",
                        # The operator's choice of the job jail (grader/sandboxes/jail.py) holds inside too.
                        **({"GRADER_JAIL": os.environ["GRADER_JAIL"]} if "GRADER_JAIL" in os.environ else {})},
        "network_mode": "none",
        "read_only": True,
        # A fresh anonymous volume per job, seeded from the image's /grading (owned by
        # grader, mode 0711): files can be copied in and out of a read-only container.
        "mounts": [Mount(GRADING_DIR, None, type="volume")],
        "tmpfs": {"/tmp": f"rw,nosuid,nodev,noexec,size={caps.tmp_mb}m,mode=1777"},  # noqa: S108
        "shm_size": f"{caps.shm_mb}m",
        "ipc_mode": "private",
        "cap_drop": ["ALL"],
        "cap_add": CAPABILITIES,
        "security_opt": ["no-new-privileges"],
        "pids_limit": limits.processes + HARNESS_PIDS + (SLOT_PIDS if slot else 0),
        # Equal limits: no swap, so a memory hog meets the OOM killer, not a slow disk.
        "mem_limit": f"{memory_mb}m",
        "memswap_limit": f"{memory_mb}m",
        "nano_cpus": int(caps.cpus * 1e9),
        # Weight against other containers when the CPUs are short (grader.sandboxes.lane):
        # low for a warm one until it is taken, and for background work; Docker's default else.
        **({"cpu_shares": cpu_shares} if cpu_shares is not None else {}),
        "ulimits": [Ulimit(name="nofile", soft=1024, hard=1024),
                    Ulimit(name="fsize", soft=64 << 20, hard=64 << 20),
                    Ulimit(name="core", soft=0, hard=0)],
        "init": True,  # docker-init reaps zombies and forwards the kill
        "log_config": {"type": "json-file",
                       "config": {"max-size": f"{caps.log_kb}k", "max-file": "1"}},
        # A container's stdin is its lifeline, closed by Docker when the process holding it
        # attached dies. docker-py sets StdinOnce (close after the one client leaves) only for
        # an attached container: detach=False does that, and nothing else for API starts.
        "stdin_open": True,
        "detach": False,
    }
