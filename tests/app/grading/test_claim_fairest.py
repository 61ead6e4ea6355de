"""A worker's token is never spent on nothing while a job waits (app.grading.fairness.claim_fairest)."""

from __future__ import annotations

from app.grading.fairness import claim_fairest


def test_a_stale_order_is_read_again_when_others_took_every_job_in_it() -> None:
    # The race that lost a Run on a busy host: this worker read the order when only "a" was
    # queued; another worker took "a"; "b" arrived meanwhile with its own token already spent.
    snapshots = iter([["a"], ["b"]])
    taken = {"a"}
    assert claim_fairest(lambda: next(snapshots), lambda job: None if job in taken else f"claim-{job}") \
        == ("b", "claim-b")


def test_nothing_queued_or_everything_taken_ends_without_a_claim() -> None:
    assert claim_fairest(lambda: [], lambda job: job) is None
    reads = []
    assert claim_fairest(lambda: reads.append(1) or ["a"], lambda job: None, rounds=3) is None
    assert len(reads) == 3  # bounded: a job others keep winning is not chased for ever
