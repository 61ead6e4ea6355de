"""Mutants of a solution (grader.mutants) and how validate judges them, without grading."""

from __future__ import annotations

import ast
from pathlib import Path

from grader.mutants import MAX_MUTANTS, Mutant, emptied, mutants
from grader.validate import _check_mutant, _check_no_work, _check_starter

EXERCISES = Path(__file__).resolve().parents[2] / "exercises"


def test_amp_solution_gets_every_kind_of_mutant() -> None:
    found = mutants((EXERCISES / "amp-fix-the-loop" / "solution.py").read_text())
    changes = {m.change for m in found}
    for expected in ("`scaler.update()` removed", "`scaler.update()` moved after the loop",
                     "`scaler.step(optimizer)` swapped with the next line",
                     "`scaler.step(optimizer)` replaced by optimizer.step()",
                     "scaler.scale() dropped from `scaler.scale(loss)`: backward on the unscaled loss",
                     "backward moved into the autocast block", "autocast dropped (its body runs in float32)",
                     "`optimizer.zero_grad(set_to_none=True)` moved before the loop",
                     ".item() dropped from `loss.item()`: a tensor instead of a number",
                     ".to() dropped from `inputs.to(device)`: the tensor or model is not moved",
                     "`return total / len(loader)` returns None instead"):
        assert expected in changes, expected
    codes = [m.code for m in found]
    assert len(codes) == len(set(codes))  # no mutant graded twice
    for mutant in found:
        ast.parse(mutant.code)  # every mutant is Python the sandbox can load
        assert "def train_one_epoch" in mutant.code


def test_update_moved_after_the_loop_really_moves_it() -> None:
    source = "def f(xs, s):\n    for x in xs:\n        s.step(x)\n        s.update()\n    return 1\n"
    moved = next(m for m in mutants(source) if m.change == "`s.update()` moved after the loop")
    assert moved.code.splitlines()[-2:] == ["    s.update()", "    return 1"]


def test_mutants_are_bounded_and_skip_docstrings_and_imports() -> None:
    body = "\n".join(f"    x{i} = {i}" for i in range(400))
    found = mutants(f'import torch\n\ndef f():\n    """Doc."""\n{body}\n    return x1\n')
    assert len(found) == MAX_MUTANTS
    assert not any("Doc." in m.change or "import" in m.change for m in found)


def test_emptied_keeps_signatures_and_drops_work() -> None:
    namespace: dict = {}
    code = emptied("import torch\n\ndef f(a, b=2):\n    '''doc'''\n    return a + b\n")
    exec(compile(code, "<emptied>", "exec"), namespace)  # noqa: S102 -- our own literal
    assert namespace["f"](1) is None


def doc(status: str, score: float, tests: list[tuple[str, str, bool]]) -> dict:
    return {"status": status, "score": score, "error_kind": None, "message": "",
            "tests": [{"check": c, "status": s, "given": g, "message": "", "points": int(s == "pass" and not g)}
                      for c, s, g in tests]}


def test_validate_names_a_surviving_mutant_and_accepts_a_killed_one() -> None:
    mutant = Mutant(line=9, change=".to() dropped", code="")
    [problem] = _check_mutant(mutant, doc("pass", 1.0, [("runs", "pass", False)]))
    assert "line 9 (.to() dropped) passes every check" in problem
    assert _check_mutant(mutant, doc("fail", 0.5, [("runs", "fail", False)])) == []


def test_validate_holds_given_declarations_to_the_starter() -> None:
    honest = doc("fail", 0.0, [("runs", "pass", True), ("amp", "fail", False)])
    assert _check_starter(honest) == []
    undeclared = doc("fail", 0.5, [("runs", "pass", False), ("amp", "fail", False)])
    assert "declare what the starter already does right with given=True" in _check_starter(undeclared)[0]
    unearned = doc("fail", 0.0, [("runs", "fail", True), ("amp", "fail", False)])
    assert "drop given=True" in _check_starter(unearned)[0]
    assert "an empty function body scores 0.50" in _check_no_work(undeclared)[0]


def test_declared_equivalent_mutants_are_not_graded_and_stale_ones_are_named(tmp_path) -> None:
    import shutil

    from grader.loader import load_exercise
    from grader.validate import mutants_to_grade

    folder = tmp_path / "amp-grad-accumulation"
    shutil.copytree(EXERCISES / "amp-grad-accumulation", folder)
    exercise = load_exercise(folder)
    solution = exercise.solution_path.read_text()
    graded, problems = mutants_to_grade(exercise, solution)
    assert problems == [] and len(graded) == len(mutants(solution)) - len(exercise.config.equivalent_mutants)
    assert not any(m.line == 8 and m.change.endswith("removed") for m in graded)
    # The solution changes: the declaration no longer names a mutant, and validate says so.
    (folder / "solution.py").write_text(solution.replace("    optimizer.zero_grad(set_to_none=True)\n    for",
                                                         "    for", 1))
    exercise = load_exercise(folder)
    _graded, problems = mutants_to_grade(exercise, exercise.solution_path.read_text())
    assert len(problems) == 2 and "no mutant of solution.py any more" in problems[0]


def test_update_and_zero_grad_are_never_swapped() -> None:
    source = "def f(xs, s, o):\n    for x in xs:\n        s.step(o)\n        s.update()\n        o.zero_grad()\n"
    assert not any("`s.update()` swapped" in m.change for m in mutants(source))


def test_the_amp_mistakes_a_learner_adds_are_mutants_too() -> None:
    # Only removing, moving and dropping, no mutant could ever make the flagship's checks of
    # added mistakes fail (a float16 model, a scaler of its own, clipping still-scaled
    # gradients, a skipped batch): validate called them checks that never fail.
    found = {m.change: m for m in mutants((EXERCISES / "amp-train-one-epoch" / "solution.py").read_text())}
    half = found["`model.half()` added: the weights themselves in float16"]
    assert "    model.half()\n    model.train()" in half.code
    own = found["`scaler = torch.amp.GradScaler(device.type)` added: a scaler of its own, not the one passed in"]
    assert "    scaler = torch.amp.GradScaler(device.type)\n" in own.code
    clip = found["`clip_grad_norm_` added before the step: the gradients are clipped still scaled"]
    assert "clip_grad_norm_(model.parameters(), max_norm=1.0)\n        scaler.step(optimizer)" in clip.code
    skip = found["the first batch of `loader` skipped (`itertools.islice`)"]
    assert skip.code.startswith("import itertools\n") and "in itertools.islice(loader, 1, None):" in skip.code
    for mutant in (half, own, clip, skip):
        ast.parse(mutant.code)


def test_added_mistakes_need_their_place_in_the_solution() -> None:
    # A loop that already clips after unscale_ gets no clipping mutant (moving unscale_ covers
    # it); no scaler argument, no scaler of its own; no torch, no AMP mistake at all.
    clipped = (EXERCISES / "amp-clip-gradients" / "solution.py").read_text()
    assert not any("clip_grad_norm_` added" in m.change for m in mutants(clipped))
    plain = "def f(model, loader):\n    for x in loader:\n        model(x)\n"
    assert [m.change for m in mutants(plain) if "added" in m.change or "skipped" in m.change] == []
    with_torch = "import torch\n\n\n" + plain
    changes = [m.change for m in mutants(with_torch)]
    assert "the first batch of `loader` skipped (`itertools.islice`)" in changes
    assert not any("model.half()" in change for change in changes)  # no autocast: not an AMP loop


def test_a_dropped_call_is_named_on_a_line_with_two() -> None:
    source = "def f(inputs, targets, device):\n    inputs, targets = inputs.to(device), targets.to(device)\n" \
             "    return inputs, targets\n"
    moved = {m.change: m.code for m in mutants(source) if m.change.startswith(".to() dropped")}
    assert set(moved) == {".to() dropped from `inputs.to(device)`: the tensor or model is not moved",
                          ".to() dropped from `targets.to(device)`: the tensor or model is not moved"}
    assert "= (inputs, targets.to(device))" in moved[".to() dropped from `inputs.to(device)`: the tensor or "
                                                   "model is not moved"]
