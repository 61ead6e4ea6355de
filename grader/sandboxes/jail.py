"""The job jail: what a freshly forked learner runner does to itself before any learner code runs.

API (stable; the docker slot uses the same calls):

    support() -> Support          what this kernel and process offer (Landlock ABI, seccomp,
                                  whether the uid can change); .isolated, .missing, .describe()
    enabled() -> bool             GRADER_JAIL: "auto" (default: on where support().isolated),
                                  "1" (required: jobs are refused where it is not supported),
                                  "0" (off: the unisolated sandbox of before, for comparisons)
    prepare() -> None             the parent's once-per-process work (the seccomp program, the
                                  read-only paths), done in a zygote before it forks
    new_job(base=None) -> JobJail the parent's choice for one job, before it forks: a fresh
                                  uid/gid (where it may change uid) and a job directory name
    enter(job, parent_pid)        in the forked child, in order, each step checked; raises
                                  JailError(step) if one fails: the job is then refused
                                  (an internal error, never a score)
    harden_harness(parent_pid)    the layers the harness (tests, reference) takes on itself
                                  (parent_pid None: no PDEATHSIG, see its docstring)
    end(job) -> Ended             in the parent after the job, even if the harness died: every
                                  process of the job's uid killed, its directory and its
                                  /dev/shm files removed
    release(job)                  the uid back to new_job() when the harness ended the job
    JobJail.to_arg()/from_arg()   the job as one command-line word (harness --jail ...)
    JobJail.prepare/enter/end     the same three, as methods: what runner_fork and the harness
                                  call (they sit below grader.sandboxes and may not import it)

The steps of enter(), in order (docs/sandbox.md, "The job jail"):
 1. session: a session and process group of its own;
 2. PR_SET_PDEATHSIG (SIGKILL): it dies with the harness that forked it (checked: that parent
    is still there after the call, so a harness dying in between cannot be missed);
 3. PR_SET_DUMPABLE 0: no other process of its uid may read its memory or /proc files;
 4. PR_SET_NO_NEW_PRIVS: no setuid binary or file capability gives anything back later;
 5. directory: the job directory created 0700, owned by the job's uid (checked with lstat);
 6. identity: where the parent may change uid (root on a bare host, or a process with
    CAP_SETUID), the fresh uid/gid and no groups; every capability set emptied (bounding,
    ambient, inheritable, permitted, effective), checked in /proc/self/status;
 7. home: HOME, TMPDIR and the working directory are the job directory; umask 077;
 8. landlock: read and execute only beneath the interpreter's tree, the libraries and the
    grader package; write only in the job directory (and create/open, never list, in /dev/shm,
    which DataLoader workers need); TCP bind and connect denied (ABI >= 4); signals and abstract
    Unix sockets scoped to the job (ABI >= 6). Checked: "/" cannot be listed afterwards;
 9. seccomp: a filter built with libseccomp (pyseccomp, a ctypes binding) once per process
    and loaded here: no ptrace, process_vm_*, sockets other than AF_UNIX, namespaces, mount,
    bpf, perf, io_uring, keys, SysV IPC, modules and the like (EPERM; other architectures kill);
10. rlimits: core 0, open files, file size, processes (with its own uid), and ceilings for
    CPU and address space that the runner lowers to the exercise's limits when its job comes.
Where the parent may not change uid (a non-root `make run`, a container without CAP_SETUID) the
job keeps the parent's uid and relies on steps 3, 4, 8 and 9: Landlock keeps it off other
processes (ptrace, /proc/PID/mem, signals) and files; support().missing says what is lost.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import fcntl
import json
import os
import resource
import secrets
import select
import shutil
import signal
import stat
import sys
import tempfile
import threading
import time
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from pathlib import Path

from grader.runner_fork import capset_to_zero
from grader.sandboxes.listing import entries

# prctl options (linux/prctl.h)
PR_SET_PDEATHSIG = 1
PR_GET_DUMPABLE = 3
PR_SET_DUMPABLE = 4
PR_GET_SECCOMP = 21
PR_SET_SECCOMP = 22
PR_CAPBSET_DROP = 24
PR_SET_CHILD_SUBREAPER = 36
PR_SET_NO_NEW_PRIVS = 38
PR_GET_NO_NEW_PRIVS = 39
PR_CAP_AMBIENT = 47
PR_CAP_AMBIENT_CLEAR_ALL = 4
SECCOMP_MODE_FILTER = 2

# Landlock (linux/landlock.h); syscall numbers are the same on every architecture.
SYS_LANDLOCK_CREATE_RULESET = 444
SYS_LANDLOCK_ADD_RULE = 445
SYS_LANDLOCK_RESTRICT_SELF = 446
LANDLOCK_CREATE_RULESET_VERSION = 1
LANDLOCK_RULE_PATH_BENEATH = 1
FS_EXECUTE = 1 << 0
FS_WRITE_FILE = 1 << 1
FS_READ_FILE = 1 << 2
FS_READ_DIR = 1 << 3
FS_REMOVE_DIR = 1 << 4
FS_REMOVE_FILE = 1 << 5
FS_MAKE_CHAR = 1 << 6
FS_MAKE_DIR = 1 << 7
FS_MAKE_REG = 1 << 8
FS_MAKE_SOCK = 1 << 9
FS_MAKE_FIFO = 1 << 10
FS_MAKE_BLOCK = 1 << 11
FS_MAKE_SYM = 1 << 12
FS_REFER = 1 << 13  # ABI 2
FS_TRUNCATE = 1 << 14  # ABI 3
FS_IOCTL_DEV = 1 << 15  # ABI 5
NET_BIND_TCP = 1 << 0  # ABI 4
NET_CONNECT_TCP = 1 << 1
SCOPE_ABSTRACT_UNIX_SOCKET = 1 << 0  # ABI 6
SCOPE_SIGNAL = 1 << 1
FS_BY_ABI = {1: (1 << 13) - 1, 2: (1 << 14) - 1, 3: (1 << 15) - 1, 4: (1 << 15) - 1,
             5: (1 << 16) - 1}
FILE_RIGHTS = FS_EXECUTE | FS_WRITE_FILE | FS_READ_FILE | FS_TRUNCATE | FS_IOCTL_DEV
READ = FS_EXECUTE | FS_READ_FILE | FS_READ_DIR
DEVICE = FS_READ_FILE | FS_WRITE_FILE | FS_IOCTL_DEV
# /dev/shm: make, open, write and remove files whose name it knows (POSIX semaphores, torch's
# shared tensors); never list it, so another job's names stay unknown to it.
SHM = FS_READ_FILE | FS_WRITE_FILE | FS_MAKE_REG | FS_REMOVE_FILE | FS_TRUNCATE
ISOLATING_ABI = 6  # files, TCP, signals and abstract sockets: what "isolated" means here

# Fresh uids for local jobs: far from any distribution's users, subuid ranges (100000-) and the
# docker sandbox's runners (200000-999999). GRADER_JAIL_UIDS="START-END" changes it.
DEFAULT_UIDS = (1_500_000_000, 1_599_999_999)
# Ceilings (the schema's maxima): the runner lowers them to its exercise's limits at load.
DEFAULT_LIMITS = {"memory_mb": 4096, "cpu_s": 4 * 120 + 60 + 120, "file_mb": 16,
                  "open_files": 1024, "processes": 1024}
# Read-only places every interpreter needs besides its own tree (absent ones are skipped).
SYSTEM_READS = ("/usr", "/lib", "/lib64", "/lib32", "/bin", "/sbin", "/etc/ld.so.cache",
                "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/localtime", "/etc/nsswitch.conf",
                "/etc/passwd", "/etc/group", "/etc/mime.types", "/etc/os-release",
                "/proc/cpuinfo", "/proc/meminfo", "/proc/stat", "/proc/sys/vm/overcommit_memory",
                "/sys/devices/system/cpu", "/sys/fs/cgroup")
DEVICES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom")
KILL_ROUNDS = 1500  # of kill(-1) and a 2 ms wait: 3 s for a fork bomb to die and be reaped
SWEPT = ("/dev/shm", "/tmp", "/var/tmp")  # noqa: S108 -- where a job's uid may leave files

# What seccomp refuses outright (EPERM). Names unknown to this libseccomp are skipped.
DENIED_SYSCALLS = (
    "ptrace", "process_vm_readv", "process_vm_writev", "kcmp", "pidfd_getfd", "process_madvise",
    "unshare", "setns", "mount", "umount2", "pivot_root", "chroot", "mount_setattr", "open_tree",
    "move_mount", "fsopen", "fsconfig", "fsmount", "fspick", "bpf", "perf_event_open",
    "userfaultfd", "io_uring_setup", "io_uring_enter", "io_uring_register", "keyctl", "add_key",
    "request_key", "shmget", "shmat", "shmdt", "shmctl", "msgget", "msgsnd", "msgrcv", "msgctl",
    "semget", "semop", "semctl", "semtimedop", "kexec_load", "kexec_file_load", "init_module",
    "finit_module", "delete_module", "reboot", "swapon", "swapoff", "acct", "syslog",
    "quotactl", "quotactl_fd", "lookup_dcookie", "vhangup", "iopl", "ioperm", "settimeofday",
    "clock_settime", "clock_adjtime", "adjtimex", "sethostname", "setdomainname",
    "name_to_handle_at", "open_by_handle_at", "fanotify_init", "uselib", "ustat", "sysfs",
    "modify_ldt", "nfsservctl", "vm86", "vm86old",
)
CLONE_NAMESPACES = (0x00020000, 0x02000000, 0x04000000, 0x08000000, 0x10000000, 0x20000000,
                    0x40000000)  # NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID, NEWNET
AF_UNIX = 1
REACH_FD_BASE = 900  # fds of folders kept reachable (_reach_unsearchable), out of the way

_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long
_libc.prctl.restype = ctypes.c_int


class JailError(RuntimeError):
    """One step of the jail failed: the job must be refused (internal), never graded."""

    def __init__(self, step: str, detail: str):
        self.step = step
        super().__init__(f"jail step {step!r} failed: {detail}")


@dataclass(frozen=True)
class JobJail:
    """One job's jail, chosen by the parent before it forks."""

    directory: str  # the job's only writable place; enter() creates it
    uid: int | None = None  # None: the parent cannot change uid, the job keeps its uid
    gid: int | None = None
    limits: dict[str, float] = field(default_factory=lambda: dict(DEFAULT_LIMITS))

    # Methods for the grader's lower layers (runner_fork, the harness), which may not import
    # grader.sandboxes: they are handed a JobJail and call these.
    def prepare(self) -> None:
        prepare()

    def enter(self, parent_pid: int) -> None:
        enter(self, parent_pid)

    def end(self, descendants_of: int | None = None, reap: bool = False, *, none_alive: bool = False) -> Ended:
        return end(self, descendants_of, reap, none_alive=none_alive)

    def to_arg(self) -> str:
        return json.dumps(asdict(self), separators=(",", ":"))

    @classmethod
    def from_arg(cls, text: str) -> JobJail:
        data = json.loads(text)
        return cls(directory=str(data["directory"]), uid=data.get("uid"), gid=data.get("gid"),
                   limits={**DEFAULT_LIMITS, **(data.get("limits") or {})})


@dataclass(frozen=True)
class Support:
    """What the jail can do here."""

    landlock_abi: int
    seccomp: bool
    seccomp_error: str
    may_change_uid: bool

    @property
    def isolated(self) -> bool:
        return self.landlock_abi >= ISOLATING_ABI and self.seccomp

    @property
    def missing(self) -> list[str]:
        """Each protection this host lacks, in words (empty when fully isolated)."""
        found = []
        if self.landlock_abi < 1:
            found.append("Landlock (Linux 5.13+, enabled in the LSM list): files are not confined")
        elif self.landlock_abi < 4:
            found.append(f"Landlock ABI {self.landlock_abi} < 4 (Linux 6.7+): TCP is not confined "
                         "by Landlock (seccomp still refuses non-Unix sockets)")
        if 1 <= self.landlock_abi < ISOLATING_ABI:
            found.append(f"Landlock ABI {self.landlock_abi} < 6 (Linux 6.12+): signals and "
                         "abstract Unix sockets are not scoped to the job")
        if not self.seccomp:
            found.append(f"seccomp through libseccomp: {self.seccomp_error}")
        if not self.may_change_uid:
            found.append("a uid per job (needs root or CAP_SETUID): jobs share this process's uid")
        return found

    def describe(self) -> str:
        head = "isolated" if self.isolated else "NOT isolated"
        detail = "; ".join(self.missing) or "every protection available"
        return f"job jail: {head} (Landlock ABI {self.landlock_abi}): {detail}"


# -- what the host offers -------------------------------------------------------------------

def landlock_abi() -> int:
    """The kernel's Landlock ABI version; 0 where it has none (or it is disabled)."""
    version = _libc.syscall(SYS_LANDLOCK_CREATE_RULESET, None, ctypes.c_size_t(0),
                            ctypes.c_uint32(LANDLOCK_CREATE_RULESET_VERSION))
    return max(int(version), 0)


def may_change_uid() -> bool:
    """Root, or CAP_SETUID and CAP_SETGID effective (the docker entry keeps them)."""
    if os.geteuid() == 0:
        return True
    effective = _status_field(b"CapEff:")
    return bool(effective is not None and effective & (1 << 6) and effective & (1 << 7))


@lru_cache(maxsize=1)
def support() -> Support:
    try:
        seccomp_program()
        seccomp_ok, why = True, ""
    except Exception as exc:  # noqa: BLE001 -- no libseccomp, no binding: say which
        seccomp_ok, why = False, f"{type(exc).__name__}: {exc}"
    return Support(landlock_abi(), seccomp_ok, why, may_change_uid())


def enabled() -> bool:
    """GRADER_JAIL: auto (default) is on where the host isolates; 1 always; 0 never."""
    setting = os.environ.get("GRADER_JAIL", "auto").strip().lower()
    if setting in ("0", "off", "false", "no"):
        return False
    if setting in ("1", "on", "true", "yes", "required"):
        return True
    return support().isolated


def prepare() -> None:
    """Once per process, before forking: the seccomp program and the read-only paths."""
    if support().seccomp:
        seccomp_program()
    read_paths()
    packages_to_move()


# -- the parent's side ----------------------------------------------------------------------

def jobs_root() -> Path:
    """Where job directories live: GRADER_JAIL_ROOT, else <tmp>/learnai-jobs-<euid> (0711)."""
    root = Path(os.environ.get("GRADER_JAIL_ROOT") or
                Path(tempfile.gettempdir()) / f"learnai-jobs-{os.geteuid()}")
    root.mkdir(mode=0o711, parents=True, exist_ok=True)
    info = root.lstat()
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.geteuid():
        raise JailError("directory", f"{root} is not a directory of ours")
    os.chmod(root, 0o711)  # noqa: S103 -- a job reaches its own folder by name, never lists others
    return root


def uid_range() -> tuple[int, int]:
    text = os.environ.get("GRADER_JAIL_UIDS", "")
    start, _, end = text.partition("-")
    if start.strip().isdigit() and end.strip().isdigit() and int(start) < int(end):
        return int(start), int(end)
    return DEFAULT_UIDS


def new_job(base: Path | None = None, limits: dict[str, float] | None = None) -> JobJail:
    """A fresh jail for one job: a uid no live job of this process has, a fresh directory name."""
    directory = (base or jobs_root()) / f"job-{secrets.token_hex(8)}"
    uid = None
    if may_change_uid():
        start, end = uid_range()
        with _uids_lock:
            while True:
                uid = start + secrets.randbelow(end - start + 1)
                if uid not in _uids_in_use:
                    _uids_in_use.add(uid)
                    break
    return JobJail(str(directory), uid, uid, {**DEFAULT_LIMITS, **(limits or {})})


_uids_in_use: set[int] = set()
_uids_lock = threading.Lock()


@dataclass
class Ended:
    """What end() found and removed (the attack suite reads it)."""

    killed: int = 0  # with a uid: the rounds of kill(-1) it took (0: nothing was left)
    files_removed: int = 0
    problems: list[str] = field(default_factory=list)


def end(job: JobJail, descendants_of: int | None = None, reap: bool = False, *,
        none_alive: bool = False) -> Ended:
    """After the job, whatever happened: nothing of it outlives it, nothing of it is left.

    With a uid of its own, every process of that uid is killed (kill(-1) as that uid, until none
    is left: a double fork or a new session escapes no uid), then its directory and the files of
    its uid in /dev/shm, /tmp and /var/tmp are removed. Without (the uid is shared), the
    descendants of `descendants_of` (the harness, a subreaper: orphans come back to it) are.
    `reap`: we are that subreaper (the harness), so the killed orphans are ours to reap; never
    in a process with children of its own to wait for (a pool's: subprocess would lose them).
    `none_alive`: the caller saw every process that could be the job's and none was left (a slot
    container's supervisor, alone in its PID namespace but for its init): nothing to kill.
    """
    ended = Ended()
    if none_alive:
        pass  # (the kill below forks a child of a process that imported torch: 3-4 ms a job)
    elif reap and descendants_of == os.getpid() and not _children_left():
        pass  # a subreaper without a child: no process of the job is left anywhere (fast path)
    elif job.uid is not None:
        ended.killed = _kill_uid(job.uid, job.gid if job.gid is not None else job.uid, reap)
    elif descendants_of is not None:
        ended.killed = kill_descendants(descendants_of)
    directory = Path(job.directory)
    if directory.exists() or directory.is_symlink():
        try:
            if directory.is_symlink() or not directory.is_dir():
                directory.unlink()
            else:
                shutil.rmtree(directory)
        except OSError as exc:
            ended.problems.append(f"{directory}: {exc}")
    if job.uid is not None:
        ended.files_removed = sweep(job.uid)
        with _uids_lock:
            _uids_in_use.discard(job.uid)
    return ended


def release(job: JobJail) -> None:
    """This process is done with the job and its folder is gone (ended elsewhere): free its uid."""
    if job.uid is not None:
        with _uids_lock:
            _uids_in_use.discard(job.uid)


def _kill_uid(uid: int, gid: int, reap: bool = False) -> int:
    """Fork a child that becomes `uid` and kill(-1)s until no other process of the uid is left.

    kill(-1) answers 0 even when it could signal nobody, so "none left" is asked of the kernel's
    per-uid process count instead: with RLIMIT_NPROC at 2, a fork succeeds only while the killer
    is the uid's one process (zombies count until reaped, so it waits for their reaping too).
    """
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover -- the child's count comes back through the pipe
        rounds = -1
        try:
            os.setgroups([])
            os.setresgid(gid, gid, gid)
            os.setresuid(uid, uid, uid)
            # From a non-root uid (the docker entry's `grader`) a uid change keeps the capabilities:
            # with CAP_KILL left, kill(-1) would end every process of the container.
            capset_to_zero()
            resource.setrlimit(resource.RLIMIT_NPROC, (2, 2))
            for rounds in range(KILL_ROUNDS):  # noqa: B007 -- the count is the answer
                os.kill(-1, signal.SIGKILL)  # every process of this uid but us
                try:
                    probe = os.fork()
                except BlockingIOError:
                    time.sleep(0.002)  # some are still dying, or not yet reaped
                    continue
                if probe == 0:
                    os._exit(0)
                os.waitpid(probe, 0)
                break
            os.write(write_end, str(rounds).encode())
        finally:
            os._exit(0)
    os.close(write_end)
    reaped = False
    with os.fdopen(read_end, "rb") as handle:
        while not select.select([handle], [], [], 0.005)[0]:
            # Killed processes that are our children stay zombies, counted against the uid,
            # until we reap them: a harness's (a subreaper's) orphans, or a runner whose harness
            # died when we are PID 1 (a container without an init).
            if reap:
                reaped = _reap_children(pid) or reaped
            else:
                _reap_zombies_of(uid)
        reply = handle.read()
    if not reaped:
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, 0)
    rounds = int(reply or -1)
    if rounds < 0 or rounds >= KILL_ROUNDS - 1:
        raise JailError("end", f"processes of uid {uid} outlived {KILL_ROUNDS} rounds of SIGKILL")
    return rounds


def _reap_zombies_of(uid: int) -> None:
    """Reap our children that are zombies of `uid`, and no other (a pool's own subprocesses
    must keep their exit status for their Popen)."""
    try:
        tasks = os.listdir("/proc/self/task")
    except OSError:
        return
    for task in tasks:
        try:
            children = Path(f"/proc/self/task/{task}/children").read_text().split()
        except OSError:
            continue
        for child in children:
            try:
                status = Path(f"/proc/{child}/status").read_text()
            except OSError:
                continue
            fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
            if fields.get("State", "").strip().startswith("Z") and \
                    fields.get("Uid", "").split()[:1] == [str(uid)]:
                with contextlib.suppress(ChildProcessError, OSError):
                    os.waitpid(int(child), os.WNOHANG)


def _children_left() -> bool:
    """Reap what has ended; whether any child (a runner's orphan comes back to us) still runs."""
    while True:
        try:
            pid, _status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return False
        if pid == 0:
            return True


def _reap_children(killer: int) -> bool:
    """Reap every child that has ended; whether the killer was among them."""
    found = False
    while True:
        try:
            pid, _status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return found
        if pid == 0:
            return found
        found = found or pid == killer


def kill_descendants(root: int) -> int:
    """SIGKILL every process below `root` (found through /proc's parent links), until none."""
    killed = 0
    for _ in range(100):
        below = _descendants(root)
        if not below:
            return killed
        for pid in below:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
                killed += 1
        for pid in below:  # reap ours (a subreaper's orphans are its children)
            with contextlib.suppress(ChildProcessError, OSError):
                os.waitpid(pid, os.WNOHANG)
    return killed


def _descendants(root: int) -> list[int]:
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", "rb") as handle:
                    fields = handle.read().rsplit(b")", 1)[1].split()
                parents[int(entry)] = int(fields[1])
            except (OSError, IndexError, ValueError):
                continue
    found, frontier = [], {root}
    while frontier:
        children = {pid for pid, parent in parents.items() if parent in frontier}
        found.extend(children)
        frontier = children
    return found


def sweep(uid: int) -> int:
    """Remove what `uid` left in the shared temporary places (the jail's own directory aside)."""
    removed = 0
    for path, info in entries(SWEPT):
        if info.st_uid != uid:
            continue
        with contextlib.suppress(OSError):
            if stat.S_ISDIR(info.st_mode):
                shutil.rmtree(path)
            else:
                os.unlink(path)
            removed += 1
    return removed


def harden_harness(parent_pid: int | None) -> None:
    """The harness's own layers: it reads the tests, so it keeps its uid; it must not be read.

    Not dumpable (no process of its uid, nor the runner, reads its memory or /proc/PID/mem),
    no new privileges, and a subreaper: a runner's orphans come back to it. With `parent_pid`
    it also dies with that parent; the kernel ties PDEATHSIG to the parent's *thread* that
    forked, so only a single-threaded parent (the zygote) or a thread that waits for us may
    ask for it (a pool's refill thread ends long before its sandbox does).
    """
    if parent_pid is not None:
        _prctl_checked("pdeathsig", PR_SET_PDEATHSIG, signal.SIGKILL)
        if os.getppid() != parent_pid:
            raise JailError("pdeathsig", "the parent ended before the harness could follow it")
    _prctl_checked("dumpable", PR_SET_DUMPABLE, 0)
    _prctl_checked("no_new_privs", PR_SET_NO_NEW_PRIVS, 1)
    _prctl_checked("subreaper", PR_SET_CHILD_SUBREAPER, 1)


# -- the child's side -----------------------------------------------------------------------

def enter(job: JobJail, parent_pid: int) -> None:
    """Every step, in order; JailError names the first that failed."""
    _step("session", _own_session)
    _step("pdeathsig", _die_with_parent, parent_pid)
    _step("dumpable", _not_dumpable)
    _step("no_new_privs", _no_new_privs)
    _step("directory", _make_directory, job)
    # Opened with the parent's rights, before the uid changes: a rule's path, or an interpreter
    # under a folder other users may not search (pyenv under /root, 0700), stays reachable.
    ruleset = _step("landlock", _ruleset, job)
    try:
        _step("reach", _reach_unsearchable, job)
        _step("identity", _become, job)
        _step("home", _go_home, job)
        _step("landlock", _restrict, ruleset)
    finally:
        os.close(ruleset)
    _step("seccomp", _seccomp)
    _step("rlimits", _rlimits, job)


def _step(name: str, action, *args):  # noqa: ANN001, ANN202 -- a step, its arguments, its result
    try:
        return action(*args)
    except JailError:
        raise
    except BaseException as exc:  # noqa: BLE001 -- any failure refuses the job
        raise JailError(name, f"{type(exc).__name__}: {exc}") from None


def _own_session() -> None:
    if os.getsid(0) != os.getpid():
        os.setsid()
    if os.getsid(0) != os.getpid() or os.getpgrp() != os.getpid():
        raise OSError("not the leader of a session of its own")


def _die_with_parent(parent_pid: int) -> None:
    _prctl_checked("pdeathsig", PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent_pid:  # it died before the call: nobody would kill us
        raise OSError(f"parent {parent_pid} is gone")


def _not_dumpable() -> None:
    _prctl_checked("dumpable", PR_SET_DUMPABLE, 0)
    if _libc.prctl(PR_GET_DUMPABLE, 0, 0, 0, 0) != 0:
        raise OSError("still dumpable")


def _no_new_privs() -> None:
    _prctl_checked("no_new_privs", PR_SET_NO_NEW_PRIVS, 1)
    if _libc.prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) != 1:
        raise OSError("no_new_privs not set")


def _make_directory(job: JobJail) -> None:
    path = job.directory
    os.mkdir(path, 0o700)  # fails if anything (a planted link) is already there
    # Before the chown: once the folder is the job's, only CAP_FOWNER could change its mode (the
    # docker entry keeps CHOWN but not FOWNER).
    os.chmod(path, 0o700)
    if job.uid is not None:
        os.chown(path, job.uid, job.gid if job.gid is not None else job.uid, follow_symlinks=False)
    info = os.lstat(path)
    owner = job.uid if job.uid is not None else os.geteuid()
    if not stat.S_ISDIR(info.st_mode) or stat.S_IMODE(info.st_mode) != 0o700 or info.st_uid != owner:
        raise OSError(f"{path} is not a 0700 directory of uid {owner}")


def _become(job: JobJail) -> None:
    if job.uid is not None:
        gid = job.gid if job.gid is not None else job.uid
        for cap in range(_last_cap() + 1):  # the bounding set, while we still may (CAP_SETPCAP)
            _libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0)
        os.setgroups([])
        os.setresgid(gid, gid, gid)
        os.setresuid(job.uid, job.uid, job.uid)
    _libc.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
    capset_to_zero()
    left = 0
    for name in (b"CapEff:", b"CapPrm:", b"CapInh:", b"CapAmb:"):
        left |= _status_field(name) or 0
    if left:
        raise OSError(f"capabilities left: {left:#x}")
    if job.uid is not None and (os.getresuid() != (job.uid,) * 3 or os.getgroups()
                                or os.getresgid() != ((job.gid if job.gid is not None else job.uid),) * 3):
        raise OSError("the uid, gid or groups did not change")
    if os.geteuid() == 0:
        raise OSError("still root")


def _go_home(job: JobJail) -> None:
    # What it creates is its own alone (0600, 0700), /dev/shm included: another job's uid
    # cannot open it even by a name it guessed.
    os.umask(0o077)
    os.chdir(job.directory)
    for name in ("HOME", "TMPDIR", "TMP", "TEMP"):
        os.environ[name] = job.directory
    tempfile.tempdir = None  # computed again from TMPDIR when next asked
    if os.path.realpath(os.getcwd()) != os.path.realpath(job.directory):
        raise OSError("the working directory is not the job's")


class _RulesetAttr(ctypes.Structure):
    _fields_ = [("handled_access_fs", ctypes.c_uint64), ("handled_access_net", ctypes.c_uint64),
                ("scoped", ctypes.c_uint64)]


class _PathBeneath(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


def _ruleset(job: JobJail) -> int:
    """A Landlock ruleset for this job (not yet in force): its fd."""
    abi = landlock_abi()
    if abi < 1:
        raise OSError("this kernel has no Landlock")
    handled = FS_BY_ABI[min(abi, 5)]
    attr = _RulesetAttr(handled, (NET_BIND_TCP | NET_CONNECT_TCP) if abi >= 4 else 0,
                        (SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL) if abi >= 6 else 0)
    size = 8 if abi < 4 else 16 if abi < 6 else 24
    ruleset = _libc.syscall(SYS_LANDLOCK_CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(size),
                            ctypes.c_uint32(0))
    if ruleset < 0:
        raise OSError(ctypes.get_errno(), "landlock_create_ruleset")
    try:
        for path, rights in _rules(job):
            _allow(ruleset, path, rights & handled)
    except BaseException:
        os.close(ruleset)
        raise
    return int(ruleset)


def _restrict(ruleset: int) -> None:
    if _libc.syscall(SYS_LANDLOCK_RESTRICT_SELF, ctypes.c_int(ruleset), ctypes.c_uint32(0)) != 0:
        raise OSError(ctypes.get_errno(), "landlock_restrict_self")
    try:  # the check: what no rule names is out of reach now
        os.listdir("/")
    except PermissionError:
        return
    raise OSError("'/' can still be listed")


def _reach_unsearchable(job: JobJail) -> None:
    """Import paths the job's uid could not reach by name are reached through an open fd.

    A folder opened here (with the parent's rights) and kept open is reachable as
    /proc/self/fd/N whatever its ancestors' modes: a magic link skips the path walk, and Landlock
    still decides on the files themselves (they are beneath a read rule). It matters where the
    interpreter lies under a folder other users may not search (pyenv under /root, 0700):
    sys.path and the __path__ of every package already imported are rewritten to it.
    """
    if job.uid is None:
        return
    moved: dict[str, str] = {}
    for path in _unsearchable_reads():
            fd = os.open(path, os.O_PATH | os.O_DIRECTORY)
            number = fcntl.fcntl(fd, fcntl.F_DUPFD, REACH_FD_BASE + len(moved))
            os.close(fd)
            moved[path.rstrip("/") + "/"] = f"/proc/self/fd/{number}/"
    if not moved:
        return
    prefixes = sorted(moved, key=len, reverse=True)  # the deepest folder that holds an entry

    def reachable(entry: str) -> str:
        for prefix in prefixes:
            if (entry + "/").startswith(prefix):
                return moved[prefix] + entry[len(prefix):]
        return entry

    sys.path[:] = [reachable(entry) if isinstance(entry, str) else entry for entry in sys.path]
    for name in packages_to_move():  # found in the parent: a walk here would copy every page
        paths = sys.modules[name].__dict__.get("__path__")
        if isinstance(paths, list):
            paths[:] = [reachable(entry) for entry in paths]
    sys.path_importer_cache.clear()


def packages_to_move() -> tuple[str, ...]:
    """Packages imported so far whose __path__ lies under an unsearchable read folder.

    Worked out in the parent (prepare(), and again by the harness before it forks a runner,
    when more has been imported since): in the forked child, walking every module would write
    to every module's page (reference counts), tens of milliseconds of copy on write.
    """
    global _moved_packages
    count = len(sys.modules)
    if _moved_packages[0] != count:
        roots = tuple(path.rstrip("/") + "/" for path in _unsearchable_reads())
        found = []
        if roots:
            for name, module in list(sys.modules.items()):
                # The module's own dict: getattr would wake a lazy module's __getattr__.
                paths = getattr(module, "__dict__", {}).get("__path__")
                if isinstance(paths, list) and any(isinstance(entry, str) and (entry + "/").startswith(roots)
                                                   for entry in paths):
                    found.append(name)
        _moved_packages = (count, tuple(found))
    return _moved_packages[1]


_moved_packages: tuple[int, tuple[str, ...]] = (-1, ())


@lru_cache(maxsize=1)
def _unsearchable_reads() -> tuple[str, ...]:
    """The read folders another uid could not reach by name (computed once, by prepare())."""
    return tuple(path for path in read_paths()
                 if os.path.isdir(path) and not _searchable_by_others(path))


def _searchable_by_others(path: str) -> bool:
    """Whether every folder from / down to `path` lets any user through (o+x)."""
    current = Path(os.path.realpath(path))
    for folder in [current, *current.parents]:
        try:
            if not os.stat(folder).st_mode & stat.S_IXOTH:
                return False
        except OSError:
            return False
    return True


def _rules(job: JobJail) -> list[tuple[str, int]]:
    rules = [(path, READ) for path in read_paths()]
    rules += [(path, DEVICE) for path in DEVICES]
    rules += [(f"/dev/{name}", DEVICE) for name in _gpu_devices()]
    rules.append(("/dev/shm", SHM))  # noqa: S108 -- create and open by name, never list
    rules.append((f"/proc/{os.getpid()}", READ))  # its own /proc/self, not its children's
    rules.append((job.directory, FS_BY_ABI[5]))
    return rules


def _allow(ruleset: int, path: str, rights: int) -> None:
    try:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except FileNotFoundError:
        return  # not on this host: nothing to allow
    try:
        if not stat.S_ISDIR(os.fstat(fd).st_mode):
            rights &= FILE_RIGHTS
        rule = _PathBeneath(rights, fd)
        if _libc.syscall(SYS_LANDLOCK_ADD_RULE, ctypes.c_int(ruleset),
                         ctypes.c_int(LANDLOCK_RULE_PATH_BENEATH), ctypes.byref(rule),
                         ctypes.c_uint32(0)) != 0:
            raise OSError(ctypes.get_errno(), f"landlock_add_rule {path}")
    finally:
        os.close(fd)


def _gpu_devices() -> list[str]:
    try:
        return sorted(name for name in os.listdir("/dev") if name.startswith("nvidia"))
    except OSError:
        return []


@lru_cache(maxsize=1)
def read_paths() -> tuple[str, ...]:
    """Read and execute: the interpreter's tree, its libraries, the grader package; no exercise.

    A sys.path entry that holds the project's exercises (the repository root of a development
    checkout) is replaced by the grader package alone: its tests and reference solutions stay
    out of reach. GPU hosts add /proc/driver and /sys, which the CUDA driver reads.
    """
    import grader

    package = Path(grader.__file__).resolve().parent
    # Nothing in or over these: the exercises (tests, references) and the jobs' folders.
    forbidden = [package.parent / "exercises", *_configured_exercise_roots(), jobs_root()]
    # Nothing over these (other jobs' leftovers lie in them), but a tree beneath one stays
    # readable: a checkout or venv under /tmp (CI's fresh clone) is where the interpreter's
    # libraries are, and no job can write there (Landlock gives a job its own folder only).
    shared = [Path(os.path.realpath(place)) for place in SWEPT]
    found: list[str] = []
    candidates = [sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix,
                  *sys.path, str(package), *SYSTEM_READS]
    if _gpu_devices():
        candidates += ["/proc/driver", "/sys"]
    for item in candidates:
        if not item or not os.path.isabs(item) or not os.path.exists(item):
            continue
        path = Path(os.path.realpath(item))
        if (any(_within(secret, path) or _within(path, secret) for secret in forbidden)
                or any(_within(place, path) for place in shared)):
            continue  # holds an exercise folder (only the grader package is added), a job's, or /tmp
        if str(path) not in found:
            found.append(str(path))
    return tuple(found)


def _configured_exercise_roots() -> list[Path]:
    roots = os.environ.get("GRADER_EXERCISES_DIR", "")
    return [Path(os.path.realpath(item)) for item in roots.split(os.pathsep) if item]


def _within(inner: Path, outer: Path) -> bool:
    """Whether `inner` is `outer` or beneath it."""
    try:
        Path(os.path.realpath(inner)).relative_to(outer)
    except ValueError:
        return False
    return True


@lru_cache(maxsize=1)
def seccomp_program() -> bytes:
    """The filter as BPF, built once per process with libseccomp (pyseccomp binds it by ctypes)."""
    import pyseccomp as seccomp

    refuse = seccomp.ERRNO(errno.EPERM)
    rules = seccomp.SyscallFilter(defaction=seccomp.ALLOW)
    for name in DENIED_SYSCALLS:
        try:
            rules.add_rule(refuse, name)
        except (OSError, ValueError, RuntimeError):
            continue  # not a syscall of this architecture
    for name in ("socket", "socketpair"):
        rules.add_rule(refuse, name, seccomp.Arg(0, seccomp.NE, AF_UNIX))
    for flag in CLONE_NAMESPACES:
        rules.add_rule(refuse, "clone", seccomp.Arg(0, seccomp.MASKED_EQ, flag, flag))
    # clone3 passes its flags in memory a filter cannot read: "not implemented" makes glibc use clone.
    rules.add_rule(seccomp.ERRNO(errno.ENOSYS), "clone3")
    with tempfile.TemporaryFile() as handle:
        rules.export_bpf(handle)
        handle.seek(0)
        program = handle.read()
    if not program or len(program) % 8:
        raise RuntimeError("libseccomp exported no filter")
    return program


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def _seccomp() -> None:
    program = seccomp_program()
    buffer = ctypes.create_string_buffer(program, len(program))
    fprog = _SockFprog(len(program) // 8, ctypes.cast(buffer, ctypes.c_void_p))
    if _libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(fprog), 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_SECCOMP)")
    if _libc.prctl(PR_GET_SECCOMP, 0, 0, 0, 0) != SECCOMP_MODE_FILTER:
        raise OSError("the filter is not in force")


def _rlimits(job: JobJail) -> None:
    limits = job.limits
    memory = int(limits["memory_mb"]) * 1024 * 1024
    wanted = {resource.RLIMIT_CORE: 0, resource.RLIMIT_NOFILE: int(limits["open_files"]),
              resource.RLIMIT_FSIZE: int(limits["file_mb"]) * 1024 * 1024,
              resource.RLIMIT_CPU: int(limits["cpu_s"])}
    which = resource.RLIMIT_DATA if os.environ.get("GRADER_MEMORY_RLIMIT") == "data" else resource.RLIMIT_AS
    wanted[which] = memory
    if job.uid is not None:  # counted per uid: only a uid of its own makes it the job's count
        wanted[resource.RLIMIT_NPROC] = int(limits["processes"])
    for kind, value in wanted.items():
        soft, hard = resource.getrlimit(kind)
        value = value if hard == resource.RLIM_INFINITY else min(value, hard)
        resource.setrlimit(kind, (value, value))
        if resource.getrlimit(kind) != (value, value):
            raise OSError(f"rlimit {kind} not set")


# -- small helpers --------------------------------------------------------------------------

def _prctl_checked(step: str, option: int, value: int) -> None:
    if _libc.prctl(option, value, 0, 0, 0) != 0:
        raise JailError(step, os.strerror(ctypes.get_errno()))


def _status_field(name: bytes) -> int | None:
    with open("/proc/self/status", "rb") as handle:  # bytes: no codec import as another uid
        for line in handle:
            if line.startswith(name):
                return int(line.split()[1], 16)
    return None


@lru_cache(maxsize=1)
def _last_cap() -> int:
    try:
        return int(Path("/proc/sys/kernel/cap_last_cap").read_text())
    except (OSError, ValueError):
        return 40
