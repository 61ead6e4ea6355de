"""A class at work against one server (bench/latency.py --mode class|capacity): learners who think, and a load ramp."""

from __future__ import annotations

import random
import statistics
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from bench.stats import percentile


def summary(values: list[float]) -> str:
    if not values:
        return "no gradings"
    return (f"p50 {statistics.median(values):.2f} s, p90 {percentile(values, 0.9):.2f} s, "
            f"max {max(values):.2f} s")


def run_class(learner_factory: Any, code: str, *, learners: int, think: tuple[float, float],
              duration_s: float, validate: Any, validate_at_s: float, seed: int = 22) -> dict[str, Any]:
    """`learners` threads: think (uniform in `think`), submit, wait for the result, again.

    The first think is drawn from [0, think max] so the class does not start in step. At
    `validate_at_s`, `validate()` starts an instructor validation (it returns at once; the app
    runs it in its background lane); gradings that start while it runs are counted apart.
    Returns every (start offset, seconds, status) and the validation's window.
    """
    rng = random.Random(seed)  # noqa: S311 -- think times, not secrets
    started = time.monotonic()
    stop_at = started + duration_s
    records: list[tuple[float, float, str]] = []
    lock = threading.Lock()
    window: dict[str, float] = {}

    def learner(index: int, pause: float) -> None:
        person = learner_factory()
        local = random.Random(seed * 1000 + index)  # noqa: S311
        time.sleep(pause)
        while time.monotonic() < stop_at:
            offset = time.monotonic() - started
            seconds, result = person.submit_and_wait(code)
            with lock:
                records.append((offset, seconds, result["status"]))
            time.sleep(local.uniform(*think))

    def instructor() -> None:
        time.sleep(validate_at_s)
        window["start"] = time.monotonic() - started
        window["end"] = validate() - started  # blocks until the validation is done

    pauses = [rng.uniform(0, think[1]) for _ in range(learners)]
    with ThreadPoolExecutor(max_workers=learners + 1) as team:
        futures = [team.submit(learner, i, pauses[i]) for i in range(learners)]
        if validate is not None:
            futures.append(team.submit(instructor))
        for future in futures:
            future.result()
    return {"records": records, "window": window, "elapsed": time.monotonic() - started}


def report_class(label: str, outcome: dict[str, Any], load: float, cpus: int) -> list[str]:
    records = outcome["records"]
    seconds = [s for _, s, _ in records]
    window = outcome["window"]
    during = [s for offset, s, _ in records
              if window and window["start"] <= offset <= window["end"]]
    outside = [s for offset, s, _ in records
               if not window or not window["start"] <= offset <= window["end"]]
    per_minute = len(records) / (outcome["elapsed"] / 60)
    not_passed = sum(1 for _, _, status in records if status != "pass")
    lines = [f"{label}: {len(records)} gradings, {per_minute:.1f}/min | {summary(seconds)} "
             f"| not a pass: {not_passed} (load average {load:.1f} on {cpus} CPUs)"]
    if window:
        lines.append(f"{label}:   during the validation ({window['end'] - window['start']:.0f} s): "
                     f"{summary(during)} | outside it: {summary(outside)}")
    return lines


def run_capacity(learner_factory: Any, code: str, *, rates: list[float], step_s: float,
                 target_p90_s: float, seed: int = 22) -> list[tuple[float, float, float, int]]:
    """Submissions arriving at random (Poisson) at each rate per minute for step_s seconds.

    Each submission comes from a learner of its own (no per-learner limit applies); a step
    is measured until its last result. Stops after the first step whose p90 is over target.
    Returns (offered per minute, achieved per minute, p90, count) per step.
    """
    rng = random.Random(seed)  # noqa: S311 -- think times, not secrets
    steps = []
    for rate in rates:
        results: list[float] = []  # list.append is atomic: no lock needed

        def one(into: list[float] = results) -> None:
            into.append(learner_factory().submit_and_wait(code)[0])

        began = time.monotonic()
        with ThreadPoolExecutor(max_workers=256) as team:
            at = 0.0
            while True:
                at += rng.expovariate(rate / 60)
                if at >= step_s:
                    break
                time.sleep(max(0.0, began + at - time.monotonic()))
                team.submit(one)
        elapsed = time.monotonic() - began
        p90 = percentile(results, 0.9)
        steps.append((rate, len(results) / (elapsed / 60), p90, len(results)))
        if p90 > target_p90_s:
            break
    return steps
