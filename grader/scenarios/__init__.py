"""Registry of scenarios: trusted fixture code that runs in the learner's process and returns data."""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from types import ModuleType
from typing import Any

ScenarioFunction = Callable[[ModuleType, dict[str, Any]], Any]
SCENARIOS: dict[str, ScenarioFunction] = {}


def scenario(name: str) -> Callable[[ScenarioFunction], ScenarioFunction]:
    """Register a scenario under a dotted name, e.g. "amp.train_one_epoch"."""

    def register(function: ScenarioFunction) -> ScenarioFunction:
        if name in SCENARIOS and SCENARIOS[name] is not function:
            raise ValueError(f"scenario {name!r} is registered twice")
        SCENARIOS[name] = function
        return function

    return register


def find(name: str) -> ScenarioFunction:
    """The scenario of that name, importing the module its prefix names on first use."""
    if name not in SCENARIOS:
        module = name.split(".", 1)[0]
        if module in {info.name for info in pkgutil.iter_modules(__path__)}:
            importlib.import_module(f"{__name__}.{module}")
    if name not in SCENARIOS:
        raise KeyError(f"no scenario named {name!r}")
    return SCENARIOS[name]
