"""What talking to a slot container costs: its attach stream against the archive copies of a per-job container.

    .venv/bin/python -m bench.slot_transport [-n 20]

One slot container (grader.sandboxes.docker.slot), amp-train-one-epoch's files:
  - slot job: a trivial Run (`pass`) sent over the attach stream, one after another: from
    sending its order and files to its document (less the run's own duration inside), and
    from the document to the supervisor's report of what the job left;
  - archive: what a per-job container's job pays instead for the same files: one put_archive
    of the job's tar and one get_archive of a results-sized file, on the same container.
Prints the medians, in milliseconds, and the worker's CPU per job for each.
"""

from __future__ import annotations

import argparse
import io
import resource
import statistics
import tarfile
import time
from pathlib import Path

from grader.loader import load_exercise
from grader.sandboxes.base import Job
from grader.sandboxes.docker.contract import GRADING_DIR, job_files
from grader.sandboxes.docker.engine import engine
from grader.sandboxes.docker.slot import SlotMember
from grader.schema import Limits

ROOT = Path(__file__).resolve().parents[1]


def cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=20)
    options = parser.parse_args()
    exercise = load_exercise(ROOT / "exercises" / "amp-train-one-epoch")
    member = SlotMember(engine().client, Limits())
    try:
        member.wait_ready()
        member.busy()
        stream, stream_cpu, report = [], [], []
        for _ in range(options.n):
            began, cpu_began = time.perf_counter(), cpu()
            outcome = member.run(Job(exercise=exercise, code="pass\n"), "run", 60)
            stream.append(member.timing["document_s"] - outcome.document["duration_s"])
            report.append(member.timing["report_s"] - member.timing["document_s"])
            stream_cpu.append(cpu() - cpu_began)
            assert member.clean, outcome
        files = job_files(exercise.path, "pass\n")
        result = io.BytesIO()
        with tarfile.open(fileobj=result, mode="w") as tar:
            info = tarfile.TarInfo("results.json")
            info.size = 2048
            tar.addfile(info, io.BytesIO(b" " * 2048))
        member.container.put_archive(GRADING_DIR, result.getvalue())
        archive, archive_cpu = [], []
        for index in range(options.n):
            began, cpu_began = time.perf_counter(), cpu()
            member.container.put_archive(GRADING_DIR, _renamed(files, f"bench-{index}"))
            stream_out, _ = member.container.get_archive(f"{GRADING_DIR}/results.json")
            b"".join(stream_out)
            archive.append(time.perf_counter() - began)
            archive_cpu.append(cpu() - cpu_began)
        ms = {name: statistics.median(values) * 1000 for name, values in
              (("stream", stream), ("report", report), ("stream_cpu", stream_cpu), ("archive", archive),
               ("archive_cpu", archive_cpu))}
        print(f"slot job: to its document {ms['stream']:.1f} ms beyond the run itself (order and files in, the "
              f"job process's unpacking, loading and reply), then {ms['report']:.1f} ms to the leftovers report; "
              f"worker CPU {ms['stream_cpu']:.1f} ms a job | per-job container's archive copies alone: "
              f"{ms['archive']:.1f} ms (worker CPU {ms['archive_cpu']:.1f} ms) | {options.n} jobs each")
    finally:
        member.discard()
    return 0


def _renamed(files: bytes, top: str) -> bytes:
    """The same tar under a folder of its own (put_archive will not overwrite a 0700 folder twice)."""
    out = io.BytesIO()
    with tarfile.open(fileobj=io.BytesIO(files)) as source, tarfile.open(fileobj=out, mode="w") as tar:
        folder = tarfile.TarInfo(top)
        folder.type, folder.mode = tarfile.DIRTYPE, 0o700
        tar.addfile(folder)
        for member in source:
            member.name = f"{top}/{member.name}"
            tar.addfile(member, source.extractfile(member) if member.isreg() else None)
    return out.getvalue()


if __name__ == "__main__":
    raise SystemExit(main())
