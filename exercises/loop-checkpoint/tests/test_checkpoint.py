"""Checks for loop-checkpoint: a weights-only file, model and optimizer restored, training resumes exactly."""

import pytest

from grader.author import Feedback, call_line, check, float_state, optimizer_state, resume_and_step, trained_pair

PARAMS = {"seed": 4, "data_seed": 20261130, "batches": 4, "batch_size": 8, "epoch": 7}


def run(learner, part):
    return learner.scenario("loop.checkpoint", **PARAMS, part=part)


@pytest.fixture(scope="module")
def restored(learner):
    return run(learner, "roundtrip")


@pytest.fixture(scope="module")
def reference():
    """The uninterrupted run, computed here in the harness from the same seeds."""
    model, optimizer = trained_pair(PARAMS, PARAMS["seed"], 3)
    state, opt_state = float_state(model), optimizer_state(optimizer)
    return {"model": state, "optimizer": opt_state, "resumed": resume_and_step(model, optimizer, PARAMS)}


def largest_gap(got: dict, expected: dict) -> tuple[str, float]:
    worst_name, worst = "", 0.0
    for name, value in expected.items():
        if name not in got:
            return name, float("inf")
        if isinstance(value, float):
            gap = abs(got[name] - value)
        else:
            gap = float((got[name] - value).abs().max())
        if gap > worst:
            worst_name, worst = name, gap
    return worst_name, worst


# given=True: the untouched starter already passes this check; it earns nothing while it holds and
# costs its point when broken (credit is for the learner's work, and failing work never shows 100 %).
@check("file-written", given=True, title={"en": "save_checkpoint writes the file", "ja": "save_checkpoint がファイルを書き出す"},
       hint={"en": "torch.save(obj, path) writes obj to the file at path.",
             "ja": "`torch.save(obj, path)` で `obj` を `path` のファイルに書き出します。"})
def test_file_written(learner):
    if not run(learner, "exists")["exists"]:
        raise Feedback({"en": "After save_checkpoint(...) there was no file at `path`.",
                        "ja": "`save_checkpoint(...)` のあと、`path` にファイルがありませんでした。"},
                       line=learner.line_of("save_checkpoint"))


@check("weights-only-file",
       title={"en": "The file holds model, optimizer and epoch, loadable with weights_only=True",
              "ja": "ファイルに model、optimizer、epoch があり、weights_only=True で読み込める"},
       hint={"en": "Save a dict of state dicts and the epoch; never the model object itself.",
             "ja": "state dict とエポックの辞書を保存しましょう。モデルのオブジェクトそのものは保存しません。"},
       depends=["file-written"])
def test_weights_only_file(learner):
    got = run(learner, "file")
    line = call_line(learner.source, "save_checkpoint", "save", learner.line_of("save_checkpoint"))
    if not got["weights_only"]:
        reason = got["error"].split(". ")[0][:160]  # torch's message goes on for a paragraph
        raise Feedback({"en": "torch.load(path, weights_only=True) refused the file: it holds Python objects, "
                              f"not just tensors ({reason}). Save state dicts, not the model.",
                        "ja": "`torch.load(path, weights_only=True)` がファイルを受け付けませんでした。テンソル以外の Python "
                              f"オブジェクトが入っています（{reason}）。モデルではなく state dict を保存しましょう。"},
                       line=line)
    missing = sorted({"model", "optimizer", "epoch"} - set(got["keys"] or []))
    if missing:
        found = ", ".join(got["keys"][:6]) if got["keys"] else "not a dict"
        raise Feedback({"en": f"The checkpoint dict lacks {', '.join(missing)} (found: {found}).",
                        "ja": f"チェックポイントの辞書に {', '.join(missing)} がありません（あったもの：{found}）。"},
                       line=line)


@check("restores-model", title={"en": "load_checkpoint restores the model's weights",
                                "ja": "load_checkpoint がモデルの重みを復元する"},
       hint={"en": "The model takes its weights back with load_state_dict, from the entry you saved them under.",
             "ja": "モデルは load_state_dict で重みを取り戻します。保存したときの項目から渡しましょう。"},
       depends=["weights-only-file"])
def test_restores_model(restored, reference, learner):
    if "weights_only=True" not in learner.source.replace(" ", ""):
        learner.advise({"en": "Pass weights_only=True to torch.load explicitly: it says that the file may hold "
                              "only tensors and plain data.",
                        "ja": "torch.load には weights_only=True を明示的に渡しましょう。ファイルにはテンソルと"
                              "単純なデータしか入っていないことがはっきりします。"})
    name, gap = largest_gap(restored["model"], reference["model"])
    if gap > 0:
        raise Feedback({"en": f"After load_checkpoint the model's {name} is not the saved one.",
                        "ja": f"load_checkpoint のあと、モデルの {name} が保存したものと違います。"},
                       line=learner.line_of("load_checkpoint"))


@check("restores-optimizer", title={"en": "load_checkpoint restores the optimizer's state",
                                    "ja": "load_checkpoint がオプティマイザの状態を復元する"},
       hint={"en": "The optimizer has a state_dict too, and Adam's running averages live there: restore it as "
                   "you restore the model.",
             "ja": "オプティマイザにも state_dict があり、Adam の移動平均はそこにあります。モデルと同じように復元しましょう。"},
       depends=["weights-only-file"])
def test_restores_optimizer(restored, reference, learner):
    got = restored["optimizer"]
    if len(got) <= 1:  # only "lr": a fresh Adam has no per-parameter state yet
        raise Feedback({"en": "The optimizer came back empty: Adam's step count and running averages were lost.",
                        "ja": "オプティマイザが空のままです。Adam のステップ数と移動平均が失われました。"},
                       line=learner.line_of("load_checkpoint"))
    name, gap = largest_gap(got, reference["optimizer"])
    if gap > 0:
        raise Feedback({"en": f"The optimizer's state {name} differs from the saved one.",
                        "ja": f"オプティマイザの状態 {name} が保存したものと違います。"},
                       line=learner.line_of("load_checkpoint"))


@check("returns-epoch", title={"en": "load_checkpoint returns the saved epoch",
                               "ja": "load_checkpoint が保存したエポックを返す"},
       hint={"en": "The epoch was saved in the dictionary next to the states; the caller needs it back.",
             "ja": "エポックは状態と一緒に辞書へ保存されています。呼び出し側はそれを受け取る必要があります。"},
       depends=["weights-only-file"])
def test_returns_epoch(restored, learner):
    if restored["returned"] != PARAMS["epoch"] or isinstance(restored["returned"], bool):
        raise Feedback({"en": f"Saved with epoch={PARAMS['epoch']}, load_checkpoint returned {restored['returned']!r}.",
                        "ja": f"epoch={PARAMS['epoch']} で保存したのに、load_checkpoint が {restored['returned']!r} を返しました。"},
                       line=learner.line_of("load_checkpoint"))


@check("resumes-exactly", title={"en": "Training resumes exactly where it stopped",
                                 "ja": "止まったところから学習を正確に再開できる"},
       hint={"en": "Both the model and the optimizer must be restored for the next step to match.",
             "ja": "次のステップを一致させるには、モデルとオプティマイザの両方を復元する必要があります。"},
       depends=["restores-model", "restores-optimizer"])
def test_resumes(restored, reference, learner):
    name, gap = largest_gap(restored["resumed"], reference["resumed"])
    if gap > 1e-6:
        raise Feedback({"en": f"One step after restoring, {name} differs from an uninterrupted run by {gap:.3g}.",
                        "ja": f"復元後に 1 ステップ進めると、{name} が中断なしの場合と {gap:.3g} 異なります。"},
                       line=learner.line_of("load_checkpoint"))
