"""Interface strings of the quiz pages, in English and Japanese."""

from __future__ import annotations

STRINGS: dict[str, dict[str, str]] = {
    "course": {"en": "Course", "ja": "コース"},
    "lesson": {"en": "Lesson {number}", "ja": "レッスン {number}"},
    "submit": {"en": "Check my answers", "ja": "答え合わせをする"},
    "retry": {
        "en": "Change any answer and check again. A question's explanation appears once you "
              "answer it right or after {tries} wrong tries; a right answer given only after "
              "that earns no points.",
        "ja": "答えを変えて、もう一度答え合わせができます。解説は、正解したとき、"
              "または {tries} 回まちがえたときに表示されます。解説が表示された後の正解には"
              "得点がつきません。",
    },
    "empty": {
        "en": "No question was answered. Choose or type at least one answer, then check.",
        "ja": "どの問題にも答えていません。少なくとも 1 問に答えてから答え合わせをしてください。",
    },
    "previous": {"en": "Previous", "ja": "前へ"},
    "next": {"en": "Next", "ja": "次へ"},
    "best": {"en": "Best score", "ja": "最高点"},
    "last": {"en": "Last score", "ja": "前回の得点"},
    "attempts": {"en": "Attempts", "ja": "挑戦回数"},
    "no_attempt": {"en": "Not tried yet.", "ja": "まだ挑戦していません。"},
    "your_result": {"en": "Your result", "ja": "結果"},
    "right": {"en": "right", "ja": "正解"},
    "wrong": {"en": "not yet", "ja": "不正解"},
    "single": {"en": "Choose one.", "ja": "1 つ選んでください。"},
    "multiple": {"en": "Choose every right answer.", "ja": "正しいものをすべて選んでください。"},
    "numeric": {"en": "Type a number.", "ja": "数値を入力してください。"},
    "number_label": {"en": "Your answer", "ja": "あなたの答え"},
    "bad_form": {
        "en": "The form expired or did not come from this page. Reload the page and try again.",
        "ja": "フォームの有効期限が切れたか、このページから送信されていません。"
              "ページを再読み込みしてから、もう一度送信してください。",
    },
    "no_quiz": {"en": "There is no quiz with this id.", "ja": "この id のクイズはありません。"},
    "not_json": {
        "en": "Send the answers as a JSON object: {\"answers\": {question id: answer}}.",
        "ja": "回答は JSON オブジェクト {\"answers\": {問題の id: 答え}} で送ってください。",
    },
}


def strings(lang: str) -> dict[str, str]:
    """Every string in one language (English where a translation is missing)."""
    return {key: text.get(lang) or text["en"] for key, text in STRINGS.items()}


def text(key: str, lang: str) -> str:
    entry = STRINGS[key]
    return entry.get(lang) or entry["en"]
