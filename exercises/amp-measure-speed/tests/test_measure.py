"""Checks for amp-measure-speed: a fair timing of FP32 against autocast, and the learner's chart.

The starter already passes the checks with given=True (sizes, return shape, CPU memory): they must
pass, but only the timing itself earns points, so the untouched starter scores 0. The learner's
figures are compared with the grader's clock during the same steps; the charts and the table show
the grader's own timing of the learner's train_step (float32 and autocast interleaved, repeated).
"""

import ast
import statistics

import pytest

from grader.amp.clock import timed_loop
from grader.author import CannotVerifyHere, Feedback, check, figures, measurement

# The learner's median must lie within the grader's clock of the same steps: at least the median
# time from each step's forward to the end of its optimizer step (the work an honest clock
# contains), at most the median time from the previous step's end to the next step's forward (all
# an honest clock can contain), each widened by this factor and the upper one by CLOCK_SLACK_S.
# An honest median lies inside without the widening; it leaves room for a mean instead of a
# median on a noisy shared CPU, and still fails invented, constant or rescaled (x0.01) figures.
CLOCK_FACTOR, CLOCK_SLACK_S = 1.5, 1e-4

LABELS = {None: {"en": "float32", "ja": "float32"},
          "bfloat16": {"en": "bfloat16 autocast", "ja": "bfloat16 の autocast"},
          "float16": {"en": "float16 autocast", "ja": "float16 の autocast"}}


@pytest.fixture(scope="module")
def measured(learner):
    """The learner's measurement, run once; its figures go into the results whatever the checks say."""
    result = learner.scenario("measure.amp_speed")
    for figure in charts(result):
        figures.add(figure)
    table = measurement_table(result)
    if table is not None:
        measurement.add(table)
    return result


def _positive(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0


def own_series(result):
    """{dtype: {width: [seconds, ...]}} of the grader's own timing of train_step (runs that finished)."""
    found = {}
    for timing in result.get("own", []):
        if timing["error"] is not None:
            break
        for dtype, seconds in timing["seconds"].items():
            if seconds and all(_positive(s) for s in seconds):
                found.setdefault(None if dtype == "None" else dtype, {})[timing["width"]] = seconds
    return found


def measurement_table(result):
    """Where it was measured, and per width and precision the grader's min / median / max."""
    own = own_series(result)
    if not own:
        return None
    learner_seconds = {(r["width"], r["dtype"]): r["returned"]["seconds"] for r in good_runs(result)}
    peaks = {(t["width"], None if d == "None" else d): mb for t in result.get("own", [])
             for d, mb in t.get("peak_mb", {}).items()}
    rows = []
    for dtype, widths in own.items():
        for width, seconds in sorted(widths.items()):
            learner_s = learner_seconds.get((width, dtype))
            rows.append({"width": width, "precision": dtype or "float32", "repeats": len(seconds),
                         "min_ms": min(seconds) * 1000, "median_ms": statistics.median(seconds) * 1000,
                         "max_ms": max(seconds) * 1000,
                         "learner_ms": learner_s * 1000 if learner_s is not None else None,
                         "peak_mb": peaks.get((width, dtype))})
    machine = measurement.cpu_description()
    bf16 = ("bfloat16" in own) if result["device"] == "cuda" else machine["cpu_bf16_native"]
    return {"device": result["device"], "device_name": result["device_name"],
            "cpu_model": machine["cpu_model"], "cpu_capability": machine["cpu_capability"],
            "cpu_flags": machine["cpu_flags"], "bf16_native": bf16, "threads": result["threads"],
            "torch": machine["torch"], "batch_size": result["batch_size"],
            "rows": rows[:16]}


def good_runs(result):
    return [r for r in result["runs"] if r["error"] is None and r["returned"]
            and r["returned"]["seconds"] is not None and r["returned"]["seconds"] > 0]


def charts(result):
    """Milliseconds per step by width, autocast's speed-up, and (CUDA) peak memory.

    Times are the grader's own medians of the learner's train_step, with whiskers from its
    fastest to its slowest step (the table under the charts gives the figures and the machine);
    without them, the learner's own figures.
    """
    own = own_series(result)
    name = result["device_name"][:40]  # a note is at most 200 characters, or the figure is dropped
    machine = f"{name}, {result['threads']} thread(s)"
    machine_ja = f"{name}、スレッド {result['threads']}"
    spread = {}
    if own:
        peaks = {(t["width"], None if d == "None" else d): mb for t in result.get("own", [])
                 for d, mb in t.get("peak_mb", {}).items()}
        by_dtype = {dtype: {w: {"seconds": statistics.median(s), "peak_mb": peaks.get((w, dtype))}
                            for w, s in widths.items()} for dtype, widths in own.items()}
        spread = {dtype: [[w, min(s) * 1000, max(s) * 1000] for w, s in sorted(widths.items())]
                  for dtype, widths in own.items()}
        where = {"en": f"{machine}, batch {result['batch_size']}: the grader timed your train_step, "
                       f"float32 and autocast in turns; dot: median of 3-9 steps, whisker: fastest "
                       f"to slowest",
                 "ja": f"{machine_ja}、バッチサイズ {result['batch_size']}。採点環境が提出された `train_step` を "
                       f"float32 と autocast で交互に計測。点は 3〜9 ステップの中央値、ひげは最速〜最遅のステップ"}
    else:
        runs = good_runs(result)
        if not runs:
            return []
        where = {"en": f"{machine}, batch {result['batch_size']}: your figures, median of "
                       f"{result['steps']} steps after {result['warmup']} warm-up steps",
                 "ja": f"{machine_ja}、バッチサイズ {result['batch_size']}。提出された計測値で、ウォームアップ "
                       f"{result['warmup']} ステップの後の {result['steps']} ステップの中央値です"}
        by_dtype = {}
        for run in runs:
            by_dtype.setdefault(run["dtype"], {})[run["width"]] = run["returned"]
    time_series = [{"name": LABELS[dtype], "points": [[w, got["seconds"] * 1000]
                                                      for w, got in sorted(points.items())],
                    **({"spread": spread[dtype]} if dtype in spread else {})}
                   for dtype, points in by_dtype.items()]
    out = [{"id": "step-time", "title": {"en": "Time per training step", "ja": "学習 1 ステップの時間"},
            "x_label": {"en": "hidden width", "ja": "層幅"},
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
                    "x_label": {"en": "hidden width", "ja": "層幅"},
                    "y_label": {"en": "float32 time ÷ autocast time", "ja": "float32 の時間 ÷ autocast の時間"},
                    "x_scale": "log",
                    "note": {"en": "Above 1: autocast is faster. Below 1: it is slower: its casts, or 16-bit matrix products the CPU has no instructions for.",
                             "ja": "1 より上なら autocast のほうが速く、1 より下なら遅くなっています（キャストの手間か、CPU に専用命令のない 16 ビットの行列積が原因です）。"},
                    "series": [s for s in speedups if s["points"]]})
    memory = [{"name": LABELS[dtype], "points": [[w, got["peak_mb"]] for w, got in sorted(points.items())
                                                 if got["peak_mb"] is not None]}
              for dtype, points in by_dtype.items()]
    if result["device"] == "cuda" and any(s["points"] for s in memory):
        out.append({"id": "peak-memory", "title": {"en": "Peak CUDA memory per step",
                                                   "ja": "1 ステップのピーク CUDA メモリ"},
                    "x_label": {"en": "hidden width", "ja": "層幅"},
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
                                  f"（層幅 {run['width']}、{LABELS[run['dtype']]['ja']}）。"},
                           line=error.get("line") or learner.line_of("time_steps"))


@check("sizes-chosen",
       title={"en": "WIDTHS and BATCH_SIZE size a model the grader can run",
              "ja": "WIDTHS と BATCH_SIZE が採点環境で動かせる大きさになっている"},
       hint={"en": "A small and a large width side by side show the most, for example [64, 1024].",
             "ja": "小さな層幅と大きな層幅を並べると違いがよくわかります。たとえば [64, 1024] です。"},
       given=True)
def test_sizes(measured, learner):
    if measured["sizes_problem"]:
        raise Feedback({"en": measured["sizes_problem"] + ".",
                        "ja": f"`WIDTHS` と `BATCH_SIZE` を見直してください（{measured['sizes_problem']}）。"},
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
             "ja": "ループを 2 つ書きます。`range(warmup)` は計測せず、`range(steps)` の各ステップで"
                   "順伝播、損失、`backward()`、`optimizer.step()` までを計測します。"},
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
             "ja": "`amp_dtype` が `None` なら比較の基準の float32 で、autocast は使いません。それ以外は "
                   "入力のデバイスの種類と `amp_dtype` を渡した `torch.autocast` の中で計算します。"},
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


@check("figures-match-clock",
       title={"en": "Your figures agree with the grader's clock",
              "ja": "提出された計測値が採点環境での計測と一致する"},
       hint={"en": "Return the median of the per-step times you measured with time.perf_counter(), "
                   "in seconds, as they came out: no scaling, no rounding to a fixed number.",
             "ja": "time.perf_counter() で測ったステップごとの時間の中央値を、秒のまま返しましょう。"
                   "倍率をかけたり決まった数にしたりしてはいけません。"},
       depends=["warmup-then-steps"])
def test_figures_match_clock(measured, learner):
    for run in measured["runs"]:
        seen, clock = run["returned"]["seconds"], run["clock"]
        if clock is None:
            raise Feedback({"en": f"The grader could not pair each forward pass with an optimizer step "
                                  f"(width {run['width']}, {LABELS[run['dtype']]['en']}), so it cannot "
                                  f"compare your figure with its clock.",
                            "ja": f"順伝播とオプティマイザのステップを 1 対 1 に対応づけられなかったため"
                                  f"（層幅 {run['width']}、{LABELS[run['dtype']]['ja']}）、提出された計測値を"
                                  f"採点環境での計測と比べられません。"},
                           line=learner.line_of("time_steps"))
        low = clock["inner_median"] / CLOCK_FACTOR
        high = clock["outer_median"] * CLOCK_FACTOR + CLOCK_SLACK_S
        if not low <= seen <= high:
            ms = {"seen": f"{seen * 1000:.4g}", "inner": f"{clock['inner_median'] * 1000:.4g}",
                  "outer": f"{clock['outer_median'] * 1000:.4g}", "low": f"{low * 1000:.4g}",
                  "high": f"{high * 1000:.4g}"}
            which = "shorter" if seen < low else "longer"
            which_ja = "短すぎ" if seen < low else "長すぎ"
            raise Feedback({"en": f"Width {run['width']}, {LABELS[run['dtype']]['en']}: you returned "
                                  f"{ms['seen']} ms per step, but the grader's clock saw your timed steps "
                                  f"take {ms['inner']} ms of training (median) and {ms['outer']} ms "
                                  f"between one step and the next: your figure is {which} than the median "
                                  f"of any honest timing of them (accepted: {ms['low']} to {ms['high']} ms).",
                            "ja": f"層幅 {run['width']}、{LABELS[run['dtype']]['ja']}：返された値は 1 ステップ "
                                  f"{ms['seen']} ms ですが、採点環境での計測では、計測したステップの学習が "
                                  f"{ms['inner']} ms（中央値）、ステップから次のステップまでが {ms['outer']} ms "
                                  f"でした。正直に測った時間の中央値としては{which_ja}ます（許容範囲は {ms['low']}〜"
                                  f"{ms['high']} ms）。"},
                           line=learner.line_of("time_steps"))


def static_reading(source):
    """What reading the code says about the CUDA calls, for a CPU grader's note ({} if nothing)."""
    needed = ("torch.cuda.synchronize", "torch.cuda.reset_peak_memory_stats",
              "torch.cuda.max_memory_allocated")
    missing = [name for name in needed if name not in calls_in(source, *needed)]
    if missing:
        return {"en": f" Reading your code: it never calls {', '.join(missing)}.",
                "ja": f" コードを読むと、{', '.join(missing)} を呼んでいません。"}
    loop = timed_loop(source)
    if loop is None:
        return {"en": " Reading your code: no loop reads time.perf_counter() before and after each step.",
                "ja": " コードを読むと、各ステップの前後で time.perf_counter() を読むループが見つかりません。"}
    if loop.unsynced_start or loop.unsynced_stop:
        return {"en": f" Reading your code: in the timed loop (line {loop.line}) torch.cuda.synchronize() "
                      f"does not come before the clock {'starts' if loop.unsynced_start else 'stops'}.",
                "ja": f" コードを読むと、計測のループ（{loop.line} 行目）で計測を"
                      f"{'始める' if loop.unsynced_start else '終える'}前に torch.cuda.synchronize() を"
                      f"呼んでいません。"}
    return {}


@check("cuda-synchronize",
       title={"en": "On CUDA the clock waits for the GPU, and the memory peak is reset first",
              "ja": "CUDA では GPU の処理を待ってから時刻を読み、ピークメモリを先にリセットする"},
       hint={"en": "GPU work is asynchronous: call torch.cuda.synchronize() before starting and before "
                   "stopping the clock, and torch.cuda.reset_peak_memory_stats() before the timed steps.",
             "ja": "GPU の処理は非同期です。計測を始める前と終える前に torch.cuda.synchronize() を、"
                   "計測するステップの前に torch.cuda.reset_peak_memory_stats() を呼びましょう。"},
       depends=["returns-seconds"])
def test_cuda_synchronize(measured, learner):
    if measured["device"] != "cuda":
        note = static_reading(learner.source)
        reading_note = note.get("ja", "")
        raise CannotVerifyHere({
            "en": "This grader has no GPU, so it cannot run your CUDA branch and cannot verify this "
                  "check here: it counts neither for nor against you. A GPU grader traces each "
                  "torch.cuda.synchronize() in your timed loop." + note.get("en", ""),
            "ja": "この採点環境には GPU がないため、CUDA の経路を実行できず、このチェックはここでは確かめられ"
                  "ません。得点にも減点にもなりません。GPU の採点環境では、計測のループの中の "
                  "`torch.cuda.synchronize()` を実行時に追跡します。" + reading_note})
    steps = measured["steps"]
    for run in measured["runs"]:
        clock = run["clock"]
        if clock is None:
            continue  # figures-match-clock says why
        if clock["synced_start"] < steps or clock["synced_stop"] < steps:
            start_ok = clock["synced_start"] >= steps
            raise Feedback({"en": f"torch.cuda.synchronize() ran between one step and the next clock start "
                                  f"in {clock['synced_start']} of {steps} timed steps, and between a step "
                                  f"and its clock stop in {clock['synced_stop']}: "
                                  + ("call it before starting the clock of every step."
                                     if not start_ok else
                                     "call it after each step, before stopping the clock, or you time "
                                     "how long it takes to queue the work, not to do it."),
                            "ja": f"計測した {steps} ステップのうち、計測を始める前に torch.cuda.synchronize() "
                                  f"が実行されたのは {clock['synced_start']} 回、ステップの後で計測を終える前は "
                                  f"{clock['synced_stop']} 回でした。"
                                  + ("各ステップで計測を始める前に呼びましょう。" if not start_ok else
                                     "各ステップの後、計測を終える前に呼びましょう。そうしないと処理の時間"
                                     "ではなく、処理を予約する時間を測ってしまいます。")},
                           line=learner.line_of("time_steps"))
        if not clock["reset_before_timing"]:
            raise Feedback({"en": "torch.cuda.reset_peak_memory_stats() did not run between the warm-up and "
                                  "the first timed step, so the peak includes what ran before.",
                            "ja": "ウォームアップと最初の計測ステップの間で torch.cuda.reset_peak_memory_stats() "
                                  "が実行されていないため、ピークにそれ以前の処理が含まれます。"},
                           line=learner.line_of("time_steps"))


@check("each-step-trains",
       title={"en": "Each step clears the gradients, runs backward, then steps the optimizer",
              "ja": "各ステップで勾配をクリアし、逆伝播を実行してからオプティマイザのステップを実行する"},
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
