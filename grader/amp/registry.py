"""The one place an AMP check is registered: @register(slug, title=..., hint=...) on its function.

Look checks up through grader.amp.checks, which imports every check module first.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from grader.amp.findings import Context, Finding

Text = dict[str, str]
CheckFunction = Callable[["Context"], "Finding"]


# What a check may need of its scenario, and the setting that gives it (for authoring errors
# and docs/exercises.md). A check runs only where all its needs are met: in a scenario where its
# question does not apply it is an authoring error to declare it, never a free pass.
NEEDS: dict[str, str] = {
    "scaler": "a GradScaler (scaler = true, or precision = \"fp16\" with scaler omitted)",
    "no-scaler": "no GradScaler (scaler = false, or precision = \"bf16\" with scaler omitted)",
    "clip": "clipping asked for (clip = \"norm\")",
    "accumulate": "gradient accumulation (accumulate = k above 1)",
    "train": "a training loop (mode = \"train\")",
    "eval": "an evaluation loop (mode = \"eval\")",
    "bf16": "bfloat16 asked for (precision = \"bf16\")",
    "custom-loss": "a loss autocast does not run in float32 (loss = \"custom\")",
    "partial-window": "a last, partial accumulation window (accumulate = k above 1, batches not a multiple of k)",
}


@dataclass(frozen=True)
class AmpCheck:
    """A registered check: what the learner reads first (title, hint) and the function that judges."""

    slug: str
    title: Text
    hint: Text
    function: CheckFunction
    advises: bool = False  # may add advice while it runs (the review runs it even if no test asks)
    needs: frozenset[str] = frozenset()  # keys of NEEDS: the scenarios where its question applies


CHECKS: dict[str, AmpCheck] = {}

# The two outcome checks of every AMP exercise (grader.amp.kit's runs() and weights()): not
# registered checks, but declared by slug like them, with these standard texts.
def runs_title(entry: str = "train_one_epoch") -> Text:
    """The runs check's standard title, naming the function the scenario calls (`evaluate`, ...)."""
    return {"en": f"{entry} runs to the end", "ja": f"{entry} が最後まで動く"}


RUNS_TITLE = runs_title()
RUNS_HINT = {"en": "Fix the mistake named above first; the rest follows.",
             "ja": "まず上で指摘された誤りを直しましょう。"}
WEIGHTS_TITLE = {"en": "Trains the model like the reference", "ja": "模範解答と同じように学習する"}
# Shown only when every protocol check passed yet the weights differ: it must not blame a
# step the learner got right, so it points at what the protocol checks cannot see.
WEIGHTS_HINT = {"en": "Compare your loop with the prompt line by line: the data, the loss, the learning rate and "
                      "what is returned must be the ones asked for.",
                "ja": "問題文とループを 1 行ずつ見比べましょう。データ、損失、学習率、戻り値が求められたとおりか"
                      "確認しましょう。"}
OUTCOME_TITLES: dict[str, Text] = {"runs": RUNS_TITLE, "weights-match-reference": WEIGHTS_TITLE}


def register(slug: str, *, title: Text, hint: Text, advises: bool = False,
             needs: tuple[str, ...] = ()) -> Callable[[CheckFunction], CheckFunction]:
    """Register `function` as the AMP check `slug`; a second registration of a slug is a bug."""

    def add(function: CheckFunction) -> CheckFunction:
        if slug in CHECKS:
            raise ValueError(f"AMP check '{slug}' is registered twice")
        unknown = sorted(set(needs) - set(NEEDS))
        if unknown or ("scaler" in needs and "no-scaler" in needs) or ("train" in needs and "eval" in needs):
            raise ValueError(f"AMP check '{slug}': needs {sorted(needs)} (known: {', '.join(NEEDS)})")
        for name, text in (("title", title), ("hint", hint)):
            if set(text) != {"en", "ja"} or not all(text.values()):
                raise ValueError(f"AMP check '{slug}': {name} needs both 'en' and 'ja'")
        CHECKS[slug] = AmpCheck(slug, title, hint, function, advises, frozenset(needs))
        return function

    return add
