"""grader.measurement: the machine and the spread in a results document, bounded as untrusted data."""

from __future__ import annotations

import math

import pytest

from grader import measurement
from grader.results import validate_document


def table(**changes) -> dict:
    doc = {"device": "cpu", "device_name": "CPU", "cpu_model": "AMD EPYC", "cpu_capability": "AVX2",
           "cpu_flags": ["avx2"], "bf16_native": False, "threads": 1, "torch": "2.13.0+cpu",
           "batch_size": 128,
           "rows": [{"width": 64, "precision": "float32", "repeats": 9, "min_ms": 0.6, "median_ms": 0.8,
                     "max_ms": 13.1, "learner_ms": 1.7, "peak_mb": None}]}
    doc.update(changes)
    return doc


def test_a_good_table_comes_through_as_it_is() -> None:
    assert measurement.validate_measurement(table()) == table()


@pytest.mark.parametrize("bad", [
    {"device": "tpu"}, {"threads": 0}, {"threads": True}, {"batch_size": 10**9},
    {"cpu_flags": ["<script>"]}, {"torch": "2.1 <b>"}, {"cpu_capability": None},
    {"rows": [{"width": 64, "precision": "float8", "repeats": 1, "min_ms": 1, "median_ms": 1, "max_ms": 1}]},
    {"rows": [{"width": 64, "precision": "float32", "repeats": 1, "min_ms": 2, "median_ms": 1, "max_ms": 3}]},
    {"rows": [{"width": 64, "precision": "float32", "repeats": 1, "min_ms": 1, "median_ms": 1,
               "max_ms": math.inf}]},
    {"rows": [{"width": 64, "precision": "float32", "repeats": 1, "min_ms": 1, "median_ms": 1, "max_ms": 1,
               "learner_ms": -1}]},
    {"rows": [{"width": 64, "precision": "float32", "repeats": 1, "min_ms": 1, "median_ms": 1, "max_ms": 1,
               "peak_mb": 10**40}]},
    {"rows": [table()["rows"][0]] * 17},
], ids=lambda bad: next(iter(bad)))
def test_untrusted_values_are_refused(bad) -> None:
    with pytest.raises(ValueError, match="measurement"):
        measurement.validate_measurement(table(**bad))


def test_texts_are_cut_and_a_bad_table_is_dropped_not_the_grading() -> None:
    long = measurement.validate_measurement(table(cpu_model="x" * 10_000))
    assert len(long["cpu_model"]) == measurement.MAX_TEXT
    measurement.add(table(threads=-1))
    assert measurement.take() is None
    measurement.add(table())
    assert measurement.take() == table() and measurement.take() is None


def test_a_results_document_keeps_a_valid_table_and_drops_a_bad_one_not_the_verdict() -> None:
    doc = {"version": 1, "exercise": "ex", "status": "fail", "score": 0.5, "tests": []}
    assert validate_document(dict(doc, measurement=table()))["measurement"] == table()
    assert validate_document(dict(doc, measurement=table(rows="many")))["measurement"] is None
    assert "measurement" not in validate_document(dict(doc))


def test_this_machine_is_described() -> None:
    found = measurement.cpu_description()
    assert found["cpu_model"] and found["torch"] != "unknown"
    assert set(found["cpu_flags"]) <= set(measurement.CPU_FLAGS)
    assert found["cpu_bf16_native"] == bool(measurement.BF16_FLAGS & set(found["cpu_flags"]))
    measurement.validate_measurement(table(cpu_model=found["cpu_model"], cpu_flags=found["cpu_flags"],
                                           cpu_capability=found["cpu_capability"], torch=found["torch"]))
