"""Warm pools: sandboxes started ahead of time, each taken for ONE job, refilled in the background.

A pool belongs to one process. It starts lazily (on the first job, or `grader.api.warm_up`),
a forked child (a Celery prefork worker, say) starts its own instead of sharing its
parent's, and whatever is idle at interpreter exit is discarded (no process or container
is left behind). A member that died while idle is discarded at take time and replaced;
an empty pool answers None and the caller starts a sandbox cold.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections import deque
from collections.abc import Callable, Hashable
from typing import Protocol

from grader import capacity
from grader.sandboxes import resources

log = logging.getLogger(__name__)
DEFAULT_SIZE = 1
SPAWN_BACKOFF_S = 5.0  # after a failed start, before the next try
# A member ends itself after max_idle_s of waiting, counted from its own start; the pool retires
# it well before (at this share of that time since it was ready), so it never hands out a
# sandbox that is ending at that moment (seen in a 30-minute docker run: "no results file").
RETIRE_SHARE = 0.8
# A replacement waits for the job of the member it replaces to end (`release`), or this long:
# started at once, it competes with that job for the CPU (a warm docker grading took 0.42 s
# instead of 0.35 s on 2 cores); a job that runs long does not hold the refill up past this.
REFILL_GRACE_S = 1.5
# The longest a job waits for a starting member it took over (take()): a docker start's own
# limit (grader.sandboxes.docker.warm.READY_TIMEOUT_S). Raised to a grading's weight, the member is no slower
# than a cold container would be; a shorter wait only added a cold start after it (seen at
# load 15: a job waited 60 s, then started cold).
TAKE_OVER_WAIT_S = 180.0


class Member(Protocol):
    """One warm sandbox (a reusing pool's also says whether it may take another job: reusable())."""

    def alive(self) -> bool: ...

    def discard(self) -> None: ...


def pool_size() -> int:
    """GRADER_POOL_SIZE: warm sandboxes each process keeps per pool (0 turns pools off).

    Unset: one per grading thread, as memory allows (grader.capacity.default_pool_size).
    """
    if os.environ.get("GRADER_POOL_SIZE", "").strip() == "":
        return capacity.default_pool_size()
    return capacity.env_int("GRADER_POOL_SIZE", DEFAULT_SIZE)


def max_idle_s() -> float:
    """GRADER_POOL_MAX_IDLE_S: how long a warm sandbox waits before it ends and is replaced."""
    try:
        return max(10.0, float(os.environ.get("GRADER_POOL_MAX_IDLE_S", "900")))
    except ValueError:
        return 900.0


class WarmPool:
    """Keeps `size` members ready; `take` hands one out and a background thread replaces it."""

    def __init__(self, name: str, spawn: Callable[[], Member], size: int, *,
                 hurry: Callable[[], None] | None = None, reuse: bool = False):
        self.name = name
        self.size = size
        # Reusing (docker slots): a member lent out comes back (give_back) unless its job ended
        # abnormally; it still counts towards `size` while out, so no replacement starts for it.
        self.reuse = reuse
        self._out: set[int] = set()  # id(member) of members lent out that may come back
        self._spawn = spawn
        # Given, an empty pool's take() waits for a member already starting (and calls hurry to
        # raise its priority) rather than answer None: see take().
        self._hurry = hurry
        self._idle: deque[Member] = deque()
        self._starting = 0
        self._waiting = 0  # take() calls waiting for a starting member (one member each)
        self._backoff_until = 0.0  # after a failed start, no new start before this
        self._closed = False
        self._changed = threading.Condition()
        self._thread: threading.Thread | None = None
        self.replaced = 0  # members found dead at take time (for tests and operators)
        self._ready_at: dict[int, float] = {}  # id(member) -> when it joined the idle members
        self._lent_at: dict[int, float] = {}  # id(member) -> when it was handed out, until finished

    def start(self) -> bool:
        """Start refilling (once); whether this call started it."""
        with self._changed:
            if self._thread is None and not self._closed and self.size > 0:
                self._thread = threading.Thread(target=self._refill, name=f"pool-{self.name}",
                                                daemon=True)
                self._thread.start()
                return True
            return False

    def take(self, on_wait: Callable[[], None] | None = None) -> Member | None:
        """A live warm member, or None (the pool is empty, off or closed): start one cold.

        With a hurry hook (docker), an empty pool with a member starting that no other job is
        waiting for hands that one over when it is ready, raised to a job's priority, instead
        of None: a cold start would do the same work (import torch) a second time, at the same
        moment, on the same cores (seen: a refill at 35 s and the learner's cold start at 30 s
        behind an instructor's check, where either alone took 13 s). `on_wait` is called
        before such a wait (the learner is told a sandbox is starting for them).
        """
        started_now = self.start()
        with self._changed:
            if started_now and self._hurry is not None:  # the first job: take over the first start
                self._changed.wait_for(lambda: self._starting or self._idle or self._closed, timeout=1.0)
            taken = self._take_idle()
            if taken is None and self._hurry is not None and self._starting > self._waiting:
                taken = self._take_starting(on_wait)
            log.debug("pool %s: %s (%d idle, %d starting)", self.name,
                      "warm" if taken else "empty, cold start", len(self._idle), self._starting)
        return taken

    def _take_starting(self, on_wait: Callable[[], None] | None) -> Member | None:
        """Wait (lock held) for a starting member to be ready; None if every start ended without one."""
        self._waiting += 1
        assert self._hurry is not None
        threading.Thread(target=self._hurry, name=f"hurry-{self.name}", daemon=True).start()
        if on_wait is not None:  # (in a thread: it may write to a database; the lock is held)
            threading.Thread(target=on_wait, name=f"wait-{self.name}", daemon=True).start()
        try:
            deadline = time.monotonic() + TAKE_OVER_WAIT_S
            while not self._closed:
                taken = self._take_idle()
                if taken is not None or self._starting < self._waiting:
                    return taken  # (a start failed: not enough left for every waiter)
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return None
                self._changed.wait(remaining)
            return None
        finally:
            self._waiting -= 1

    def _take_idle(self) -> Member | None:
        """The first usable idle member (lock held); unusable ones are discarded on the way."""
        taken = None
        while self._idle and taken is None:
            member = self._idle.popleft()
            usable = self._usable(member)
            self._ready_at.pop(id(member), None)  # it leaves the idle members either way
            if usable:
                taken = member
                self._lent_at[id(member)] = time.monotonic()
                if self.reuse:
                    self._out.add(id(member))
            else:  # crashed, ended or about to end while idle: never hand it out
                self.replaced += 1
                threading.Thread(target=member.discard, daemon=True).start()
        self._changed.notify_all()
        return taken

    def _usable(self, member: Member) -> bool:
        ready_at = self._ready_at.get(id(member))
        fresh = ready_at is None or time.monotonic() - ready_at < RETIRE_SHARE * max_idle_s()
        return fresh and member.alive()

    def release(self, member: Member) -> None:
        """After a job: discard the member (one job each) and start its replacement now.

        Also for a member this pool never lent (a run-mode job's own sandbox): just discarded.
        """
        try:
            member.discard()
        finally:
            with self._changed:
                lent = self._lent_at.pop(id(member), None) is not None
                if lent or id(member) in self._out:
                    self._out.discard(id(member))
                    self._changed.notify_all()

    def adopt(self, member: Member) -> None:
        """A member made for a job because none was free (a reusing pool): it joins when given back,
        if the pool has room for it then."""
        with self._changed:
            if self.reuse and not self._closed and self._held() < self.size:
                self._out.add(id(member))

    def give_back(self, member: Member) -> None:
        """After a job that ended cleanly (a reusing pool): idle again, unless it may take no more."""
        with self._changed:
            keep = self.reuse and not self._closed and id(member) in self._out
        if not keep or not member.reusable() or not member.alive():  # type: ignore[attr-defined]
            self.release(member)
            return
        with self._changed:
            self._out.discard(id(member))
            self._lent_at.pop(id(member), None)
            self._idle.append(member)
            self._ready_at[id(member)] = time.monotonic()
            self._changed.notify_all()

    def _held(self) -> int:
        """Members idle, starting, or lent out and coming back (lock held)."""
        return len(self._idle) + self._starting + len(self._out)

    def _grace_left(self) -> float:
        """Seconds the members handed out still hold the refill back (0: none); forgets expired ones."""
        now = time.monotonic()
        self._lent_at = {key: at for key, at in self._lent_at.items() if now - at < REFILL_GRACE_S}
        return max((at + REFILL_GRACE_S - now for at in self._lent_at.values()), default=0.0)

    def idle_count(self) -> int:
        with self._changed:
            return len(self._idle)

    def wait_filled(self, timeout: float) -> bool:
        """Block until the pool is full (tests and warm_up use it); False on timeout."""
        self.start()
        deadline = time.monotonic() + timeout
        with self._changed:
            while len(self._idle) < self.size:
                remaining = deadline - time.monotonic()
                if remaining <= 0 or self._closed:
                    return False
                self._changed.wait(remaining)
        return True

    def close(self) -> None:
        """Discard every idle member and stop refilling."""
        with self._changed:
            self._closed = True
            members = list(self._idle)
            self._idle.clear()
            self._ready_at.clear()
            self._lent_at.clear()
            self._out.clear()
            self._changed.notify_all()
        for member in members:
            _discard_quietly(member)

    def _refill(self) -> None:
        """Starts every missing member at once, each in a thread of its own (start_one).

        One start at a time could not keep up with a class: a docker start imports torch
        (about 3 core-seconds, 3-13 s of wall time on 2 cores), so a pool of 2 refilled one by
        one supplied a warm container about every 5-13 s while a class of 30 takes one every
        3 s, and each job that found it empty started cold.
        """
        while True:
            with self._changed:
                while not self._closed:
                    grace = self._grace_left()  # release() may never come (a crashed caller)
                    backoff = self._backoff_until - time.monotonic()
                    if grace == 0 and backoff <= 0 and self._held() < self.size:
                        break
                    self._changed.wait(max(grace, backoff) or 5.0)
                    self._drop_dead()
                if self._closed:
                    return
                self._starting += 1
            threading.Thread(target=self._start_one, name=f"start-{self.name}", daemon=True).start()

    def _start_one(self) -> None:
        member = None
        begun = time.monotonic()
        try:
            member = self._spawn()
            log.debug("pool %s: a sandbox ready in %.2f s", self.name, time.monotonic() - begun)
        except Exception as exc:  # noqa: BLE001 -- no warm sandbox: jobs start cold meanwhile
            if not self._closed:  # (a start cut short by close() is no news)
                log.warning("warm pool %s could not start a sandbox: %s", self.name, exc)
        with self._changed:
            self._starting -= 1
            added = member is not None and not self._closed
            if added:
                self._idle.append(member)
                self._ready_at[id(member)] = time.monotonic()
            elif member is None:
                self._backoff_until = time.monotonic() + SPAWN_BACKOFF_S
            self._changed.notify_all()
        if member is not None and not added:  # closed while it started
            _discard_quietly(member)

    def _drop_dead(self) -> None:
        """While idle: replace members that ended (crashed, or past their idle limit)."""
        for member in [m for m in self._idle if not self._usable(m)]:
            self._idle.remove(member)
            self._ready_at.pop(id(member), None)
            self.replaced += 1
            threading.Thread(target=_discard_quietly, args=(member,), daemon=True).start()


def _discard_quietly(member: Member) -> None:
    try:
        member.discard()
    except Exception as exc:  # noqa: BLE001 -- cleanup of one must not stop the others
        log.warning("could not discard a warm sandbox: %s", exc)


_pools: dict[Hashable, WarmPool] = {}
_pools_lock = threading.Lock()
_owner_pid = os.getpid()


def get_pool(key: Hashable, spawn: Callable[[], Member], size: int | None = None, *,
             hurry: Callable[[], None] | None = None, reuse: bool = False) -> WarmPool:
    """This process's pool for `key`, made on first use (`hurry`: see WarmPool.take; `reuse`: see WarmPool)."""
    global _owner_pid
    with _pools_lock:
        if _owner_pid != os.getpid():  # a fork the at-fork hook did not see (it always should)
            _pools.clear()
            _owner_pid = os.getpid()
        pool = _pools.get(key)
        if pool is None:
            pool = _pools[key] = WarmPool(str(key), spawn, pool_size() if size is None else size,
                                          hurry=hurry, reuse=reuse)
        return pool


def close_all() -> None:
    """Discard every idle warm sandbox of this process (at exit, and for tests)."""
    with _pools_lock:
        if _owner_pid != os.getpid():
            _pools.clear()
            return
        pools = list(_pools.values())
        _pools.clear()
    for pool in pools:
        pool.close()


def _forget_after_fork() -> None:
    """In a forked child: the parent's members are the parent's; start afresh, touch nothing."""
    global _owner_pid, _pools_lock
    _pools_lock = threading.Lock()  # it may have been held by a parent thread at fork time
    _pools.clear()
    _owner_pid = os.getpid()


resources.register("warm pools", forget=_forget_after_fork, close=close_all)
