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
        "hint_more": _("More help"),
        # {count} is filled in by the script.
        "skip_group": _("{count} checks were not run"),
        "skip_which": _("Which checks"),
        "hint_concept": _("The idea"),
        "hint_api": _("The API to use"),
        "hint_lesson": _("In the lesson"),
        "hint_failed": _("That hint could not be loaded; press again."),
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
        "error_authoring": _("This exercise is broken (not your fault)"),
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
        # Restoring a submission shows its own feedback; the note names it and leads back.
        "restored_result": _("Feedback of your submission from {time} (the code in the editor):"),
        "show_latest": _("Show my latest result"),
        "depends_on": _("Not run: “{title}” has to pass first."),
        "solved": _("solved"),
        "unverifiable": _("not verifiable here"),
        # The measurement table (amp-measure-speed): the same texts as progress/_measurement.html.
        "measured_where": _("Where this was measured"),
        "cpu": _("CPU"),
        "bf16_native": _("bfloat16 native"),
        "bf16_emulated": _("bfloat16 emulated (no AVX-512 BF16 or AMX)"),
        "threads": _("threads"),
        "batch": _("batch"),
        "col_width": _("width"),
        "col_precision": _("precision"),
        "col_min": _("grader: min ms"),
        "col_median": _("median ms"),
        "col_max": _("max ms"),
        "col_steps": _("steps"),
        "col_yours": _("yours: ms"),
        "col_peak": _("peak MiB"),
        "measured_note": _("The grader timed your train_step itself, float32 and autocast taking turns; "
                           "your figure is the median you returned."),
    }
