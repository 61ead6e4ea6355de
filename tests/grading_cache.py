"""Gradings the suite asks for more than once (validate, then parity), done once per test run.

Each grading also records the CPU seconds it took (the harness and every process under it),
which does not grow with the host's load the way wall-clock time does.

A result is keyed by everything that decides it: the sandbox, the language, the code, every
file of the exercise folder and every source file of the grader. With LEARNAI_GRADING_CACHE
naming a folder (`make test` makes a fresh one per run and removes it after), results are
shared between pytest processes (xdist workers, the docker group); a file lock per key
makes the second asker wait for the first grading rather than repeat it. Without it, the
cache lives in this process only. Platform faults ("internal") are never kept.
"""

from __future__ import annotations

import copy
import fcntl
import hashlib
import json
import os
import resource
import threading
from functools import cache
from pathlib import Path
from typing import Any

from grader.loader import Exercise

GRADER = Path(__file__).resolve().parents[1] / "grader"
ENV = "LEARNAI_GRADING_CACHE"


def _folder_digest(root: Path, suffixes: tuple[str, ...] | None = None) -> bytes:
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        if not path.is_file() or "__pycache__" in path.parts:
            continue
        if suffixes and path.suffix not in suffixes:
            continue
        digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.digest()


@cache
def _grader_digest() -> bytes:
    return _folder_digest(GRADER, (".py", ".toml", ".json", ".txt"))


def grading_key(exercise: Exercise, code: str, lang: str, sandbox: str) -> str:
    digest = hashlib.sha256()
    for part in (sandbox, lang, code):
        digest.update(part.encode("utf-8") + b"\0")
    digest.update(_folder_digest(exercise.path))
    digest.update(_grader_digest())
    return digest.hexdigest()


class GradingCache:
    """grade() gives the same document grade_code would, graded at most once per key."""

    def __init__(self, folder: Path | None = None) -> None:
        self.folder = folder
        if folder is not None:
            folder.mkdir(parents=True, exist_ok=True)
        self.memory: dict[str, dict[str, Any]] = {}
        self.lock = threading.Lock()
        self.graded = 0  # gradings actually run here (the rest were reused)

    @classmethod
    def from_env(cls) -> GradingCache:
        folder = os.environ.get(ENV)
        return cls(Path(folder) if folder else None)

    def grade(self, exercise: Exercise, code: str, *, lang: str = "en",
              sandbox: str = "local", background: bool = False) -> dict[str, Any]:
        # The background lane (grader.sandboxes.lane) changes priority and order, never a verdict.
        return copy.deepcopy(self._entry(exercise, code, lang, sandbox)["doc"])

    def cpu_seconds(self, exercise: Exercise, code: str, *, lang: str = "en",
                    sandbox: str = "local") -> float:
        """CPU time of the grading (user + system, every process under the harness)."""
        return float(self._entry(exercise, code, lang, sandbox)["cpu_s"])

    def _entry(self, exercise: Exercise, code: str, lang: str, sandbox: str) -> dict[str, Any]:
        if sandbox != "local":  # a docker verdict is what parity tests compare: never reused
            raise ValueError("only local gradings are cached")
        key = grading_key(exercise, code, lang, sandbox)
        with self.lock:  # one grading at a time here, so the CPU count is this grading's
            if key in self.memory:
                return self.memory[key]
            entry = self._shared(key, lambda: self._run(exercise, code, lang, sandbox))
            if entry["doc"].get("error_kind") != "internal":
                self.memory[key] = entry
            return entry

    def _run(self, exercise: Exercise, code: str, lang: str, sandbox: str) -> dict[str, Any]:
        from grader.api import grade_code

        self.graded += 1
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        doc = grade_code(exercise, code, lang=lang, sandbox=sandbox)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        return {"doc": doc, "cpu_s": round(cpu, 3)}

    def _shared(self, key: str, run: Any) -> dict[str, Any]:
        if self.folder is None:
            return run()
        stored = self.folder / f"{key}.json"
        with open(self.folder / f"{key}.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # another process grading this key: wait for it
            if stored.is_file():
                return json.loads(stored.read_text(encoding="utf-8"))
            entry = run()
            if entry["doc"].get("error_kind") != "internal":
                partial = stored.with_suffix(f".{os.getpid()}.tmp")
                partial.write_text(json.dumps(entry), encoding="utf-8")
                partial.replace(stored)
            return entry
