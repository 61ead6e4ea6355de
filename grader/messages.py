"""Learner-facing words for whole-run errors, in English and Japanese."""

from __future__ import annotations

from grader.testing import localize

RUN_ERRORS: dict[str, dict[str, str]] = {
    "syntax": {
        "en": "Python could not read your code: {detail} (line {line}). Fix this line first; "
              "nothing else was checked.",
        "ja": "{line} 行目のコードを Python が読み込めませんでした（{detail}）。"
              "まずこの行を直してください。ほかのチェックは実行されていません。",
    },
    "runtime": {
        "en": "Your code stopped with {detail}{where}. Read the traceback in the output below.",
        "ja": "コードが {detail} で停止しました{where}。下の出力のトレースバックを確認してください。",
    },
    "timeout": {
        "en": "Your code did not finish within {limit} seconds, so it was stopped. "
              "Look for a loop that never ends or work repeated far more often than needed.",
        "ja": "コードが {limit} 秒以内に終わらなかったため停止しました。"
              "終わらないループや、必要以上に繰り返している処理がないか確認してください。",
    },
    "memory": {
        "en": "Your code used more than the {limit} MB of memory it may use, so it was stopped. "
              "Look for tensors or lists that keep growing.",
        "ja": "コードが使えるメモリ（{limit} MB）を超えたため停止しました。"
              "大きくなり続けるテンソルやリストがないか確認してください。",
    },
    "output-limit": {
        "en": "Your code printed far more than {limit} KB of output, so it was stopped. "
              "Remove prints inside loops.",
        "ja": "コードの出力が {limit} KB を大きく超えたため停止しました。"
              "ループ内の print を取り除いてください。",
    },
    "stopped": {
        "en": "You stopped your code after {seconds} seconds.",
        "ja": "{seconds} 秒後にコードを停止しました。",
    },
    "internal": {
        "en": "The grader itself failed; this is not your fault and does not count against you. "
              "Please submit again later. ({detail})",
        "ja": "採点システム側で問題が起きました。提出されたコードの誤りではなく、成績にも影響しません。"
              "時間をおいてもう一度提出してください。（{detail}）",
    },
    "authoring": {
        "en": "This exercise's own tests are broken (an authoring error); this is not your fault and "
              "does not count against you. The instructors are told. ({detail})",
        "ja": "この演習のテスト自体に誤りがあります（作成者側の誤り）。提出されたコードの誤りではなく、成績にも影響"
              "しません。講師に伝わります。（{detail}）",
    },
}

# After a time-out: where the code was when it was stopped (the runner's report, issue 25).
STILL_RUNNING = {
    "line": {
        "en": "When it was stopped it was still running line {line}.",
        "ja": "停止した時点では {line} 行目を実行していました。",
    },
    "in-loop": {
        "en": "When it was stopped it was still running line {line}, inside the loop on line {loop}.",
        "ja": "停止した時点では {loop} 行目のループの中の {line} 行目を実行していました。",
    },
    "loop": {
        "en": "When it was stopped it was still running the loop on line {line}.",
        "ja": "停止した時点では {line} 行目のループを実行していました。",
    },
}


def still_running(lang: str, line: int, loop: int | None) -> str:
    """The sentence naming the line a timed-out run was on, and the loop around it if any."""
    if loop is None:
        return localize(STILL_RUNNING["line"], lang).format(line=line)
    if loop == line:
        return localize(STILL_RUNNING["loop"], lang).format(line=line)
    return localize(STILL_RUNNING["in-loop"], lang).format(line=line, loop=loop)


WHERE_LINE = {"en": " on line {line}", "ja": "（{line} 行目）"}


def run_error(kind: str, lang: str, **values: object) -> str:
    """The message for a whole-run error of that kind, filled in."""
    line = values.get("line")
    values.setdefault("where", localize(WHERE_LINE, lang).format(line=line) if line else "")
    values.setdefault("detail", "")
    return localize(RUN_ERRORS[kind], lang).format(**values)
