"""The editor's interface strings, translated on the server and handed to the script as JSON."""

from __future__ import annotations

from flask_babel import gettext as _


def editor_strings() -> dict[str, str]:
    """Every key is read by app/static/src (editor.js, results.js): the old renderer's are gone."""
    return {
        "submit": _("Submit"),
        "submitting": _("Sending…"),
        "queued": _("Waiting for a grader…"),
        "running": _("Grading your code…"),
        "done": _("Graded"),
        # The results panel is the server's (progress/_panel.html); these are what the script
        # itself writes: the hint ladder's rungs, the Submit button, the notes above the panel.
        "hint": _("Hint"),
        "hint_concept": _("The idea"),
        "hint_api": _("The API to use"),
        "hint_lesson": _("In the lesson"),
        "hint_failed": _("That hint could not be loaded; press again."),
        "reset_confirm": _("Replace your code with the starter code? Your draft will be lost."),
        "draft_restored": _("Your saved draft was restored."),
        "network_error": _("The server could not be reached. Check your connection and try again."),
        "request_error": _("The submission was refused:"),
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
    }

