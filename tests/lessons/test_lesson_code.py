"""Every runnable code block of every lesson runs on torch 2.13 and prints what the lesson shows.

Blocks tagged `python fragment` are pieces of a larger loop and are only compiled. Blocks
tagged `python standalone` are whole programs (the DDP and FSDP sketches) and run alone as one
process. The other blocks of a lesson run in order as one script, as a reader pasting them would.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys

import pytest

from tests.lessons.lesson_blocks import Block, blocks, lesson_names


def _run(code: str, cwd, env: dict[str, str] | None = None) -> str:
    script = cwd / "lesson_script.py"
    script.write_text(code, encoding="utf-8")
    full_env = {**os.environ, "PYTHONWARNINGS": "ignore", **(env or {})}
    done = subprocess.run([sys.executable, str(script)], cwd=cwd, env=full_env,
                          capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def _normal(text: str) -> str:
    return " ".join(text.split())


def _check_output(block: Block, stdout: str) -> None:
    """Each `# ` line at the end of a block must appear in what the lesson script printed."""
    printed = _normal(stdout)
    for line in block.expected_output():
        assert _normal(line) in printed, f"block {block.index}: {line!r} was not printed"


@pytest.mark.parametrize("lang", ["en", "ja"])
@pytest.mark.parametrize("lesson", lesson_names())
def test_every_block_compiles(lesson, lang):
    for block in blocks(lesson, lang):
        compile(block.code, f"{lesson}/{lang}.md block {block.index}", "exec")


@pytest.mark.parametrize("lesson", lesson_names())
def test_english_and_japanese_blocks_run_the_same_code(lesson):
    """The translations differ in comments and strings only: same blocks, same tags, same calls."""
    en, ja = blocks(lesson, "en"), blocks(lesson, "ja")
    assert [b.tags for b in en] == [b.tags for b in ja]
    for b_en, b_ja in zip(en, ja, strict=True):
        assert _code_lines(b_en) == _code_lines(b_ja), f"block {b_en.index} differs"


def _code_lines(block: Block) -> list[str]:
    """Statements without comments or string contents: what must not differ between languages."""
    kept = []
    for line in block.code.splitlines():
        code = line.split("#", 1)[0].rstrip()
        if code and not code.lstrip().startswith(('"', "'", "f\"", "f'")):
            kept.append(code.split('"', 1)[0].split("'", 1)[0])
    return kept


@pytest.mark.slow
@pytest.mark.parametrize("lesson", lesson_names())
def test_lesson_blocks_run_and_print_what_the_lesson_shows(lesson, tmp_path):
    runnable = [b for b in blocks(lesson) if not b.tags & {"fragment", "standalone"}]
    marker = "\n# ---- next block ----\nprint('@@block@@', flush=True)\n"
    stdout = _run(marker.join(b.code for b in runnable), tmp_path)
    parts = stdout.split("@@block@@\n")
    assert len(parts) == len(runnable)
    for block, printed in zip(runnable, parts, strict=True):
        _check_output(block, printed)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.slow
def test_standalone_blocks_run_as_one_process(tmp_path):
    """The DDP and FSDP sketches run as a world of one: the env vars init_process_group reads."""
    ran = 0
    for lesson in lesson_names():
        for block in blocks(lesson):
            if "standalone" in block.tags:
                env = {"RANK": "0", "WORLD_SIZE": "1", "MASTER_ADDR": "127.0.0.1",
                       "MASTER_PORT": str(_free_port())}
                stdout = _run(block.code, tmp_path, env)
                _check_output(block, stdout)        # the block's own `# ` lines, if it shows any
                if "dist.all_reduce" in block.code:
                    assert "rank 0: all_reduce sum = 1.0" in stdout
                ran += 1
    assert ran >= 2
