"""The learner's loss-scale timeline: scaler.get_scale() at each scaler.step, skipped steps marked.

Built in the harness from the trace the AMP scenarios already record ("scale" events carry
the scale in use, "scaler-step" events whether the optimizer really stepped), so the tracer
needs no extra hook. One series per GradScaler object: a loop that makes a new scaler every
iteration shows up as many one-point series, each starting again at 65536.
"""

from __future__ import annotations

from typing import Any

from grader import figures

FLOAT16_MAX = 65504.0

MAX_SCALERS = 6
CRASHED_NOTE = {"en": "The marked step stopped with an error in scaler.step (the checks above say why); it was "
                      "not skipped for an inf or NaN gradient, and the run ended there.",
                "ja": "印のあるステップは scaler.step でエラーになり停止しました（理由は上のチェックを参照）。"
                      "勾配の inf や NaN によるスキップではなく、実行はそこで終わりました。"}


def scale_timeline(trace: dict[str, Any]) -> dict[str, Any] | None:
    """A figure of the scale per optimizer step, or None when no enabled scaler stepped."""
    events = trace.get("events") if isinstance(trace, dict) else None
    if not isinstance(events, list):
        return None
    in_use: dict[int, float] = {}
    series: dict[int, list[list[float]]] = {}
    marks: list[dict[str, Any]] = []
    step = 0
    for event in events:
        if not isinstance(event, dict) or not event.get("enabled"):
            continue
        scaler = event.get("scaler")
        if event.get("kind") == "scale" and isinstance(event.get("factor"), (int, float)):
            in_use[scaler] = float(event["factor"])
        elif event.get("kind") == "scaler-step" and scaler in in_use:
            step += 1
            if scaler not in series and len(series) >= MAX_SCALERS:
                continue
            series.setdefault(scaler, []).append([step, in_use[scaler]])
            if event.get("raised"):  # a crash is not a skip: saying inf/NaN would teach the wrong cause
                marks.append({"x": step, "label": {"en": "stopped: scaler.step raised an error",
                                                   "ja": "停止：scaler.step でエラー"}})
            elif event.get("stepped") is False:
                marks.append({"x": step, "label": {"en": "skipped: inf/NaN gradient",
                                                   "ja": "スキップ：勾配に inf/NaN"}})
    if not series:
        return None
    many = len(series) > 1
    crashed = any(mark["label"]["en"].startswith("stopped") for mark in marks)
    figure = {
        "id": "loss-scale",
        "title": {"en": "Your loss scale, step by step", "ja": "提出されたループのロススケールの推移"},
        "x_label": {"en": "optimizer step (scaler.step)", "ja": "オプティマイザのステップ（scaler.step）"},
        "y_label": {"en": "scaler.get_scale()", "ja": "scaler.get_scale()"},
        "y_scale": "log",
        "note": {"en": "Each GradScaler is one line; marked steps were skipped. More than one line "
                       "means a new GradScaler was made during the run." if many else
                       "Marked steps were skipped because a gradient was inf or NaN; the scale "
                       "halves after each and doubles after 2000 clean steps.",
                 "ja": "GradScaler 1 つが 1 本の線で、印のあるステップはスキップされました。線が 2 本以上"
                       "あるのは、実行中に新しい GradScaler が作られたということです。" if many else
                       "印のあるステップは、勾配に inf や NaN があったためスキップされました。スケールは"
                       "スキップのたびに半分になり、正常なステップが 2000 回続くと 2 倍になります。"},
        "series": [{"name": {"en": f"GradScaler {i}", "ja": f"GradScaler {i}"}, "points": points}
                   for i, points in enumerate(series.values(), 1)],
        "marks": marks[: figures.MAX_MARKS],
    }
    if crashed:  # the skip note would teach the wrong cause
        figure["note"] = CRASHED_NOTE
    return figure


def publish(trace: dict[str, Any]) -> None:
    """Add the timeline of a traced run to this grading's figures, when there is one."""
    figure = scale_timeline(trace)
    if figure is not None:
        cause = skip_cause(trace.get("events") or [])
        if cause is not None and "note" in figure and figure["note"] is not CRASHED_NOTE:
            figure["note"] = cause
        figures.add(figure)


def skip_cause(events: list[Any]) -> dict[str, str] | None:
    """Where the inf came from, when an enabled scaler skipped steps: a sentence, or None.

    Read from the first skipped step's batch: the forward output and the loss (inf already), the
    loss's dtype against the scale (a float16 loss cannot hold its own gradient, the scale, once
    that is above 65504), and the gradient that reached the model's output (inf there: it came
    from the loss's backward; finite there: from the model's own backward).
    """
    # The trace comes from the learner's process: keep only well-formed events, in order.
    events = [e for e in events if isinstance(e, dict) and isinstance(e.get("seq"), int)]
    steps = [e for e in events if e.get("kind") == "scaler-step" and e.get("enabled") and not e.get("raised")]
    skipped = [e for e in steps if e.get("stepped") is False]
    if not skipped:
        return None
    first = skipped[0]
    batch = [e for e in events if e.get("kind") == "batch" and e["seq"] < first["seq"]]
    start = batch[-1]["seq"] if batch else -1
    window = [e for e in events if start < e["seq"] < first["seq"]]
    forwards = [e for e in window if e.get("kind") == "forward"]
    losses = [e for e in window if e.get("kind") == "loss"]
    scales = [e for e in window if e.get("kind") == "scale" and isinstance(e.get("factor"), (int, float))]
    scale = float(scales[-1]["factor"]) if scales else None
    where_en, where_ja = _origin(forwards, losses, scale)
    count, total = len(skipped), len(steps)
    were = "was" if count == 1 else "were"
    return {"en": f"{count} of {total} optimizer steps {were} skipped because the gradients held inf or NaN; "
                  f"the weights only show it. {where_en}",
            "ja": f"{total} 回中 {count} 回のステップが、勾配に inf や NaN があったためスキップされました（重みの差は"
                  f"その結果です）。{where_ja}"}


def _origin(forwards: list[dict], losses: list[dict], scale: float | None) -> tuple[str, str]:
    bad_forward = next((f for f in forwards if f.get("output_finite") is False), None)
    if bad_forward is not None:
        dtype = bad_forward.get("autocast_dtype") or "float32"
        line = bad_forward.get("line")
        return (f"The first inf is in the forward pass: the model's output on line {line} ({dtype}) is already "
                "inf or NaN.",
                f"最初の inf は順伝播にあります。{line} 行目のモデルの出力（{dtype}）がすでに inf か NaN です。")
    bad_loss = next((e for e in losses if e.get("finite") is False), None)
    if bad_loss is not None:
        line = bad_loss.get("line")
        return (f"The first inf is in the loss: the loss on line {line} is already inf or NaN.",
                f"最初の inf は損失にあります。{line} 行目の損失がすでに inf か NaN です。")
    half = next((e for e in losses if e.get("dtype") == "float16"), None)
    if half is not None and scale is not None and scale > FLOAT16_MAX:
        line = half.get("line")
        return (f"The first inf is the loss's own gradient: the loss on line {line} is float16, and backward "
                f"starts from the loss scale, {scale:g}, which is above float16's largest value {FLOAT16_MAX:g}. "
                "A loss computed inside autocast is float32 and holds it.",
                f"最初の inf は損失自身の勾配です。{line} 行目の損失が float16 で、逆伝播はロススケール {scale:g} "
                f"から始まりますが、これは float16 の最大値 {FLOAT16_MAX:g} を超えています。autocast の中で計算した"
                "損失は float32 なので、この値を保持できます。")
    arrived = next((f for f in forwards if f.get("grad_finite") is False), None)
    if arrived is not None:
        line = arrived.get("line")
        return (f"The first inf is in the loss's backward: the gradient reaching the model's output (line "
                f"{line}) is already inf.",
                f"最初の inf は損失の逆伝播にあります。モデルの出力（{line} 行目）に届いた勾配がすでに inf です。")
    line = forwards[0].get("line") if forwards else None
    return (f"The first inf is in the model's backward pass (the model runs on line {line}): the gradient "
            "reaching its output was finite.",
            f"最初の inf はモデルの逆伝播の中にあります（モデルは {line} 行目で実行）。出力に届いた勾配は"
            "有限でした。")
