# what: Finds the other runner in /proc; reads its environment and memory, signals it, ptrace-attaches.
import ctypes
import os
import signal
import time

time.sleep(0.5)
libc = ctypes.CDLL(None, use_errno=True)
escaped = []
victims = []
try:
    for pid in os.listdir("/proc"):
        if pid.isdigit() and int(pid) != os.getpid():
            try:
                with open(f"/proc/{pid}/comm") as handle:
                    if handle.read().strip() == "xjob-victim":
                        victims.append(int(pid))
            except OSError:
                pass
except OSError as exc:
    print("HELD /proc listing", exc.errno)
# Without /proc: every pid near ours (jobs are forked close together).
candidates = victims or [pid for pid in range(max(2, os.getpid() - 400), os.getpid() + 400)
                         if pid not in (os.getpid(), os.getppid())]
for pid in candidates:
    try:
        with open(f"/proc/{pid}/environ", "rb") as handle:
            if b"learnai-secret" in handle.read():
                escaped.append(f"environ {pid}")
    except OSError:
        pass
    try:
        with open(f"/proc/{pid}/maps") as handle:
            maps = handle.read().splitlines()
        with open(f"/proc/{pid}/mem", "rb") as memory:
            for line in maps:
                if "[heap]" in line:
                    start, end = (int(x, 16) for x in line.split()[0].split("-"))
                    memory.seek(start)
                    if b"learnai-secret" in memory.read(min(end - start, 64 << 20)):
                        escaped.append(f"mem {pid}")
    except (OSError, ValueError, OverflowError):
        pass
for pid in victims:
    try:
        os.kill(pid, signal.SIGCONT)  # harmless, and allowed only where SIGKILL would be
        escaped.append(f"signal {pid}")
    except OSError:
        pass
    if libc.ptrace(16, pid, 0, 0) == 0:  # PTRACE_ATTACH
        escaped.append(f"ptrace {pid}")
        os.waitpid(pid, 0)
        libc.ptrace(17, pid, 0, 0)  # PTRACE_DETACH
if not victims:
    for pid in candidates:
        try:
            os.kill(pid, 0)
            escaped.append(f"signal reaches {pid}")
            break
        except OSError:
            pass
print("ESCAPED", escaped) if escaped else print("HELD processes")
