"""Checks for amp-measure-speed: a fair timing of FP32 against autocast, and the learner's chart.

The starter already passes the checks with given=True (sizes, return shape, CPU memory): they must
pass, but only the timing itself earns points, so the untouched starter scores 0.
"""

import ast

import pytest

from grader.amp.clock import timed_loop
from grader.author import Feedback, check, figures

LABELS = {None: {"en": "float32", "ja": "float32"},
          "bfloat16": {"en": "bfloat16 autocast", "ja": "bfloat16 の autocast"},
          "float16": {"en": "float16 autocast", "ja": "float16 の autocast"}}


@pytest.fixture(scope="module")
def measured(learner):
    """The learner's measurement, run once; its figures go into the results whatever the checks say."""
    result = learner.scenario("measure.amp_speed")
    for figure in charts(result):
        figures.add(figure)
    return result


def good_runs(result):
    return [r for r in result["runs"] if r["error"] is None and r["returned"]
            and r["returned"]["seconds"] is not None and r["returned"]["seconds"] > 0]


def charts(result):
    """Milliseconds per step by width, autocast's speed-up, and (CUDA) peak memory."""
    runs = good_runs(result)
    if not runs:
        return []
    where = {"en": f"{result['device_name']}, batch {result['batch_size']}, median of "
                   f"{result['steps']} steps after {result['warmup']} warm-up steps",
             "ja": f"{result['device_name']}、バッチサイズ {result['batch_size']}、ウォームアップ "
                   f"{result['warmup']} ステップの後の {result['steps']} ステップの中央値"}
    by_dtype = {}
    for run in runs:
        by_dtype.setdefault(run["dtype"], {})[run["width"]] = run["returned"]
    time_series = [{"name": LABELS[dtype], "points": [[w, got["seconds"] * 1000]
                                                      for w, got in sorted(points.items())]}
                   for dtype, points in by_dtype.items()]
    out = [{"id": "step-time", "title": {"en": "Time per training step", "ja": "学習 1 ステップの時間"},
            "x_label": {"en": "hidden width", "ja": "隠れ層の幅"},
            "y_label": {"en": "milliseconds per step", "ja": "1 ステップのミリ秒"},
            "x_scale": "log", "y_scale": "log", "note": where, "series": time_series}]
    fp32 = by_dtype.get(None, {})
    speedups = [{"name": LABELS[dtype],
                 "points": [[w, fp32[w]["seconds"] / got["seconds"]]
                            for w, got in sorted(points.items()) if w in fp32]}
                for dtype, points in by_dtype.items() if dtype is not None]
    if any(s["points"] for s in speedups):
        out.append({"id": "speedup", "title": {"en": "Speed-up of autocast over float32",
                                               "ja": "float32 に対する autocast の速度比"},
                    "x_label": {"en": "hidden width", "ja": "隠れ層の幅"},
                    "y_label": {"en": "float32 time ÷ autocast time", "ja": "float32 の時間 ÷ autocast の時間"},
                    "x_scale": "log",
                    "note": {"en": "Above 1: autocast is faster. Below 1: the casts cost more than they save.",
                             "ja": "1 より上なら autocast のほうが速く、1 より下ならキャストの手間が節約分を上回っています。"},
                    "series": [s for s in speedups if s["points"]]})
    memory = [{"name": LABELS[dtype], "points": [[w, got["peak_mb"]] for w, got in sorted(points.items())
                                                 if got["peak_mb"] is not None]}
              for dtype, points in by_dtype.items()]
    if result["device"] == "cuda" and any(s["points"] for s in memory):
        out.append({"id": "peak-memory", "title": {"en": "Peak CUDA memory per step",
                                                   "ja": "1 ステップのピーク CUDA メモリ"},
                    "x_label": {"en": "hidden width", "ja": "隠れ層の幅"},
                    "y_label": {"en": "MiB (max_memory_allocated)", "ja": "MiB（max_memory_allocated）"},
                    "x_scale": "log", "series": [s for s in memory if s["points"]]})
    return out


def calls_in(source, *names):
    """Which of the dotted call names (e.g. torch.cuda.synchronize) the source calls."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return set()
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            found.add(ast.unparse(node.func))
    return {name for name in names if name in found}


def first_error(result, learner):
    for run in result["runs"]:
        if run["error"] is not None:
            error = run["error"]
            raise Feedback({"en": f"time_steps raised {error['type']}: {error['message']} "
                                  f"(width {run['width']}, {LABELS[run['dtype']]['en']}).",
                            "ja": f"time_steps で {error['type']}: {error['message']} が発生しました"
                                  f"（幅 {run['width']}、{LABELS[run['dtype']]['ja']}）。"},
                           line=error.get("line") or learner.line_of("time_steps"))


@check("sizes-chosen",
       title={"en": "WIDTHS and BATCH_SIZE size a model the grader can run",
              "ja": "WIDTHS と BATCH_SIZE が採点環境で動かせる大きさになっている"},
       hint={"en": "A small and a large width side by side show the most, for example [64, 1024].",
             "ja": "小さな幅と大きな幅を並べると違いがよくわかります。たとえば [64, 1024] です。"},
       given=True)
def test_sizes(measured, learner):
    if measured["sizes_problem"]:
        raise Feedback({"en": measured["sizes_problem"] + ".",
                        "ja": "WIDTHS と BATCH_SIZE を見直してください（" + measured["sizes_problem"] + "）。"},
                       line=learner.line_of("time_steps"))


@check("returns-seconds",
       title={"en": "time_steps returns {\"seconds\": ..., \"peak_mb\": ...} for every run",
              "ja": "time_steps がどの実行でも {\"seconds\": ..., \"peak_mb\": ...} を返す"},
       hint={"en": "Return a dict; seconds is the median of the timed steps, a positive float.",
             "ja": "辞書を返しましょう。seconds は計測したステップの中央値で、正の float です。"},
       depends=["sizes-chosen"],
       given=True)
def test_returns_seconds(measured, learner):
    if measured["missing"]:
        raise Feedback({"en": "time_steps is not defined.", "ja": "time_steps が定義されていません。"})
    first_error(measured, learner)
    for run in measured["runs"]:
        got = run["returned"]
        if got is None:
            kind = run.get("returned_type", "nothing")
            raise Feedback({"en": f"time_steps returned {kind}, not a dict.",
                            "ja": f"time_steps の戻り値が辞書ではなく {kind} です。"},
                           line=learner.line_of("time_steps"))
        if got["seconds"] is None or got["seconds"] <= 0:
            raise Feedback({"en": "\"seconds\" must be a positive, finite number of seconds per step.",
                            "ja": "\"seconds\" は 1 ステップあたりの秒数で、正の有限の数でなければなりません。"},
                           line=learner.line_of("time_steps"))


@check("warmup-then-steps",
       title={"en": "Warm-up steps run first, then every timed step trains",
              "ja": "最初にウォームアップのステップ、続いて計測するステップが学習する"},
       hint={"en": "Two loops: range(warmup) untimed, then range(steps), each timed step a whole "
                   "training step (forward, loss, backward, optimizer.step()).",
             "ja": "ループを 2 つ書きます。range(warmup) は計測せず、range(steps) の各ステップで"
                   "順伝播、損失、backward、optimizer.step() までを計測します。"},
       depends=["returns-seconds"])
def test_warmup_then_steps(measured, learner):
    want = measured["warmup"] + measured["steps"]
    for run in measured["runs"]:
        if run["forwards"] != want or run["steps"] != want:
            raise Feedback({"en": f"With warmup={measured['warmup']} and steps={measured['steps']} "
                                  f"the model should train {want} times; it ran {run['forwards']} "
                                  f"forward passes and {run['steps']} optimizer steps.",
                            "ja": f"warmup={measured['warmup']}、steps={measured['steps']} なら {want} 回"
                                  f"学習するはずですが、順伝播は {run['forwards']} 回、オプティマイザの"
                                  f"ステップは {run['steps']} 回でした。"},
                           line=learner.line_of("time_steps"))


@check("autocast-when-asked",
       title={"en": "Autocast with amp_dtype, plain float32 without it",
              "ja": "amp_dtype があれば autocast、なければ普通の float32"},
       hint={"en": "amp_dtype None means the float32 baseline: no autocast at all. Otherwise "
                   "torch.autocast(device_type=inputs.device.type, dtype=amp_dtype).",
             "ja": "amp_dtype が None なら比較の基準の float32 で、autocast は使いません。それ以外は "
                   "torch.autocast(device_type=inputs.device.type, dtype=amp_dtype) です。"},
       depends=["returns-seconds"])
def test_autocast_when_asked(measured, learner):
    for run in measured["runs"]:
        want = [[run["dtype"] is not None, run["dtype"] or "float32"]]
        if run["autocast"] != want:
            seen = ", ".join(dtype if on else "no autocast" for on, dtype in run["autocast"]) or "nothing"
            raise Feedback({"en": f"Asked for {LABELS[run['dtype']]['en']}, the model's forward pass "
                                  f"ran with: {seen}.",
                            "ja": f"{LABELS[run['dtype']]['ja']} を指定したのに、順伝播は {seen} で"
                                  f"実行されました。"},
                           line=learner.line_of("train_step") or learner.line_of("time_steps"))


@check("memory-honest",
       title={"en": "Peak memory from CUDA's counters, None on a CPU",
              "ja": "ピークメモリは CUDA のカウンタから、CPU では None"},
       hint={"en": "PyTorch has no peak-memory counter for the CPU: return None there rather than "
                   "a number that means something else.",
             "ja": "PyTorch には CPU のピークメモリのカウンタがありません。別の意味の数を返さず、None を返しましょう。"},
       depends=["returns-seconds"],
       given=True)
def test_memory_honest(measured, learner):
    for run in measured["runs"]:
        got = run["returned"]
        if measured["device"] == "cpu" and not got["peak_is_none"]:
            raise Feedback({"en": "On a CPU, \"peak_mb\" should be None: torch.cuda.max_memory_allocated() "
                                  "only counts CUDA memory.",
                            "ja": "CPU では \"peak_mb\" は None にしましょう。torch.cuda.max_memory_allocated() "
                                  "が数えるのは CUDA のメモリだけです。"},
                           line=learner.line_of("time_steps"))
        if measured["device"] == "cuda" and not (got["peak_mb"] and got["peak_mb"] > 0):
            raise Feedback({"en": "On CUDA, \"peak_mb\" should be torch.cuda.max_memory_allocated() / 2**20.",
                            "ja": "CUDA では \"peak_mb\" を torch.cuda.max_memory_allocated() / 2**20 にしましょう。"},
                           line=learner.line_of("time_steps"))


@check("cuda-synchronize",
       title={"en": "On CUDA the clock waits for the GPU, and the memory peak is reset first",
              "ja": "CUDA では時計が GPU を待ち、メモリのピークを先にリセットする"},
       hint={"en": "GPU work is asynchronous: call torch.cuda.synchronize() before starting and before "
                   "stopping the clock, and torch.cuda.reset_peak_memory_stats() before the timed steps.",
             "ja": "GPU の処理は非同期です。時計を動かす前と止める前に torch.cuda.synchronize() を、"
                   "計測するステップの前に torch.cuda.reset_peak_memory_stats() を呼びましょう。"},
       depends=["returns-seconds"])
def test_cuda_synchronize(measured, learner):
    needed = ("torch.cuda.synchronize", "torch.cuda.reset_peak_memory_stats",
              "torch.cuda.max_memory_allocated")
    missing = [name for name in needed if name not in calls_in(learner.source, *needed)]
    if missing:
        raise Feedback({"en": f"Your code never calls {', '.join(missing)}. A CPU grader cannot run the "
                              f"CUDA path, so it reads your code; on a GPU it would time the wrong thing.",
                        "ja": f"{', '.join(missing)} を呼んでいません。CPU の採点環境では CUDA の経路を実行"
                              f"できないのでコードを読んで確かめます。GPU では誤ったものを計測してしまいます。"},
                       line=learner.line_of("time_steps"))
    loop = timed_loop(learner.source)
    if loop is None:
        raise Feedback({"en": "No loop reads time.perf_counter() before and after each timed step, so "
                              "the grader cannot tell where the clock starts and stops.",
                        "ja": "計測するステップごとに前後で time.perf_counter() を読むループが見つからないため、"
                              "時計をどこで動かしどこで止めているか確かめられません。"},
                       line=learner.line_of("time_steps"))
    if loop.unsynced_start:
        raise Feedback({"en": "In the timed loop, torch.cuda.synchronize() does not come before the clock "
                              "starts, so on a GPU the step would be timed while earlier work still runs.",
                        "ja": "計測のループで、時計を動かす前に torch.cuda.synchronize() を呼んでいません。"
                              "GPU では前の処理がまだ動いている間に計測が始まってしまいます。"},
                       line=loop.start_line)
    if loop.unsynced_stop:
        raise Feedback({"en": "In the timed loop, torch.cuda.synchronize() does not come between the step and "
                              "the clock stopping, so on a GPU you would time how long it takes to queue "
                              "the work, not to do it.",
                        "ja": "計測のループで、ステップの後、時計を止める前に torch.cuda.synchronize() を"
                              "呼んでいません。GPU では処理の時間ではなく、処理を予約する時間を測ってしまいます。"},
                       line=loop.stop_line)
    if measured["device"] == "cuda":
        for run in measured["runs"]:
            if run["syncs"] < 2 * measured["steps"]:
                raise Feedback({"en": f"torch.cuda.synchronize() ran {run['syncs']} times for "
                                      f"{measured['steps']} timed steps: call it before starting and "
                                      f"before stopping the clock of every step.",
                                "ja": f"計測する {measured['steps']} ステップに対して torch.cuda.synchronize() は "
                                      f"{run['syncs']} 回でした。各ステップで時計を動かす前と止める前に呼びましょう。"},
                               line=learner.line_of("time_steps"))


@check("each-step-trains",
       title={"en": "Each step clears the gradients, runs backward, then steps the optimizer",
              "ja": "各ステップで勾配を消し、backward を実行してからオプティマイザを進める"},
       hint={"en": "train_step keeps its three training lines in order: optimizer.zero_grad(), then "
                   "loss.backward(), then optimizer.step(). A timing of anything less is not a training step.",
             "ja": "train_step の 3 行は順番どおりに残しましょう。optimizer.zero_grad()、loss.backward()、"
                   "optimizer.step() の順です。どれかが欠けると学習 1 ステップの時間にはなりません。"},
       depends=["returns-seconds"],
       given=True)
def test_each_step_trains(measured, learner):
    line = learner.line_of("train_step") or learner.line_of("time_steps")
    for run in measured["runs"]:
        if run["backwards"] < run["forwards"]:
            raise Feedback({"en": f"{run['forwards']} forward passes but {run['backwards']} backward passes: "
                                  f"a step without loss.backward() times only half the work.",
                            "ja": f"順伝播は {run['forwards']} 回なのに逆伝播は {run['backwards']} 回でした。"
                                  f"loss.backward() のないステップでは仕事の半分しか測れません。"},
                           line=line)
        if run["steps_before_backward"]:
            raise Feedback({"en": "optimizer.step() ran before loss.backward() in a step, so it used the "
                                  "previous step's gradients (or none).",
                            "ja": "あるステップで optimizer.step() が loss.backward() より先に実行され、前のステップの"
                                  "勾配（または勾配なし）で更新しました。"},
                           line=line)
        if run["stale_gradients"]:
            raise Feedback({"en": f"In {run['stale_gradients']} steps backward added to the previous step's "
                                  f"gradients: call optimizer.zero_grad() in every step.",
                            "ja": f"{run['stale_gradients']} 回のステップで、逆伝播が前のステップの勾配に足し込まれ"
                                  f"ました。毎ステップ optimizer.zero_grad() を呼びましょう。"},
                           line=line)
