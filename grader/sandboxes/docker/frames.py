"""Messages between a worker and its slot container's supervisor: length-prefixed frames on stdin/stdout.

A slot container (slot_entry.py) is talked to over its attach stream, nothing else: no `docker
exec`, no bind mount, no archive copy per job. The worker writes frames to the container's
stdin; the container writes frames to its stdout, which Docker multiplexes with stderr on the
attach socket (8-byte headers: stream, 0, 0, 0, big-endian length). A frame is a 4-byte
big-endian length and that many bytes: JSON for messages, a tar for a job's files.
"""

from __future__ import annotations

import json
import os
import select
import socket
import struct
import time
from typing import Any

LENGTH = struct.Struct(">I")
MESSAGE_BYTES = 2 * 1024 * 1024  # a message (JSON): a results document is at most 1 MiB
FILES_BYTES = 32 * 1024 * 1024  # a job's files (the exercise folder and the submission, as a tar)
STDOUT, STDERR = 1, 2
STDERR_TAIL_BYTES = 8192


def frame(data: bytes) -> bytes:
    return LENGTH.pack(len(data)) + data


def message(doc: dict[str, Any]) -> bytes:
    return frame(json.dumps(doc, ensure_ascii=False).encode("utf-8"))


# -- the container's side: plain file descriptors ---------------------------------------------
def write_message(fd: int, doc: dict[str, Any]) -> None:
    data = memoryview(message(doc))
    while data:
        written = os.write(fd, data)
        data = data[written:]


def _read_exactly(fd: int, size: int, deadline: float | None) -> bytes | None:
    """`size` bytes from fd, or None at EOF or when the deadline passes first."""
    data = bytearray()
    while len(data) < size:
        if deadline is not None:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not select.select([fd], [], [], remaining)[0]:
                return None
        chunk = os.read(fd, min(size - len(data), 1 << 20))
        if not chunk:
            return None
        data += chunk
    return bytes(data)


def read_frame(fd: int, cap: int, *, deadline: float | None = None) -> bytes | None:
    """The next frame on fd (None at EOF or past the deadline); ValueError when it is over cap."""
    header = _read_exactly(fd, LENGTH.size, deadline)
    if header is None:
        return None
    (size,) = LENGTH.unpack(header)
    if size > cap:
        raise ValueError(f"a frame of {size} bytes, over {cap}")
    return _read_exactly(fd, size, None)  # the rest of a frame follows its header at once


# -- the worker's side: Docker's attach socket ------------------------------------------------
class StreamEnded(Exception):
    """The container's output ended (it exited, or was killed)."""


class AttachStream:
    """The container's stdin and its multiplexed stdout/stderr, over one attach socket."""

    def __init__(self, sock: Any):
        # docker-py hands back a SocketIO over the real socket: read and write the socket itself.
        self.sock: socket.socket = getattr(sock, "_sock", sock)
        self._raw = bytearray()  # Docker's frames, not yet split
        self._stdout = bytearray()  # our frames, not yet read
        self.stderr_tail = bytearray()

    def send(self, data: bytes) -> None:
        self.sock.settimeout(30)
        self.sock.sendall(data)

    def read_message(self, deadline: float, cap: int = MESSAGE_BYTES) -> dict[str, Any]:
        """The next JSON message; TimeoutError past the deadline, StreamEnded when the container ended."""
        while True:
            if len(self._stdout) >= LENGTH.size:
                (size,) = LENGTH.unpack_from(self._stdout)
                if size > cap:
                    raise StreamEnded(f"a message of {size} bytes, over {cap}")
                if len(self._stdout) >= LENGTH.size + size:
                    data = bytes(self._stdout[LENGTH.size:LENGTH.size + size])
                    del self._stdout[:LENGTH.size + size]
                    return json.loads(data)
            self._pump(deadline)

    def _pump(self, deadline: float) -> None:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise TimeoutError("no message from the slot container in time")
        self.sock.settimeout(remaining)
        try:
            chunk = self.sock.recv(1 << 20)
        except TimeoutError:
            raise
        except OSError as exc:
            raise StreamEnded(f"attach stream failed: {exc}") from exc
        if not chunk:
            raise StreamEnded("the slot container's output ended")
        self._raw += chunk
        while len(self._raw) >= 8:
            stream, size = self._raw[0], struct.unpack_from(">I", self._raw, 4)[0]
            if len(self._raw) < 8 + size:
                break
            payload = self._raw[8:8 + size]
            del self._raw[:8 + size]
            if stream == STDOUT:
                self._stdout += payload
            else:
                self.stderr_tail = (self.stderr_tail + payload)[-STDERR_TAIL_BYTES:]

    def close(self) -> None:
        try:
            self.sock.close()
        except OSError:
            pass
