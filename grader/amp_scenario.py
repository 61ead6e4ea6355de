"""The `[amp]` table of exercise.toml: one typed AMP scenario that the trace, the learner run and the reference share.

Pure data (no torch): the loader validates it with the rest of exercise.toml, so a wrong
setting is reported as `exercise.toml: field 'amp.<name>': ...`; the runner side
(grader.amp.run) and the checks (grader.amp) read their settings from it.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

# Keyword arguments the scenario passes to the learner's function for its settings: fixed
# names, so a prompt, a starter and a solution agree without a mapping in the tests.
CLIP_ARGUMENT = "max_norm"
ACCUMULATE_ARGUMENT = "accum_steps"
MAX_BATCHES, MAX_BATCH_SIZE = 64, 64  # kept small: the harness runs the reference too


class Scenario(BaseModel):
    """How an AMP exercise's loop is run and judged (docs/exercises.md, section 6)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    precision: Literal["fp16", "bf16"] = Field(
        default="fp16", description="the autocast precision the prompt asks for")
    scaler: bool | None = Field(
        default=None, description="a GradScaler is passed to the function; omitted: yes for fp16, no for bf16")
    mode: Literal["train", "eval"] = Field(
        default="train", description="train: backward and step; eval: forward under autocast and no_grad only")
    clip: Literal["none", "norm"] = Field(
        default="none", description="norm: the loop must clip the gradient norm to max_norm before each step")
    max_norm: float | None = Field(default=None, gt=0, description="the clipping threshold (clip = \"norm\")")
    accumulate: int = Field(default=1, ge=1, le=16, description="batches per optimizer step (k)")
    device: Literal["cuda", "cpu", "auto"] = Field(
        default="cuda", description="the device asked for; without a GPU the CPU stands in for \"cuda\"")
    batches: int = Field(default=6, ge=1, le=MAX_BATCHES)
    batch_size: int = Field(default=8, ge=1, le=MAX_BATCH_SIZE)
    seed: int = Field(default=0, ge=0, description="the model's initial weights")
    data_seed: int = Field(default=1, ge=0, description="the data: one the learner never sees")
    lr: float = Field(default=0.1, gt=0, le=10, description="the SGD learning rate")
    loss: Literal["cross_entropy", "custom"] = Field(
        default="cross_entropy",
        description="custom: a hand-written loss autocast does not run in float32 (it stays in 16 bits)")
    handover: Literal["train", "eval"] = Field(
        default="train", description="the mode the model arrives in (eval: a missing model.train() shows)")
    entry: str | None = Field(
        default=None, description="the function to call; omitted: exercise.toml's entry")

    @model_validator(mode="after")
    def _consistent(self) -> Scenario:
        if self.entry is not None and not self.entry.isidentifier():
            raise ValueError("entry must be a Python identifier")
        if self.clip == "norm" and self.max_norm is None:
            raise ValueError('clip = "norm" needs max_norm (the threshold passed to the function)')
        if self.clip == "none" and self.max_norm is not None:
            raise ValueError('max_norm is set but clip = "none": add clip = "norm"')
        if self.mode == "eval":
            unused = [name for name, bad in (("scaler", self.scaler), ("clip", self.clip != "none"),
                                             ("accumulate", self.accumulate != 1)) if bad]
            if unused:
                raise ValueError(f"mode = \"eval\" runs no backward and no step, so {', '.join(unused)} "
                                 "cannot be set")
        if self.accumulate > self.batches:
            raise ValueError(f"accumulate = {self.accumulate} needs at least that many batches "
                             f"(batches = {self.batches})")
        if self.precision == "fp16" and self.scaler is False and self.mode == "train":
            raise ValueError("precision = \"fp16\" without a scaler trains on underflowing gradients; "
                             "use precision = \"bf16\" for a loop without a GradScaler")
        return self

    # ---- derived -------------------------------------------------------------------------
    @property
    def has_scaler(self) -> bool:
        """A GradScaler is passed in: as declared, else for fp16 training (bf16 needs none)."""
        if self.mode == "eval":
            return False
        return self.scaler if self.scaler is not None else self.precision == "fp16"

    @property
    def clips(self) -> bool:
        return self.clip != "none"

    def entry_or(self, default: str | None) -> str:
        return self.entry or default or ("evaluate" if self.mode == "eval" else "train_one_epoch")

    def arguments(self) -> list[str]:
        """The learner function's parameters, in the order the scenario passes them."""
        if self.mode == "eval":
            return ["model", "loader", "criterion", "device"]
        names = ["model", "loader", "optimizer", "criterion", *(["scaler"] if self.has_scaler else []), "device"]
        if self.clips:
            names.append(CLIP_ARGUMENT)
        if self.accumulate > 1:
            names.append(ACCUMULATE_ARGUMENT)
        return names

    def params(self, entry: str | None = None) -> dict[str, Any]:
        """What grader.amp.run.run_traced reads: the one source of the run's settings."""
        kwargs: dict[str, Any] = {}
        if self.clips:
            kwargs[CLIP_ARGUMENT] = self.max_norm
        if self.accumulate > 1:
            kwargs[ACCUMULATE_ARGUMENT] = self.accumulate
        return {"seed": self.seed, "data_seed": self.data_seed, "batches": self.batches,
                "batch_size": self.batch_size, "lr": self.lr, "device": self.device,
                "scaler": self.has_scaler, "mode": self.mode, "handover": self.handover, "loss": self.loss,
                "entry": self.entry_or(entry), "kwargs": kwargs}

    def describe(self) -> str:
        """One line for authoring errors: the settings that decide which checks apply."""
        return (f'precision = "{self.precision}", scaler = {str(self.has_scaler).lower()}'
                f'{"" if self.scaler is not None or self.mode == "eval" else " (derived from precision)"}, '
                f'mode = "{self.mode}", clip = "{self.clip}", accumulate = {self.accumulate}')


def settings() -> dict[str, str]:
    """Every setting's name and description (docs/exercises.md lists each; a test compares)."""
    return {name: field.description or "" for name, field in Scenario.model_fields.items()}
