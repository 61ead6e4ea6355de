"""grader.scenarios.measure.step_clock: what the grader's clock saw of the learner's timed steps."""

from __future__ import annotations

from grader.scenarios.measure import step_clock


def trace(*marks: tuple[str, float]) -> list[tuple[str, float, None]]:
    return [(what, at, None) for what, at in marks]


def test_each_timed_step_is_bracketed_by_its_own_work_and_the_gap_around_it() -> None:
    # One warm-up step, then two timed steps of 1 s of work each, 0.5 s of clock reading around.
    seen = step_clock(trace(("forward", 0.0), ("step", 1.0),
                            ("sync", 1.2), ("forward", 1.5), ("step", 2.5), ("sync", 2.6),
                            ("forward", 3.0), ("step", 4.0), ("sync", 4.1)),
                      called=-0.5, returned=4.5, steps=2, on_cuda=False)
    assert seen is not None
    assert seen["inner"] == [1.0, 1.0]
    assert seen["outer"] == [2.0, 2.0]  # end of the step before to the next forward (or the return)
    assert (seen["inner_median"], seen["outer_median"]) == (1.0, 2.0)
    assert (seen["synced_start"], seen["synced_stop"]) == (2, 2)
    assert seen["reset_before_timing"] is False


def test_synchronisations_and_the_peak_reset_are_placed_by_what_ran() -> None:
    # No synchronize before the first timed step's clock start, none after the last step.
    seen = step_clock(trace(("forward", 0.0), ("step", 1.0), ("reset", 1.1),
                            ("forward", 1.5), ("step", 2.5), ("sync", 2.6),
                            ("forward", 3.0), ("step", 4.0)),
                      called=0.0, returned=4.5, steps=2, on_cuda=False)
    assert seen is not None
    assert (seen["synced_start"], seen["synced_stop"]) == (1, 1)
    assert seen["reset_before_timing"] is True


def test_forwards_and_steps_that_do_not_pair_up_give_nothing() -> None:
    assert step_clock(trace(("forward", 0.0), ("forward", 0.5), ("step", 1.0), ("step", 1.5)),
                      called=0.0, returned=2.0, steps=2, on_cuda=False) is None
    assert step_clock(trace(("forward", 0.0), ("step", 1.0)), called=0.0, returned=2.0,
                      steps=2, on_cuda=False) is None


def test_with_the_learners_clock_reads_the_synchronisation_must_come_before_them() -> None:
    # Step 2 stops its clock before synchronising (the read at 4.05 comes before the sync at 4.1):
    # on a GPU that times the queueing, not the work. Step 1 synchronises before each read.
    marks = trace(("forward", 0.0), ("step", 1.0), ("sync", 1.1), ("clock", 1.2),
                  ("forward", 1.5), ("step", 2.5), ("sync", 2.6), ("clock", 2.7), ("clock", 2.8),
                  ("forward", 3.0), ("step", 4.0), ("clock", 4.05), ("sync", 4.1))
    seen = step_clock(marks, called=0.0, returned=4.5, steps=2, on_cuda=False)
    assert seen is not None
    assert (seen["synced_start"], seen["synced_stop"]) == (2, 1)
    # Without the clock reads (too many to keep), only the order of steps and syncs is read.
    lost = step_clock(marks, called=0.0, returned=4.5, steps=2, on_cuda=False, clocks=False)
    assert lost is not None and (lost["synced_start"], lost["synced_stop"]) == (2, 2)
    assert step_clock(marks, called=0.0, returned=4.5, steps=2, on_cuda=False, complete=False) is None
