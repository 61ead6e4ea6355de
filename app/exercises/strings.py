"""The editor's interface strings, translated on the server and handed to the script as JSON."""

from __future__ import annotations

from flask_babel import gettext as _


def editor_strings() -> dict[str, str]:
    return {
        "submit": _("Submit"),
        "submitting": _("Sending…"),
        "queued": _("Waiting for a grader…"),
        "running": _("Grading your code…"),
        "done": _("Graded"),
        "pass": _("pass"),
        "fail": _("fail"),
        "error": _("error"),
        "skip": _("skipped"),
        "verdict_pass": _("All checks passed."),
        "verdict_fail": _("Some checks did not pass yet."),
        "verdict_error": _("Your code could not be graded."),
        "score": _("Score"),
        "line": _("line"),
        "hint": _("Hint"),
        "output": _("Output of your code"),
        "advice": _("Advice"),
        "reset_confirm": _("Replace your code with the starter code? Your draft will be lost."),
        "draft_restored": _("Your saved draft was restored."),
        "network_error": _("The server could not be reached. Check your connection and try again."),
        "request_error": _("The submission was refused:"),
        "error_syntax": _("Syntax error"),
        "error_timeout": _("Time limit reached"),
        "error_memory": _("Memory limit reached"),
        "error_output-limit": _("Too much output"),
        "error_runtime": _("Your code stopped with an error"),
        "error_internal": _("Grader problem (not your fault)"),
        # {position}, {seconds}, {title}, {time} are filled in by the script.
        "queued_at": _("Queued: number {position} in line…"),
        "running_for": _("Grading… {seconds} s"),
        # While queued, and while a sandbox is started for this job (no warm one was free).
        "queued_waited": _("Queued: number {position} in line, waiting {seconds} s…"),
        "starting_for": _("Starting a sandbox for your code… {seconds} s"),
        "last_result": _("Your last submission:"),
        "open_submission": _("details"),
        "next_cta": _("Next exercise: {title} →"),
        "lesson_done": _("You passed every check. Back to the lesson to choose what comes next."),
        "restored": _("The code of your submission from {time} is in the editor. Submit it again or change it."),
        "depends_on": _("Not run: “{title}” has to pass first."),
        "solved": _("solved"),
    }
