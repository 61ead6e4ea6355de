"""The learner's loss-scale timeline: scaler.get_scale() at each scaler.step, skipped steps marked.

Built in the harness from the trace the AMP scenarios already record ("scale" events carry
the scale in use, "scaler-step" events whether the optimizer really stepped), so the tracer
needs no extra hook. One series per GradScaler object: a loop that makes a new scaler every
iteration shows up as many one-point series, each starting again at 65536.
"""

from __future__ import annotations

from typing import Any

from grader import figures

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
        "title": {"en": "Your loss scale, step by step", "ja": "あなたのロススケールの推移"},
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
        figures.add(figure)
