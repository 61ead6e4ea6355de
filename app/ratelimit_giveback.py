"""Every rate limit counts a request when it arrives and gives it back when the server failed it (>= 500)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from flask import Flask, g
from flask_limiter import Limiter
from limits.storage import MemoryStorage
from limits.strategies import FixedWindowRateLimiter
from werkzeug.wrappers import Response

log = logging.getLogger(__name__)

GiveBack = Callable[[Response], bool]
_NOTED = "laip_ratelimit_noted"  # flask.g: key -> the give_back_when of each limit that counted it


def _noting(key_func: Callable[[], str], give_back_when: GiveBack | None) -> Callable[[], str]:
    """The limit's key function, remembering for this request that a limit counted under the key."""
    def key() -> str:
        value = key_func()
        noted: dict[str, list[GiveBack | None]] = g.setdefault(_NOTED, {})
        noted.setdefault(value, []).append(give_back_when)
        return value

    return key


def _hand_back(limit: Any) -> None:
    """Take one off a fixed window's counter (never below zero, never starting a window)."""
    storage = limit.limiter.storage  # the in-memory fallback's while Redis is away
    try:
        if isinstance(storage, MemoryStorage):
            storage.decr(limit.key)
        elif storage.get(limit.key) > 0:  # an expired window is not made negative
            storage.incr(limit.key, limit.limit.get_expiry(), amount=-1)
    except Exception:  # noqa: BLE001 -- the storage went away since the request counted
        log.warning("could not give back a rate-limit count for %s", limit.key, exc_info=True)


def _give_back(limiter: Limiter, response: Response) -> Response:
    noted: dict[str, list[GiveBack | None]] = g.pop(_NOTED, {})
    failed = response.status_code >= 500
    for limit in limiter.current_limits:
        key = limit.request_args[-2]  # [key_prefix,] key, scope
        if limit.breached or key not in noted:
            continue
        # Two limits under one key with different rules: give back only what all of them allow.
        if failed or all(rule is not None and rule(response) for rule in noted[key]):
            _hand_back(limit)
    return response


def install(app: Flask, limiter: Limiter, default_key_func: Callable[[], str]) -> None:
    """Make every limit made afterwards by limiter.limit / shared_limit count up front and give back.

    Counting when the request arrives (not after it) keeps parallel requests from overshooting a
    limit; giving back afterwards means a request the server failed (a 503 while PostgreSQL or
    Redis is away, any 500) never counts, on every limit, so a route added later cannot forget
    it. A limit may name more answers to give back (`give_back_when`, e.g. a refusal by the queue
    cap). Flask-Limiter's own deduct_when and cost are refused: they would bypass this.
    """
    # RATELIMIT_ENABLED=False (Flask-Limiter's own switch) turns every limit off: nothing counts,
    # so there is no strategy to check, and nothing to give back.
    if limiter.enabled and not isinstance(limiter.limiter, FixedWindowRateLimiter):
        raise RuntimeError("rate limits give back counts on the fixed-window strategy only")
    for name in ("limit", "shared_limit"):
        original = getattr(limiter, name)

        def limited(*args: Any, _original: Any = original, give_back_when: GiveBack | None = None,
                    **kwargs: Any) -> Any:
            if "deduct_when" in kwargs or "cost" in kwargs:
                raise TypeError("use give_back_when: deduct_when and cost bypass the give-back rule")
            kwargs["key_func"] = _noting(kwargs.get("key_func") or default_key_func, give_back_when)
            return _original(*args, **kwargs)

        setattr(limiter, name, limited)
    # after_request functions run last-registered first: this runs before Flask-Limiter's own
    # (registered by Limiter(app=...)), so the headers it adds already show the count given back.
    app.after_request(lambda response: _give_back(limiter, response))
