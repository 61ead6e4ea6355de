"""Checks for bigger-grad-accumulation: steps once per group, keeps the gradients, matches a big batch."""

import pytest

from grader.author import Feedback, big_batch_reference, call_line, check, count, windows

PARAMS = {"seed": 5, "data_seed": 20261130, "windows": 3, "accum_steps": 4, "micro_size": 4}
K, GROUPS = PARAMS["accum_steps"], PARAMS["windows"]
ENTRY = "train_accumulated"


@pytest.fixture(scope="module")
def trained(learner):
    return learner.scenario("bigger.accumulate", **PARAMS)


def line_of_call(learner, name):
    return call_line(learner.source, ENTRY, name, learner.line_of(ENTRY))


def largest_gap(got, expected):
    return max(float((got[name] - value).abs().max()) for name, value in expected.items())


# given=True: the untouched starter already passes this check; it earns nothing while it holds and
# costs its point when broken (credit is for the learner's work, and failing work never shows 100 %).
@check("runs", given=True, title={"en": "train_accumulated runs", "ja": "train_accumulated が動く"},
       hint={"en": "Run your function on a tiny model before you submit.",
             "ja": "提出する前に小さなモデルで関数を動かしてみましょう。"})
def test_runs(trained):
    assert trained is not None


@check("step-every-k", title={"en": f"Steps once per {K} micro-batches", "ja": f"マイクロバッチ {K} 個ごとに 1 回更新する"},
       hint={"en": "Call optimizer.step() only when (i + 1) % accum_steps == 0.",
             "ja": "(i + 1) % accum_steps == 0 のときだけ optimizer.step() を呼びましょう。"},
       depends=["runs"])
def test_step_every_k(trained, learner):
    events = trained["events"]
    steps = count(events, "step") + count(events, "step-without-grad")
    if steps != GROUPS:
        raise Feedback({"en": f"{GROUPS * K} micro-batches in groups of {K} should give {GROUPS} "
                              f"optimizer steps; there were {steps}.",
                        "ja": f"{GROUPS * K} 個のマイクロバッチを {K} 個ずつまとめると更新は {GROUPS} 回の"
                              f"はずですが、{steps} 回でした。"},
                       line=line_of_call(learner, "step"))


@check("keeps-accumulated-grads",
       title={"en": "Keeps the gradients of a whole group until the step",
              "ja": "更新までグループ全体の勾配を保つ"},
       hint={"en": "Clear the gradients right after each step, never between the micro-batches of a group.",
             "ja": "勾配は各更新の直後に消し、グループ内のマイクロバッチの間では消さないようにしましょう。"},
       depends=["step-every-k"])
def test_keeps_grads(trained, learner):
    for group in windows(trained["events"]):
        backwards = group[:-1]
        if not backwards or backwards[0] != "backward":
            raise Feedback({"en": "A group started on gradients left over from the previous step: "
                                  "call optimizer.zero_grad() after each step.",
                            "ja": "前の更新の勾配が残ったままグループが始まりました。"
                                  "更新のたびに optimizer.zero_grad() を呼びましょう。"},
                           line=line_of_call(learner, "step"))
        if any(event == "backward" for event in backwards[1:]) or group[-1] == "step-without-grad":
            raise Feedback({"en": "The gradients were cleared inside a group, so the step saw only part of it. "
                                  "Call optimizer.zero_grad() only after optimizer.step().",
                            "ja": "グループの途中で勾配が消され、更新がその一部しか見ていません。"
                                  "optimizer.zero_grad() は optimizer.step() のあとでだけ呼びましょう。"},
                           line=line_of_call(learner, "zero_grad"))


@check("matches-big-batch",
       title={"en": "Weights match one step per big batch", "ja": "大きなバッチで 1 回ずつ更新した重みと一致する"},
       hint={"en": "Divide each micro-batch's loss by accum_steps before backward().",
             "ja": "backward() の前に各マイクロバッチの損失を accum_steps で割りましょう。"},
       depends=["runs"])
def test_matches_big_batch(trained, learner):
    gap = largest_gap(trained["state"], big_batch_reference(PARAMS))
    if gap <= 1e-5:
        return
    line = learner.line_of(ENTRY)
    if largest_gap(trained["state"], big_batch_reference(PARAMS, loss_scale=K)) <= 1e-5:
        raise Feedback({"en": f"The weights moved as if the loss were {K} times too big: the micro-batch "
                              f"gradients add up. Divide each loss by accum_steps ({K}).",
                        "ja": f"損失が {K} 倍大きいかのように重みが動きました。マイクロバッチの勾配は足し合わされる"
                              f"ので、各損失を `accum_steps`（{K}）で割りましょう。"},
                       line=call_line(learner.source, ENTRY, "backward", line))
    raise Feedback({"en": f"The weights differ from one step per group of {K} taken as one batch "
                          f"(largest gap {gap:.3g}).",
                    "ja": f"{K} 個のグループを 1 つのバッチとして更新した場合の重みと異なります（最大 {gap:.3g} の差）。"},
                   line=line)
