"""Data-only messages between the harness and the learner runner: framed JSON, tensors as safetensors."""

from __future__ import annotations

import base64
import json
import math
import os
import struct
from typing import Any

HEADER = struct.Struct(">I")
MAX_FRAME_BYTES = 64 * 1024 * 1024  # a frame larger than this is a broken or hostile runner
TENSOR_KEY = "__tensor__"
FLOAT_KEY = "__float__"  # NaN and infinities, which plain JSON cannot carry


class ProtocolError(Exception):
    """The other side sent something that is not a well-formed message."""


def encode(value: Any) -> Any:
    """Turn a result into JSON-ready data; tensors become safetensors bytes, nothing is pickled."""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else {FLOAT_KEY: repr(value)}
    if isinstance(value, (list, tuple)):
        return [encode(item) for item in value]
    if isinstance(value, dict):
        if not all(isinstance(key, str) for key in value):
            raise TypeError("dictionary keys must be strings")
        return {key: encode(item) for key, item in value.items()}
    torch = _torch_if_loaded()
    if torch is not None and isinstance(value, torch.Tensor):
        from safetensors.torch import save

        blob = save({"t": value.detach().cpu().contiguous()})
        return {TENSOR_KEY: base64.b64encode(blob).decode("ascii")}
    if torch is not None and isinstance(value, (torch.dtype, torch.device)):
        return str(value)
    if hasattr(value, "item") and callable(value.item):  # numpy scalars
        return encode(value.item())
    raise TypeError(f"a value of type {type(value).__name__} cannot be sent back to the grader")


def decode(data: Any) -> Any:
    """The inverse of encode."""
    if isinstance(data, list):
        return [decode(item) for item in data]
    if isinstance(data, dict):
        if set(data) == {TENSOR_KEY}:
            from safetensors.torch import load

            return load(base64.b64decode(data[TENSOR_KEY]))["t"]
        if set(data) == {FLOAT_KEY}:
            return float(data[FLOAT_KEY])
        return {key: decode(item) for key, item in data.items()}
    return data


def _torch_if_loaded() -> Any:
    import sys

    return sys.modules.get("torch")


_writing = 0  # frames being written now: a signal handler must not start one inside another


def writing() -> bool:
    """Whether a frame is half written (the runner's time-out report waits for it to finish)."""
    return _writing > 0


def write_message(fd: int, message: dict[str, Any]) -> None:
    global _writing
    payload = json.dumps(message, allow_nan=False).encode("utf-8")
    data = HEADER.pack(len(payload)) + payload
    view = memoryview(data)
    _writing += 1
    try:
        while view:
            written = os.write(fd, view)
            view = view[written:]
    finally:
        _writing -= 1


RUNNING_KEY = "running"  # the runner's unasked report of the learner's line near the time limit


def running_report(message: dict[str, Any], line_count: int) -> int | None:
    """The line of a runner's report, if the message is one and the line is a line of the
    submission; None otherwise. The runner is untrusted: anything else is not a report."""
    if set(message) != {RUNNING_KEY} or not isinstance(message[RUNNING_KEY], dict):
        return None
    line = message[RUNNING_KEY].get("line")
    if type(line) is not int or not 1 <= line <= line_count:  # bool and floats are not lines
        return None
    return line


def is_running_report(message: dict[str, Any]) -> bool:
    return set(message) == {RUNNING_KEY}


def _read_exact(fd: int, size: int) -> bytes:
    chunks = []
    while size:
        chunk = os.read(fd, min(size, 1 << 20))
        if not chunk:
            raise EOFError("the other side closed the channel")
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)


def read_message(fd: int) -> dict[str, Any]:
    (size,) = HEADER.unpack(_read_exact(fd, HEADER.size))
    if size > MAX_FRAME_BYTES:
        raise ProtocolError(f"message of {size} bytes is over the {MAX_FRAME_BYTES} byte limit")
    try:
        message = json.loads(_read_exact(fd, size))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ProtocolError(f"malformed message: {exc}") from exc
    if not isinstance(message, dict):
        raise ProtocolError("a message must be a JSON object")
    return message
