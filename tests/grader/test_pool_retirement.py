"""The pool retires a warm member before its own idle limit ends it, never handing out one that is ending."""

from __future__ import annotations

import time

from grader.sandboxes import pool


class FakeMember:
    """Stands in for a warm sandbox: alive until discarded."""

    def __init__(self) -> None:
        self.discarded = False

    def alive(self) -> bool:
        return not self.discarded

    def discard(self) -> None:
        self.discarded = True


def test_a_member_near_its_idle_limit_is_retired_not_handed_out(monkeypatch):
    monkeypatch.setenv("GRADER_POOL_MAX_IDLE_S", "100")
    members: list[FakeMember] = []

    def spawn() -> FakeMember:
        members.append(FakeMember())
        return members[-1]

    warm = pool.WarmPool("retire-test", spawn, size=1)
    try:
        assert warm.wait_filled(10)
        old = members[0]
        # Ready for 90 s of its 100: it could end itself while a job is handed to it.
        warm._ready_at[id(old)] = time.monotonic() - 90
        taken = warm.take()
        assert taken is not old
        assert warm.replaced == 1
        assert warm.wait_filled(10)
        fresh = warm.take()
        assert fresh is not None and fresh is not old and fresh.alive()
    finally:
        warm.close()
