"""The data-only channel: values and tensors round-trip; nothing executable crosses it."""

from __future__ import annotations

import math
import os
import struct

import pytest
import torch

from grader import protocol


def test_values_and_tensors_round_trip() -> None:
    value = {"a": [1, 2.5, "x", None, True], "t": torch.arange(6, dtype=torch.bfloat16).reshape(2, 3),
             "nan": float("nan"), "inf": float("-inf")}
    fd_read, fd_write = os.pipe()
    protocol.write_message(fd_write, {"value": protocol.encode(value)})
    back = protocol.decode(protocol.read_message(fd_read)["value"])
    assert back["a"] == [1, 2.5, "x", None, True]
    assert back["t"].dtype == torch.bfloat16 and torch.equal(back["t"], value["t"])
    assert math.isnan(back["nan"]) and back["inf"] == float("-inf")


def test_objects_are_refused_not_pickled() -> None:
    with pytest.raises(TypeError, match="cannot be sent"):
        protocol.encode(object())
    with pytest.raises(TypeError, match="keys must be strings"):
        protocol.encode({1: "x"})


def test_oversized_and_malformed_frames_are_rejected() -> None:
    fd_read, fd_write = os.pipe()
    os.write(fd_write, struct.pack(">I", protocol.MAX_FRAME_BYTES + 1))
    with pytest.raises(protocol.ProtocolError, match="over the"):
        protocol.read_message(fd_read)
    fd_read, fd_write = os.pipe()
    os.write(fd_write, struct.pack(">I", 3) + b"[1]")
    with pytest.raises(protocol.ProtocolError, match="JSON object"):
        protocol.read_message(fd_read)
    os.close(fd_write)
    with pytest.raises(EOFError):
        protocol.read_message(fd_read)
