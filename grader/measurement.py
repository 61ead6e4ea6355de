"""Where a measuring exercise measured, and its spread: the results document's "measurement".

The machine (device, CPU model and flags, bf16 support, threads, torch version) and, per width
and precision, the grader's own timings (min / median / max) next to the learner's figure. The
timings and the learner's figures come from a process that ran learner code: every value is
bounded here on the way in (take) and again when a document is read from outside.
"""

from __future__ import annotations

import math
import platform
import re
from pathlib import Path
from typing import Any

PRECISIONS = ("float32", "bfloat16", "float16")
# CPU features that decide how fast bfloat16 autocast can be: native bf16 dot products (AMX,
# AVX-512 BF16) against emulation on AVX2 / AVX-512.
CPU_FLAGS = ("avx2", "avx512f", "avx512_bf16", "avx512_fp16", "amx_tile", "amx_bf16", "amx_fp16")
BF16_FLAGS = frozenset({"avx512_bf16", "amx_bf16"})
MAX_ROWS, MAX_TEXT, MAX_MS, MAX_MB = 16, 120, 1e7, 1e7
_TOKEN = re.compile(r"[A-Za-z0-9_.+\-]{1,40}")

_pending: list[dict[str, Any]] = []


def cpu_description() -> dict[str, Any]:
    """This machine's CPU: model name, the flags above that it has, and torch's SIMD level."""
    model, flags = platform.processor() or platform.machine(), set()
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace").splitlines():
            key, _, value = line.partition(":")
            if key.strip() == "model name" and model in ("", platform.machine(), platform.processor()):
                model = value.strip()
            elif key.strip() == "flags" and not flags:
                flags = set(value.split())
    except OSError:
        pass  # not Linux: the model name from platform is all there is
    try:
        import torch

        capability = str(torch.backends.cpu.get_cpu_capability())
        version = str(torch.__version__)
    except (ImportError, AttributeError):
        capability, version = "unknown", "unknown"
    found = [flag for flag in CPU_FLAGS if flag in flags]
    return {"cpu_model": model or "unknown", "cpu_capability": capability, "cpu_flags": found,
            "cpu_bf16_native": bool(BF16_FLAGS & set(found)), "torch": version}


def add(document: dict[str, Any]) -> None:
    """Keep one measurement for this grading's results (the last one added wins)."""
    _pending[:] = [document]


def take() -> dict[str, Any] | None:
    """The kept measurement, validated (None if none or not valid), and an empty store after.

    A measurement that fails validation is dropped: a table must never cost the learner a verdict.
    """
    kept = _pending[:1]
    _pending.clear()
    if not kept:
        return None
    try:
        return validate_measurement(kept[0])
    except (ValueError, TypeError, AttributeError):
        return None


def _text(value: Any, field: str) -> str:
    if not isinstance(value, str):
        raise ValueError(f"measurement.{field} must be a string")
    return value[:MAX_TEXT]


def _whole(value: Any, field: str, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= high:
        raise ValueError(f"measurement.{field} must be a whole number from 1 to {high}")
    return value


def _amount(value: Any, field: str, high: float, *, optional: bool = False) -> float | None:
    if value is None and optional:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"measurement.{field} must be a number")
    try:
        number = float(value)
    except OverflowError:
        raise ValueError(f"measurement.{field} must be finite") from None
    if not (math.isfinite(number) and 0 <= number <= high):
        raise ValueError(f"measurement.{field} must be between 0 and {high:g}")
    return number


def _row(row: Any) -> dict[str, Any]:
    if not isinstance(row, dict) or row.get("precision") not in PRECISIONS:
        raise ValueError("measurement.rows[] must name a precision of " + ", ".join(PRECISIONS))
    clean: dict[str, Any] = {"width": _whole(row.get("width"), "rows[].width", 10**6),
                             "precision": row["precision"],
                             "repeats": _whole(row.get("repeats"), "rows[].repeats", 1000)}
    for key in ("min_ms", "median_ms", "max_ms"):
        clean[key] = _amount(row.get(key), f"rows[].{key}", MAX_MS)
    if not clean["min_ms"] <= clean["median_ms"] <= clean["max_ms"]:
        raise ValueError("measurement.rows[] must have min_ms <= median_ms <= max_ms")
    clean["learner_ms"] = _amount(row.get("learner_ms"), "rows[].learner_ms", MAX_MS, optional=True)
    clean["peak_mb"] = _amount(row.get("peak_mb"), "rows[].peak_mb", MAX_MB, optional=True)
    return clean


def validate_measurement(doc: Any) -> dict[str, Any]:
    """The "measurement" field of a results document, bounded; ValueError names what is wrong."""
    if not isinstance(doc, dict) or doc.get("device") not in ("cpu", "cuda"):
        raise ValueError("measurement.device must be 'cpu' or 'cuda'")
    flags = doc.get("cpu_flags", [])
    if not isinstance(flags, list) or len(flags) > len(CPU_FLAGS) or any(f not in CPU_FLAGS for f in flags):
        raise ValueError("measurement.cpu_flags must list known CPU flags")
    rows = doc.get("rows")
    if not isinstance(rows, list) or len(rows) > MAX_ROWS:
        raise ValueError(f"measurement.rows must be a list of at most {MAX_ROWS} rows")
    capability = _text(doc.get("cpu_capability"), "cpu_capability")
    version = _text(doc.get("torch"), "torch")
    if not _TOKEN.fullmatch(capability) or not _TOKEN.fullmatch(version):
        raise ValueError("measurement.cpu_capability and .torch must be short words")
    return {"device": doc["device"], "device_name": _text(doc.get("device_name"), "device_name"),
            "cpu_model": _text(doc.get("cpu_model"), "cpu_model"), "cpu_capability": capability,
            "cpu_flags": list(flags), "bf16_native": doc.get("bf16_native") is True,
            "threads": _whole(doc.get("threads"), "threads", 4096), "torch": version,
            "batch_size": _whole(doc.get("batch_size"), "batch_size", 10**6),
            "rows": [_row(row) for row in rows]}
