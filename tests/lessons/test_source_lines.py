"""Line finding for feedback: nested defs by dotted path, calls inside one function."""

from __future__ import annotations

from grader.source_lines import call_line, call_lines, def_line

SOURCE = '''\
import torch


class WindowDataset:
    def __len__(self):
        return 3

    def __getitem__(self, i):
        return i


def train(model, optimizer, loss):
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    step()


def other():
    optimizer.step()
'''


def test_def_line_by_dotted_path():
    assert def_line(SOURCE, "WindowDataset") == 4
    assert def_line(SOURCE, "WindowDataset.__getitem__") == 8
    assert def_line(SOURCE, "train") == 12
    assert def_line(SOURCE, "WindowDataset.missing") is None
    assert def_line(SOURCE, "nothing.here") is None


def test_calls_are_found_only_inside_the_function():
    assert call_lines(SOURCE, "train", "step") == [15, 16]
    assert call_line(SOURCE, "train", "backward") == 14
    assert call_line(SOURCE, "other", "backward", default=19) == 19
    assert call_line(SOURCE, "absent", "step") is None


def test_broken_source_finds_nothing():
    assert def_line("def broken(:\n", "broken") is None
    assert call_lines("def broken(:\n", "broken", "x") == []
