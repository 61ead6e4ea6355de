"""A slot container's supervisor: the zygote that forks one job at a time and checks what each left.

    python -m grader.sandboxes.docker.entry slot --max-idle-s S     (the container's command)

It runs as `grader` (entry.py dropped it there, keeping SETUID, SETGID and KILL) and imports
torch, pytest and the grader once, like the local zygote (grader/sandboxes/zygote.py): it never
reads an exercise, a test, a solution or a submission, and never initialises CUDA. Then, one
job at a time:
  1. fork a job process; it forks its learner runner into the job's jail (grader/sandboxes/
     jail.py: a fresh uid, its own folder, Landlock, seccomp, rlimits; without the jail, a fresh
     uid and no capability) before anything of a job exists, then waits for the job on stdin
     (frames.py): an order and a tar;
  2. the job process unpacks the files into /grading/job (0700 grader), grades or runs the job
     as warm_entry does, sends the document on stdout and exits;
  3. the supervisor checks what the job left: any process besides itself, a new file in /tmp,
     /dev/shm or /grading, a SysV IPC object, an OOM kill, a job process that failed. It sends
     {"left": [...], "oom": bool}; if anything was left it exits, and the worker replaces the
     container (the worker also replaces it after a time-out, after N jobs and at a maximum age).
stdin's EOF (the worker died: the lifeline) or an idle job process ends the container.
"""

from __future__ import annotations

import argparse
import os
import secrets
import shutil
import signal
import sys
import time
from pathlib import Path
from typing import Any

from grader.runner_fork import capset_to_zero
from grader.sandboxes.docker.contract import GRADING_DIR, RUNNER_UIDS, job_order, unpack_job_files
from grader.sandboxes.docker.frames import FILES_BYTES, MESSAGE_BYTES, read_frame, write_message
from grader.sandboxes.listing import entries

IDLE_EXIT = 3  # a job process that got no job (EOF or idle): the supervisor ends too
WATCHED = ("/tmp", "/dev/shm", "/dev/mqueue", GRADING_DIR)  # noqa: S108 -- the container's own writable places
JOB_DIR = Path(GRADING_DIR) / "job"  # the job's files: 0700 grader
WORK_DIR = Path(GRADING_DIR) / "work"  # the learner's working directory and HOME (sticky 1777)
SYSV = ("/proc/sysvipc/shm", "/proc/sysvipc/sem", "/proc/sysvipc/msg")
OOM_FILES = ("/sys/fs/cgroup/memory/memory.oom_control", "/sys/fs/cgroup/memory.events")


def oom_kills() -> int:
    """The container cgroup's count of OOM kills (cgroup v1 or v2); 0 where neither is readable."""
    for name in OOM_FILES:
        try:
            for line in Path(name).read_text().splitlines():
                key, _, value = line.partition(" ")
                if key == "oom_kill":
                    return int(value)
        except (OSError, ValueError):
            continue
    return 0


def _entries() -> dict[str, int]:
    """Every name in the watched folders, with its owner."""
    return {path: info.st_uid for path, info in entries(WATCHED)}


def _others() -> list[int]:
    """Live processes of this container besides its init and this supervisor."""
    pids = []
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) in (1, os.getpid()):
            continue
        try:
            state = Path(f"/proc/{name}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue  # ended while we looked
        if state != "Z":  # a zombie is already dead; docker-init reaps it
            pids.append(int(name))
    return pids


def remove_as(uid: int, paths: list[Path]) -> None:
    """Remove folders the job's uid wrote in, as that uid (its own subfolders are not ours to
    enter), then what is left of them as ourselves. Runs after the job's processes are gone.
    One child for all of them: each fork of this process (torch imported) costs milliseconds."""
    paths = [path for path in paths if path.exists()]
    if not paths:
        return
    pid = os.fork()
    if pid == 0:
        try:
            os.setgroups([])
            os.setresgid(uid, uid, uid)
            os.setresuid(uid, uid, uid)
            capset_to_zero()  # from a non-root uid, a uid change keeps them: none needed here
            for path in paths:
                try:
                    entries_of_path = list(path.iterdir())
                except OSError:
                    continue  # the next folder still gets emptied; what stays is reported as left
                for entry in entries_of_path:  # what is not its own (the harness's copy of the code) stays
                    if entry.is_dir() and not entry.is_symlink():
                        shutil.rmtree(entry, ignore_errors=True)
                    else:
                        _unlink(str(entry))
        finally:
            os._exit(0)
    os.waitpid(pid, 0)
    for path in paths:
        try:
            os.rmdir(path)  # the jail's folder is the job's, 0700: we may remove it, not list it
        except OSError:
            shutil.rmtree(path, ignore_errors=True)  # the work folder: ours, with the harness's files


def what_was_left(before: dict[str, int], oom_before: int, uid: int, cell: Any) -> tuple[list[str], bool]:
    """What the last job left behind (processes are killed on the way), and whether OOM struck.

    Its own folders (the jail's, the working directory) are emptied as its uid and removed: what
    a learner writes there is expected. Anything new elsewhere, a process or an IPC object, is a
    reason to go. The jail's own end (`cell`, grader.sandboxes.jail) runs too, as on a bare host.
    """
    left = []
    processes = _others()
    for _ in range(3):  # a runner the harness killed may still be on its way out
        if not processes:
            break
        time.sleep(0.02)
        processes = _others()
    if processes:
        left.append(f"{len(processes)} process(es) outlived the job")
        for pid in processes:
            try:
                os.kill(pid, signal.SIGKILL)  # CAP_KILL: any uid in this container
            except (ProcessLookupError, PermissionError):
                pass
    if cell is not None and processes:
        cell.end()  # kill(-1) as the job's uid until none is left; its folder is removed below
    remove_as(uid, [WORK_DIR] if cell is None else [Path(cell.directory), WORK_DIR])
    if cell is not None and not processes:
        # _others() saw every process of this PID namespace: none of the job's is left to kill.
        cell.end(none_alive=True)  # the shared temporary places swept, the uid free again
    for path, owner in _entries().items():
        if path in before:
            continue
        if owner == os.getuid():  # the harness's own (umask 077): removed, not a reason to go
            shutil.rmtree(path, ignore_errors=True) if os.path.isdir(path) else _unlink(path)
            if not os.path.lexists(path):
                continue
        left.append(f"{path} was left behind")
    for table in SYSV:
        try:
            if len(Path(table).read_text().splitlines()) > 1:
                left.append(f"a SysV IPC object was left behind ({table})")
        except OSError:
            pass
    oom = oom_kills() > oom_before
    if oom:
        left.append("the OOM killer struck")
    return left, oom


def _unlink(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def job_process(uid: int, cell: Any, out: int, max_idle_s: float, supervisor: int) -> int:
    """One job, start to end (in the forked child): the runner first, then the job, then its document.

    With a jail (`cell`), the runner enters it when it is forked (its uid, folder, Landlock,
    seccomp, rlimits) and this harness takes its own layers, dying with the supervisor; without
    one (GRADER_JAIL=0, or a kernel without Landlock) the runner only becomes `uid`, as before.
    """
    from grader import runner_fork
    from grader.learner import Learner, LearnerFatal
    from grader.learner_errors import SUBMISSION_NAME
    from grader.sandboxes import jail
    from grader.sandboxes.warm_entry import _run_job
    from grader.schema import Limits

    os.setsid()
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)  # the harness waits for its runner
    if cell is not None:
        jail.harden_harness(supervisor)  # forked by the supervisor's one thread
    workdir = WORK_DIR
    workdir.mkdir(mode=0o700)  # Learner makes it the runner's: sticky, 1777
    learner = Learner(workdir / SUBMISSION_NAME, Limits(), workdir=workdir, fork=True, jail=cell,
                      runner_user=None if cell is not None else f"{uid}:{uid}")
    runner_fork.prepare(learner.preload)
    learner.start()  # before anything of a job is in this process (grader.runner_fork)
    try:
        learner.wait_ready()
    except LearnerFatal:
        pass  # the job's first request reports it (as internal): never a verdict on the learner
    try:
        header = read_frame(0, MESSAGE_BYTES, deadline=time.monotonic() + max_idle_s)
        files = read_frame(0, FILES_BYTES) if header is not None else None
        if header is None or files is None:
            learner.close()
            return IDLE_EXIT
        import json

        order: dict[str, Any] = json.loads(header)
        JOB_DIR.mkdir(mode=0o700)
        unpack_job_files(files, JOB_DIR)
        results = JOB_DIR / "out" / "results.json"
        job = job_order(exercise=str(JOB_DIR / "exercises" / order["exercise"]),
                        submission=str(JOB_DIR / "submission.py"), results=str(results),
                        lang=order.get("lang", "en"), mode=order.get("mode", "grade"))
        _run_job(job, learner, workdir)
        learner.close()
        try:
            write_message(out, {"document": json.loads(results.read_text(encoding="utf-8"))})
        except (OSError, ValueError) as exc:
            write_message(out, {"problem": f"no results file: {exc}"})
        return 0
    finally:
        shutil.rmtree(JOB_DIR, ignore_errors=True)  # the work folder is the supervisor's to empty


def serve(out: int, max_idle_s: float) -> int:
    """Fork jobs one at a time until one leaves something behind, or none comes."""
    from grader.sandboxes import jail

    jailed = jail.enabled()
    before = _entries()
    while True:
        cell = jail.new_job(base=Path(GRADING_DIR)) if jailed else None
        uid = RUNNER_UIDS[secrets.randbelow(len(RUNNER_UIDS))]
        if cell is not None and cell.uid is not None:
            uid = cell.uid
        supervisor = os.getpid()
        oom_before = oom_kills()
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            code = 1
            try:
                code = job_process(uid, cell, out, max_idle_s, supervisor)
            except BaseException as exc:  # noqa: BLE001 -- the supervisor reports it
                print(f"job process failed: {type(exc).__name__}: {exc}", file=sys.stderr, flush=True)
            finally:
                os._exit(code)
        _, status = os.waitpid(pid, 0)
        code = os.waitstatus_to_exitcode(status)
        if code == IDLE_EXIT:
            return 0
        left, oom = what_was_left(before, oom_before, uid, cell)
        if code != 0:
            left.append(f"the job process ended with {code}")
        write_message(out, {"left": left, "oom": oom})
        if left:
            return 0  # the worker replaces this container


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-idle-s", type=float, default=900.0)
    options = parser.parse_args(argv)
    from grader.sandboxes.zygote import prepare

    prepare()
    if "torch" in sys.modules and sys.modules["torch"].cuda.is_initialized():
        print("CUDA was initialised while importing: a job could inherit it", file=sys.stderr)
        return 1
    # Our frames go to a copy of stdout; fd 1 itself is stderr from now on (pytest's chatter).
    out = os.dup(1)
    os.dup2(2, 1)
    write_message(out, {"ready": True})
    return serve(out, options.max_idle_s)


if __name__ == "__main__":
    code = main()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)  # no interpreter teardown (torch's takes ~0.3 s)
