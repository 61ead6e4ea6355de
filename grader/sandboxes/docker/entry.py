"""Container entry point: drop from root to `grader`, keeping only what the uid switch needs."""

# The container starts as root with a capability bounding set of {CHOWN, SETUID, SETGID, KILL}
# (cap_drop ALL, then four added back) and no-new-privileges. This module then:
#   1. becomes `grader` (uid and gid, no supplementary groups) with PR_SET_KEEPCAPS, so
#      the three capabilities survive the switch in the permitted set;
#   2. raises them into the effective set and nowhere else: inheritable and ambient
#      stay empty, so any program the harness executes starts with no capability;
#   3. runs the warm entry (grader/sandboxes/warm_entry.py; a per-job container) or a slot
#      container's supervisor (slot_entry.py) in this same process (an exec would lose them).
# The harness then forks the learner runner (grader/runner_fork.py): the child uses
# SETUID/SETGID to become the job's own learner uid and then clears every capability set
# itself (a fork, unlike an exec, would keep them), checking that none is left before the
# submission is read; KILL lets the harness end a runner that belongs to another uid. The learner
# can neither signal nor ptrace the harness (another uid) nor gain anything by exec
# (no-new-privileges; no setuid files matter).
from __future__ import annotations

import ctypes
import os
import pwd
import runpy
import sys

from grader.sandboxes.contract import WARM_ENTRY
from grader.sandboxes.docker.contract import ENTRY, HARNESS_USER, SLOT_ARG, SLOT_ENTRY, WARM_ARG

CAP_CHOWN, CAP_KILL, CAP_SETGID, CAP_SETUID = 0, 5, 6, 7
# CHOWN: the job jail hands its folder to the job's uid before the runner becomes it (jail.py).
KEPT = (1 << CAP_CHOWN) | (1 << CAP_KILL) | (1 << CAP_SETGID) | (1 << CAP_SETUID)
PR_SET_KEEPCAPS = 8
PR_SET_DUMPABLE = 4
PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL = 47, 4
LINUX_CAPABILITY_VERSION_3 = 0x20080522


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32),
                ("inheritable", ctypes.c_uint32)]


_libc = ctypes.CDLL(None, use_errno=True)


def _check(result: int, what: str) -> None:
    if result != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")


def _set_caps(effective: int, permitted: int) -> None:
    header = _CapHeader(LINUX_CAPABILITY_VERSION_3, 0)
    data = (_CapData * 2)(_CapData(effective, permitted, 0), _CapData(0, 0, 0))
    _check(_libc.capset(ctypes.byref(header), data), "capset")


def become_harness_user(name: str = HARNESS_USER) -> None:
    """Switch this root process to `name`, keeping SETUID, SETGID and KILL as effective only."""
    user = pwd.getpwnam(name)
    os.setgroups([])
    _check(_libc.prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0), "prctl(KEEPCAPS)")
    os.setresgid(user.pw_gid, user.pw_gid, user.pw_gid)
    os.setresuid(user.pw_uid, user.pw_uid, user.pw_uid)
    _set_caps(KEPT, KEPT)
    _check(_libc.prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0), "prctl(KEEPCAPS off)")
    # Never hand a capability to an exec'd program, even one a kernel default would.
    _libc.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
    # Not dumpable: its /proc files stay root-owned, out of the learner's reach.
    _libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    os.environ.update(HOME=user.pw_dir, USER=name, LOGNAME=name)
    os.umask(0o077)


def main(argv: list[str]) -> None:
    if os.getuid() != 0:
        sys.exit(f"{ENTRY}: must start as root (it drops to {HARNESS_USER!r} itself)")
    modules = {WARM_ARG: WARM_ENTRY, SLOT_ARG: SLOT_ENTRY}
    if argv[:1] not in ([WARM_ARG], [SLOT_ARG]):
        sys.exit(f"usage: python -m {ENTRY} {WARM_ARG}|{SLOT_ARG} [entry options]")
    become_harness_user()
    sys.argv = [modules[argv[0]], *argv[1:]]
    runpy.run_module(modules[argv[0]], run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main(sys.argv[1:])
