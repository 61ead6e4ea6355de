"""The docker side of the job contract: the container's paths, the entry's command, the files in and out.

What every backend shares (the warm entry, its ready line, the job order) is
grader/sandboxes/contract.py; this module adds what crosses a container's wall: the paths the
job's files are put at, the root entry's command, and the results read back (capped, no links).
The entries themselves (entry.py, slot_entry.py, grader/sandboxes/warm_entry.py) run inside
the image and take their protocol from here.
"""

from __future__ import annotations

import io
import json
import os
import tarfile
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, BinaryIO

from grader.results import validate_document
from grader.sandboxes.contract import MAX_RESULTS_BYTES, job_order

# -- what the entry runs --------------------------------------------------------------------
# A container starts as root in ENTRY, which drops to HARNESS_USER (keeping only SETUID, SETGID
# and KILL) and runs WARM_ENTRY: it imports everything, forks the learner runner as the job's
# own uid, says READY, then waits for ONE job order (JOB_FILE in a container, a line on stdin
# in the local pool), grades or runs it, writes the document to its "results" path and exits.
ENTRY = "grader.sandboxes.docker.entry"
WARM_ARG = "warm"  # ENTRY's first argument: the warm entry follows
SLOT_ARG = "slot"  # ENTRY's first argument: a slot container's supervisor follows (SLOT_ENTRY)
SLOT_ENTRY = "grader.sandboxes.docker.slot_entry"
HARNESS_USER = "grader"
GRADER_UID = 10001  # the image's users (grader/Dockerfile)
LEARNER_UID = 10002
# Learner code runs under a uid of its own per job, picked from this range (no passwd
# entry needed): per-uid kernel counts such as RLIMIT_NPROC are host-wide, not per
# container, so a shared uid would let one job's fork bomb starve every other job.
RUNNER_UIDS = range(200_000, 1_000_000)

# -- what goes in ---------------------------------------------------------------------------
GRADING_DIR = "/grading"  # a fresh volume per container; job_archive's names are relative to it
JOB_FILE = f"{GRADING_DIR}/job.json"  # the order; a warm container starts when it sees it whole
SUBMISSION_PATH = f"{GRADING_DIR}/submission.py"
RESULTS_PATH = f"{GRADING_DIR}/out/results.json"
SKIP_NAMES = {"__pycache__", ".pytest_cache", ".git"}

# -- what comes out -------------------------------------------------------------------------
GO_MODE_TYPE_BITS = 0xFFF00000  # any type bit docker reports: directory, symlink, device, pipe...


def entry_command(uid: int, max_idle_s: float) -> list[str]:
    """A container's command: the entry, the learner runner's own uid, how long to wait for a job.

    --lifeline: its stdin is held open by the process that made it (warm.DockerMember); when
    that process dies, Docker closes stdin and the container ends itself.
    """
    return ["python3", "-m", ENTRY, WARM_ARG, "--job-file", JOB_FILE,
            "--runner-user", f"{uid}:{uid}", "--max-idle-s", f"{max_idle_s:g}", "--lifeline"]


def slot_command(max_idle_s: float) -> list[str]:
    """A slot container's command: the entry, then the supervisor that forks its jobs (slot_entry.py).

    Its stdin is the lifeline too: when the worker holding it attached dies, stdin closes and
    the waiting job process, then the supervisor, end.
    """
    return ["python3", "-m", ENTRY, SLOT_ARG, "--max-idle-s", f"{max_idle_s:g}"]


def container_order(exercise_dir: Path, lang: str, mode: str) -> dict[str, str]:
    """The job order of a container: the paths job_archive puts the files at."""
    return job_order(exercise=f"{GRADING_DIR}/exercises/{exercise_dir.name}", submission=SUBMISSION_PATH,
                     results=RESULTS_PATH, lang=lang, mode=mode)


class ResultsUnreadable(Exception):
    """The results file is missing, too big, not a regular file, or not a results document."""


def _add(tar: tarfile.TarFile, name: str, *, data: bytes | None = None, mode: int,
         uid: int = GRADER_UID, gid: int = GRADER_UID) -> None:
    info = tarfile.TarInfo(name)
    info.uid, info.gid, info.mode = uid, gid, mode
    info.uname = info.gname = ""  # numeric ids only: names would be looked up on the engine
    if data is None:
        info.type = tarfile.DIRTYPE
        tar.addfile(info)
    else:
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))


def _exercise_files(folder: Path) -> Iterable[tuple[str, Path | None]]:
    """Relative names of the folder's directories (None) and regular files; links are skipped."""
    for top, dirs, files in os.walk(folder, followlinks=False):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_NAMES
                         and not os.path.islink(os.path.join(top, d)))
        rel_top = Path(top).relative_to(folder)
        for name in dirs:
            yield str(rel_top / name), None
        for name in sorted(files):
            path = Path(top) / name
            if path.is_file() and not path.is_symlink() and not name.endswith(".pyc"):
                yield str(rel_top / name), path


def _add_job_files(tar: tarfile.TarFile, exercise_dir: Path, code: str) -> None:
    """exercises/<id>/ for the grader's eyes only, the submission, out/ (owners and modes set here)."""
    # The loader wants the folder named after the exercise id.
    _add(tar, "exercises", mode=0o700)
    _add(tar, f"exercises/{exercise_dir.name}", mode=0o700)
    for name, path in _exercise_files(exercise_dir):
        target = f"exercises/{exercise_dir.name}/{name}"
        if path is None:
            _add(tar, target, mode=0o700)
        else:
            _add(tar, target, data=path.read_bytes(), mode=0o600)
    # The learner's own code: readable by the runner, writable by no one in there.
    _add(tar, os.path.relpath(SUBMISSION_PATH, GRADING_DIR), data=code.encode("utf-8"), mode=0o644)
    _add(tar, os.path.relpath(os.path.dirname(RESULTS_PATH), GRADING_DIR), mode=0o700)


def job_archive(exercise_dir: Path, code: str, order: dict[str, str]) -> bytes:
    """The tar put into a per-job container's /grading: the job's files and, last, the order.

    Owners and modes are set here, not taken from the host, because the engine unpacks
    as root and the host's uids mean nothing inside the image.
    """
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as tar:
        _add_job_files(tar, exercise_dir, code)
        # Last: a warm container starts when it sees this file whole.
        _add(tar, os.path.relpath(JOB_FILE, GRADING_DIR), data=json.dumps(order).encode("utf-8"), mode=0o600)
    return buffer.getvalue()


def job_files(exercise_dir: Path, code: str) -> bytes:
    """The tar a slot container's job is sent (frames.py): the same files, unpacked by unpack_job_files."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as tar:
        _add_job_files(tar, exercise_dir, code)
    return buffer.getvalue()


def unpack_job_files(data: bytes, root: Path) -> None:
    """Unpack job_files' tar under `root` (in the container, as the harness): directories and
    regular files only, nothing outside root, the modes the tar gives (owner: whoever unpacks)."""
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:") as tar:
        for member in tar:
            parts = Path(member.name).parts
            if not parts or Path(member.name).is_absolute() or ".." in parts:
                raise ValueError(f"job file outside the job folder: {member.name!r}")
            target = root.joinpath(*parts)
            if member.isdir():
                target.mkdir(mode=member.mode & 0o700, exist_ok=True)
            elif member.isreg():
                handle = tar.extractfile(member)
                assert handle is not None  # a regular member always has data
                fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, member.mode & 0o644)
                with os.fdopen(fd, "wb") as out:
                    out.write(handle.read())
            else:
                raise ValueError(f"job file is not a file or folder: {member.name!r}")


def _read_capped(chunks: Iterable[bytes], cap: int) -> bytes:
    data = bytearray()
    for chunk in chunks:
        data += chunk
        if len(data) > cap:
            raise ResultsUnreadable(f"results archive is larger than {cap} bytes")
    return bytes(data)


def read_results(container: Any, path: str, *, cap: int = MAX_RESULTS_BYTES,
                 validate: Callable[[Any], dict[str, Any]] = validate_document) -> dict[str, Any]:
    """Fetch and validate the results document; never follows a link, never reads past cap."""
    import docker.errors

    try:
        stream, stat = container.get_archive(path)
    except docker.errors.NotFound as exc:
        raise ResultsUnreadable("no results file") from exc
    if stat.get("mode", 0) & GO_MODE_TYPE_BITS or stat.get("linkTarget"):
        raise ResultsUnreadable(f"results path is not a regular file (mode {stat.get('mode')})")
    if stat.get("size", 0) > cap:
        raise ResultsUnreadable(f"results file is {stat.get('size')} bytes, over {cap}")
    raw = _read_capped(stream, cap + 64 * 1024)  # room for the tar headers
    return parse_results_tar(io.BytesIO(raw), cap=cap, validate=validate)


def parse_results_tar(fileobj: BinaryIO, *, cap: int = MAX_RESULTS_BYTES,
                      validate: Callable[[Any], dict[str, Any]] = validate_document) -> dict[str, Any]:
    """The one regular file in a get_archive tar, parsed and validated."""
    try:
        with tarfile.open(fileobj=fileobj, mode="r:") as tar:
            member = tar.next()
            if member is None or not member.isreg():
                raise ResultsUnreadable("results member is not a regular file")
            if member.size > cap:
                raise ResultsUnreadable(f"results file is {member.size} bytes, over {cap}")
            handle = tar.extractfile(member)
            assert handle is not None  # a regular member always has data
            text = handle.read(cap + 1).decode("utf-8")
        return validate(json.loads(text))
    except (tarfile.TarError, UnicodeDecodeError, ValueError) as exc:
        raise ResultsUnreadable(f"results file is not a valid document: {exc}") from exc
