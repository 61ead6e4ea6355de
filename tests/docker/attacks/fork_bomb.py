# expect-status: error
# expect-error-kind: timeout
"""Fork bomb at import: every process forks forever; pids_limit and RLIMIT_NPROC hold it."""
import os

while True:
    try:
        os.fork()
    except OSError:
        pass
