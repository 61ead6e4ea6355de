"""Declared AMP scenarios: the [amp] table typed and validated, checks only where they apply, the reference checked
first, and the three variants of tests/amp/variants (built from docs/exercises.md alone) validated and graded."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from grader.amp import outcome
from grader.amp.checks import all_checks
from grader.amp.findings import LoopSpec
from grader.amp_scenario import Scenario
from grader.grading import grade_code
from grader.loader import ExerciseLoadError, load_exercise
from grader.validate import check_exercise

VARIANTS = Path(__file__).parent / "variants"
EXERCISES = Path(__file__).resolve().parents[2] / "exercises"


def copy(folder: Path, root: Path) -> Path:
    target = root / folder.name
    shutil.copytree(folder, target, ignore=shutil.ignore_patterns("__pycache__"))
    return target


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, (path, old)
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def grade(folder: Path, source: str) -> dict:
    return grade_code(load_exercise(folder), source, sandbox="local")


def by_check(doc: dict) -> dict[str, dict]:
    return {test["check"]: test for test in doc["tests"]}


# ---- the settings ------------------------------------------------------------------------------
def test_the_scaler_is_derived_from_the_precision_unless_declared() -> None:
    assert Scenario(precision="fp16").has_scaler is True
    assert Scenario(precision="bf16").has_scaler is False
    assert Scenario(precision="bf16", scaler=True).has_scaler is True
    assert Scenario(mode="eval").has_scaler is False


def test_the_arguments_follow_the_settings() -> None:
    assert Scenario(precision="bf16", clip="norm", max_norm=1.0).arguments() == [
        "model", "loader", "optimizer", "criterion", "device", "max_norm"]
    assert Scenario(accumulate=4, batches=8).arguments() == [
        "model", "loader", "optimizer", "criterion", "scaler", "device", "accum_steps"]
    assert Scenario(mode="eval").arguments() == ["model", "loader", "criterion", "device"]
    params = Scenario(accumulate=2, clip="norm", max_norm=0.5).params("fit")
    assert params["entry"] == "fit" and params["kwargs"] == {"max_norm": 0.5, "accum_steps": 2}


@pytest.mark.parametrize(("table", "field", "words"), [
    ('precision = "fp8"', "amp.precision", "'fp16' or 'bf16'"),
    ("scalar = false", "amp.scalar", "Extra inputs"),
    ('clip = "norm"', "amp", "needs max_norm"),
    ("max_norm = 1.0", "amp", 'clip = "none"'),
    ('mode = "eval"\nscaler = true', "amp", "cannot be set"),
    ('precision = "fp16"\nscaler = false', "amp", "bf16"),
    ("accumulate = 0", "amp.accumulate", "greater than or equal to 1"),
    ('device = "tpu"', "amp.device", "'cuda', 'cpu' or 'auto'"),
], ids=["precision", "unknown-field", "clip-without-max-norm", "max-norm-without-clip", "eval-with-scaler",
        "fp16-without-scaler", "accumulate", "device"])
def test_a_wrong_setting_names_the_file_and_the_field(tmp_path: Path, table: str, field: str, words: str) -> None:
    folder = copy(VARIANTS / "amp-accumulate-two", tmp_path)
    edit(folder / "exercise.toml", 'precision = "fp16"\naccumulate = 2\n', table + "\n")
    with pytest.raises(ExerciseLoadError) as caught:
        load_exercise(folder)
    assert caught.value.file == "exercise.toml"
    assert f"field '{field}'" in str(caught.value) and words in str(caught.value)


def test_every_check_states_what_it_needs() -> None:
    needs = {slug: check.needs for slug, check in all_checks().items()}
    assert needs["unscale-before-clip"] == {"scaler"} and needs["clip-before-step"] == {"no-scaler", "train"}
    assert needs["accumulation-window"] == {"accumulate"} and needs["eval-mode"] == {"eval"}
    bf16_clip = LoopSpec.of(Scenario(precision="bf16", clip="norm", max_norm=1.0))
    applies = {slug for slug, check in all_checks().items() if not bf16_clip.unmet(check.needs)}
    assert "clip-before-step" in applies
    assert not applies & {"unscale-before-clip", "step-through-scaler", "update-after-step", "one-scaler",
                          "eval-mode", "accumulation-window"}


# ---- checks where they apply, and nowhere else ---------------------------------------------------
@pytest.mark.slow
def test_a_check_that_does_not_apply_is_an_authoring_error(tmp_path: Path) -> None:
    folder = copy(VARIANTS / "amp-bf16-clip", tmp_path)
    tests = folder / "tests" / "test_bf16_clip.py"
    tests.write_text(tests.read_text(encoding="utf-8") + 'test_unscale = amp.check("unscale-before-clip")\n',
                     encoding="utf-8")
    doc = grade(folder, (folder / "solution.py").read_text(encoding="utf-8"))
    found = by_check(doc)["unscale-before-clip"]
    assert found["status"] == "error", found
    assert "test_bf16_clip.py:" in found["message"] and "needs a GradScaler" in found["message"]
    assert "scaler = false" in found["message"]
    assert doc["score"] < 1


AMP_TABLE = ('[amp]\nprecision = "bf16"\nclip = "norm"\nmax_norm = 0.25\nseed = 5\ndata_seed = 31337\n')


@pytest.mark.slow
def test_a_typed_scenario_in_the_tests_stands_for_the_table(tmp_path: Path) -> None:
    folder = copy(VARIANTS / "amp-bf16-clip", tmp_path)
    edit(folder / "exercise.toml", AMP_TABLE, "")
    edit(folder / "tests" / "test_bf16_clip.py", "amp.fixtures()",
         'amp.fixtures(amp.Scenario(precision="bf16", clip="norm", max_norm=0.25, seed=5, data_seed=31337))')
    solution = grade(folder, (folder / "solution.py").read_text(encoding="utf-8"))
    assert (solution["status"], solution["score"]) == ("pass", 1.0), solution
    starter = grade(folder, (folder / "starter.py").read_text(encoding="utf-8"))
    assert by_check(starter)["clip-before-step"]["status"] == "fail"


@pytest.mark.slow
def test_an_amp_test_without_a_scenario_is_the_authors_error(tmp_path: Path) -> None:
    folder = copy(VARIANTS / "amp-bf16-clip", tmp_path)
    edit(folder / "exercise.toml", AMP_TABLE, "")
    doc = grade(folder, (folder / "solution.py").read_text(encoding="utf-8"))
    judged = [t for t in doc["tests"] if t["status"] != "skip"]
    assert judged and all(t["status"] == "error" for t in judged), doc
    assert all("amp-bf16-clip/exercise.toml: no [amp] table" in t["message"] for t in judged)


# ---- the reference first ---------------------------------------------------------------------------
@pytest.mark.slow
def test_a_reference_that_fails_its_own_check_is_the_authors_error(tmp_path: Path) -> None:
    folder = copy(EXERCISES / "amp-clip-gradients", tmp_path)
    learner = (folder / "solution.py").read_text(encoding="utf-8")  # a correct loop, graded as a learner's
    edit(folder / "solution.py", "        scaler.unscale_(optimizer)\n", "")
    doc = grade(folder, learner)
    judged = [t for t in doc["tests"] if t["status"] != "skip"]
    assert judged and all(t["status"] == "error" for t in judged), doc  # never the learner's failure
    message = by_check(doc)["unscale-before-clip"]["message"]
    assert "the reference solution (solution.py) fails 'unscale-before-clip' in this scenario" in message
    assert "clip_grad_norm_ on line 17 clips gradients that are still multiplied" in message
    assert "fp16 training needs a GradScaler, so it is the solution's use of the scaler" in message
    assert doc["score"] == 0


@pytest.mark.slow
def test_a_scaler_the_reference_does_not_take_is_named(tmp_path: Path) -> None:
    folder = copy(VARIANTS / "amp-bf16-clip", tmp_path)
    edit(folder / "exercise.toml", 'precision = "bf16"\n', 'precision = "bf16"\nscaler = true\n')
    doc = grade(folder, (folder / "solution.py").read_text(encoding="utf-8"))
    message = by_check(doc)["runs"]["message"]
    assert by_check(doc)["runs"]["status"] == "error"
    assert "the reference solution (solution.py) does not run in this scenario" in message
    assert "train_one_epoch(model, loader, optimizer, criterion, scaler, device, max_norm)" in message


def test_the_reference_verdict_is_cached_by_fingerprint(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(outcome.CACHE_ENV, str(tmp_path / "cache"))
    folder = VARIANTS / "amp-bf16-clip"
    scenario = load_exercise(folder).config.amp
    solution = load_solution(folder)
    slugs = ["clip-before-step", "bf16-autocast", "zero-grad-each-iteration"]
    assert outcome.check_reference(solution, folder, scenario, "train_one_epoch", slugs) == []
    assert len(list((tmp_path / "cache").glob("*.json"))) == 1

    def no_second_run(*args: object) -> dict:
        raise AssertionError("the cached verdict should have answered")

    monkeypatch.setattr(outcome, "run_traced", no_second_run)
    assert outcome.check_reference(solution, folder, scenario, "train_one_epoch", slugs) == []
    other = scenario.model_copy(update={"seed": scenario.seed + 1})  # another fingerprint: a run again
    with pytest.raises(AssertionError, match="cached verdict"):
        outcome.check_reference(solution, folder, other, "train_one_epoch", slugs)


def test_a_cache_folder_others_can_write_is_not_used(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    shared = tmp_path / "shared"
    shared.mkdir(mode=0o777)
    shared.chmod(0o777)
    monkeypatch.setenv(outcome.CACHE_ENV, str(shared))
    assert outcome._cache_dir() is None


def load_solution(folder: Path):
    import importlib.util

    spec = importlib.util.spec_from_file_location("variant_solution", folder / "solution.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# ---- the three variants, as a new instructor built them ------------------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize("variant", ["amp-bf16-clip", "amp-eval-autocast", "amp-accumulate-two",
                                     "amp-bf16-accumulate-partial", "amp-eval-accuracy"])
def test_the_variant_validates(variant: str) -> None:
    report = check_exercise(load_exercise(VARIANTS / variant), sandbox="local", with_mutants=True)
    assert report.ok, report.problems


BF16_CLIP = (VARIANTS / "amp-bf16-clip" / "solution.py").read_text(encoding="utf-8")
EVAL = (VARIANTS / "amp-eval-autocast" / "solution.py").read_text(encoding="utf-8")
ACCUMULATE = (VARIANTS / "amp-accumulate-two" / "solution.py").read_text(encoding="utf-8")
CLIP_LINE = "        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)\n"


def swap(source: str, old: str, new: str) -> str:
    assert old in source, old
    return source.replace(old, new, 1)


WRONG = [
    # (variant, source, the failing check, its line, words of its message)
    ("amp-bf16-clip", (VARIANTS / "amp-bf16-clip" / "starter.py").read_text(encoding="utf-8"),
     "clip-before-step", 8, "never clipped"),
    ("amp-bf16-clip", swap(swap(BF16_CLIP, CLIP_LINE, ""), "        optimizer.step()\n",
                           "        optimizer.step()\n" + CLIP_LINE),
     "clip-before-step", 17, "after the optimizer step"),
    ("amp-bf16-clip", swap(swap(BF16_CLIP, CLIP_LINE, ""), "        optimizer.zero_grad(set_to_none=True)\n",
                           "        optimizer.zero_grad(set_to_none=True)\n" + CLIP_LINE),
     "clip-before-step", 11, "before the backward pass"),
    ("amp-eval-autocast", (VARIANTS / "amp-eval-autocast" / "starter.py").read_text(encoding="utf-8"),
     "forward-in-autocast", 12, "no autocast"),
    ("amp-eval-autocast", swap(EVAL, "    model.eval()\n", "    model.train()\n"), "eval-mode", 4, "training mode"),
    ("amp-eval-autocast", swap(EVAL, "torch.inference_mode()", "torch.enable_grad()"), "no-grad-in-eval", 13,
     "gradients enabled"),
    ("amp-eval-autocast", swap(swap(EVAL, "torch.inference_mode()", "torch.enable_grad()"),
                               "            total += loss.item()\n",
                               "            loss.backward()\n            total += loss.item()\n"),
     "no-training-in-eval", 15, "backward() on line 15"),
    ("amp-accumulate-two", (VARIANTS / "amp-accumulate-two" / "starter.py").read_text(encoding="utf-8"),
     "accumulation-window", 16, "should make one optimizer step"),
    ("amp-accumulate-two", swap(ACCUMULATE, "scaler.scale(loss / accum_steps)", "scaler.scale(loss)"),
     "accumulation-window", 15, "divide it by accum_steps (2)"),
    ("amp-accumulate-two", swap(ACCUMULATE, "            scaler.update()\n", ""), "update-after-step", 17,
     "scaler.update()"),
]


@pytest.mark.slow
@pytest.mark.parametrize(("variant", "source", "slug", "line", "words"), WRONG,
                         ids=["clip-starter", "clip-after-step", "clip-before-backward", "eval-starter",
                              "eval-train-mode", "eval-with-grad", "eval-backward", "accumulate-starter",
                              "accumulate-undivided", "accumulate-no-update"])
def test_a_wrong_loop_fails_its_check_on_its_line(variant: str, source: str, slug: str, line: int,
                                                  words: str) -> None:
    doc = grade(VARIANTS / variant, source)
    assert doc["status"] == "fail" and doc["score"] < 1, doc
    found = by_check(doc)[slug]
    assert (found["status"], found["line"]) == ("fail", line), found
    assert words in found["message"], found["message"]


# ---- a custom loss that stays float16 -----------------------------------------------------------------
CUSTOM_LOSS = '''import torch


def train_one_epoch(model, loader, optimizer, criterion, scaler, device):
    total = 0.0
    for inputs, targets in loader:
        inputs, targets = inputs.to(device), targets.to(device)
        optimizer.zero_grad()
        with torch.autocast(device_type=device.type, dtype=torch.float16):
            outputs = model(inputs)
            loss = criterion(outputs.float(), targets)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        total += loss.item()
    return total / len(loader)
'''


def custom_loss_failures(source: str) -> dict[str, tuple[int | None, str]]:
    from tests.amp.amp_helpers import review_source

    review = review_source(source, LoopSpec.of(Scenario(loss="custom")), loss="custom")
    return {slug: (f.line, f.message["en"]) for slug, f in review.all().items() if f.status == "fail"}


def test_a_custom_loss_given_float32_outputs_passes_every_check() -> None:
    assert custom_loss_failures(CUSTOM_LOSS) == {}


def test_a_custom_loss_left_in_float16_fails_only_its_check() -> None:
    failures = custom_loss_failures(CUSTOM_LOSS.replace("outputs.float()", "outputs"))
    assert set(failures) == {"loss-in-float32"}
    line, message = failures["loss-in-float32"]
    assert line == 11 and "computed in float16" in message


def test_the_loss_check_needs_a_custom_loss() -> None:
    assert all_checks()["loss-in-float32"].needs == {"custom-loss"}
    assert LoopSpec.of(Scenario()).unmet(all_checks()["loss-in-float32"].needs) == ["custom-loss"]
