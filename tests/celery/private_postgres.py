"""A private PostgreSQL cluster for fault tests: initdb in a temporary folder, its own port, stopped at will.

Never the system's server (others use it): this one lives and dies with the test.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import subprocess
import tempfile
from pathlib import Path

from tests.celery.celery_stack import free_port, wait_until


def binaries() -> Path | None:
    """The newest installed PostgreSQL's bin folder (Debian: /usr/lib/postgresql/N/bin)."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(p.split("/")[4]))
    return Path(found[-1]).parent if found else None


class PrivatePostgres:
    """initdb, start, stop (fast: every connection dropped, as in an outage), start again."""

    def __init__(self) -> None:
        self.bin = binaries()
        assert self.bin is not None
        self.port = free_port()
        # PostgreSQL refuses to run as root: as root, the cluster belongs to the postgres user,
        # in a folder of its own outside pytest's root-only tmp folders.
        self.user = "postgres" if os.geteuid() == 0 else None
        self.dir = Path(tempfile.mkdtemp(prefix="laip-pg-"))
        if self.user:
            entry = pwd.getpwnam(self.user)
            os.chown(self.dir, entry.pw_uid, entry.pw_gid)
        self.data = self.dir / "data"
        self.url = f"postgresql+psycopg://laip@127.0.0.1:{self.port}/laip"

    def _run(self, *argv: str) -> None:
        prefix = ["runuser", "-u", self.user, "--"] if self.user else []
        subprocess.run([*prefix, *argv], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                       timeout=120)

    def create(self) -> None:
        self._run(str(self.bin / "initdb"), "-D", str(self.data), "-U", "laip", "--auth=trust",
                  "--no-sync", "-E", "UTF8")
        self.start()
        self._run(str(self.bin / "createdb"), "-h", "127.0.0.1", "-p", str(self.port), "-U", "laip", "laip")

    def start(self) -> None:
        options = f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1 -c fsync=off"
        self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-o", options, "-l",
                  str(self.dir / "server.log"), "-w", "-t", "60", "start")
        wait_until(self.answers, 30, "PostgreSQL to answer")

    def answers(self) -> bool:
        done = subprocess.run([str(self.bin / "pg_isready"), "-h", "127.0.0.1", "-p", str(self.port)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return done.returncode == 0

    def stop(self) -> None:
        self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "fast", "-w", "stop")

    def destroy(self) -> None:
        if self.data.exists() and self.answers():
            self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "-w", "stop")
        shutil.rmtree(self.dir, ignore_errors=True)
