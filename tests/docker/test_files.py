"""Files in and out of job containers: owners and modes on purpose, capped reads, no links."""

from __future__ import annotations

import io
import json
import tarfile
import uuid
from pathlib import Path
from typing import Any

import pytest

from grader.results import validate_document
from grader.sandboxes.docker.contract import (
    GRADER_UID,
    JOB_FILE,
    ResultsUnreadable,
    container_order,
    job_archive,
    parse_results_tar,
    read_results,
)
from grader.sandboxes.docker.image import image_name

# A document as the harness writes it, every field present (validate_document fills defaults,
# so a read is compared with the whole document, not a sketch of one).
DOC = validate_document({"version": 1, "exercise": "x", "status": "fail", "score": 0.5, "error_kind": None,
                         "tests": [{"status": "pass", "points": 1, "given": False},
                                   {"status": "fail", "given": True}]})


def tar_of(member: tarfile.TarInfo, data: bytes = b"") -> io.BytesIO:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        member.size = len(data) if member.isreg() else 0
        tar.addfile(member, io.BytesIO(data) if member.isreg() else None)
    buffer.seek(0)
    return buffer


def test_archive_hides_the_exercise_from_the_learner(tmp_path: Path) -> None:
    exercise = tmp_path / "demo-ex"
    (exercise / "tests").mkdir(parents=True)
    (exercise / "tests" / "test_a.py").write_text("def test(): pass\n")
    (exercise / "solution.py").write_text("ANSWER = 42\n")
    (exercise / "__pycache__").mkdir()
    (exercise / "__pycache__" / "x.pyc").write_bytes(b"junk")
    (exercise / "link.py").symlink_to("/etc/passwd")
    order = container_order(exercise, "ja", "run")
    with tarfile.open(fileobj=io.BytesIO(job_archive(exercise, "print('hi')\n", order))) as tar:
        listed = tar.getmembers()
        members = {m.name: m for m in listed}
        submission = tar.extractfile("submission.py").read()  # type: ignore[union-attr]
        written = json.loads(tar.extractfile("job.json").read())  # type: ignore[union-attr]
    assert submission == b"print('hi')\n"
    assert "exercises/demo-ex/link.py" not in members  # links are never copied
    assert not any("__pycache__" in name for name in members)
    for name in ("exercises", "exercises/demo-ex", "exercises/demo-ex/tests", "out"):
        assert members[name].isdir() and members[name].mode == 0o700, name
    for name in ("exercises/demo-ex/solution.py", "exercises/demo-ex/tests/test_a.py"):
        assert members[name].mode == 0o600, name
    assert members["submission.py"].mode == 0o644
    # The order comes last (a warm entry starts when it sees it whole) and says where the rest is.
    assert listed[-1].name == "job.json" and JOB_FILE.endswith("/job.json") and listed[-1].mode == 0o600
    assert written == order == {"exercise": "/grading/exercises/demo-ex", "submission": "/grading/submission.py",
                                "results": "/grading/out/results.json", "lang": "ja", "mode": "run"}
    assert {(m.uid, m.gid) for m in members.values()} == {(GRADER_UID, GRADER_UID)}


def test_a_valid_document_is_read() -> None:
    data = json.dumps(DOC).encode()
    assert parse_results_tar(tar_of(tarfile.TarInfo("results.json"), data)) == DOC


@pytest.mark.parametrize("kind", [tarfile.SYMTYPE, tarfile.LNKTYPE, tarfile.DIRTYPE,
                                  tarfile.FIFOTYPE])
def test_anything_but_a_regular_file_is_refused(kind: bytes) -> None:
    member = tarfile.TarInfo("results.json")
    member.type = kind
    member.linkname = "/etc/shadow"
    with pytest.raises(ResultsUnreadable):
        parse_results_tar(tar_of(member))


@pytest.mark.parametrize("data", [b"{not json", b"\xff\xfe", json.dumps({"version": 2}).encode(),
                                  json.dumps({**DOC, "score": 7}).encode()])
def test_garbage_is_refused(data: bytes) -> None:
    with pytest.raises(ResultsUnreadable):
        parse_results_tar(tar_of(tarfile.TarInfo("results.json"), data))


def test_a_big_file_is_refused_before_it_is_read() -> None:
    data = b" " * 2048 + json.dumps(DOC).encode()
    with pytest.raises(ResultsUnreadable, match="over"):
        parse_results_tar(tar_of(tarfile.TarInfo("results.json"), data), cap=1024)


def _container_with(client: Any, script: str) -> Any:
    """A hardened container of the sandbox image that leaves something at the results path."""
    from docker.types import Mount

    container = client.containers.create(
        image_name(), ["sh", "-c", script], user="10001:10001", network_mode="none",
        read_only=True, mounts=[Mount("/grading", None, type="volume")],
        labels={"learnai.job": f"test-{uuid.uuid4().hex[:8]}", "learnai.deadline": "0"})
    container.start()
    container.wait(timeout=300)  # a shell one-liner: only a stuck engine takes this long
    return container


@pytest.mark.docker
@pytest.mark.parametrize("script, problem", [
    ("mkdir -p /grading/out && ln -s /etc/passwd /grading/out/results.json", "not a regular"),
    ("mkdir -p /grading/out && ln -s /grading /grading/out/results.json", "not a regular"),
    ("mkdir -p /grading/out/results.json", "not a regular"),
    ("mkdir -p /grading/out && head -c 10485760 /dev/zero > /grading/out/results.json", "over"),
    ("true", "no results"),
])
def test_the_host_reads_no_link_and_no_flood(client: Any, script: str, problem: str,
                                             no_residue: None) -> None:
    container = _container_with(client, script)
    try:
        with pytest.raises(ResultsUnreadable, match=problem):
            read_results(container, "/grading/out/results.json")
    finally:
        container.remove(force=True, v=True)


@pytest.mark.docker
def test_the_host_reads_a_real_document(client: Any, no_residue: None) -> None:
    text = json.dumps(DOC).replace('"', '\\"')
    container = _container_with(client, f'mkdir -p /grading/out && echo "{text}" > '
                                        "/grading/out/results.json")
    try:
        assert read_results(container, "/grading/out/results.json") == DOC
    finally:
        container.remove(force=True, v=True)
