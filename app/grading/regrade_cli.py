"""`flask regrade EXERCISE [--all]`: the operator regrades an exercise's stored submissions after its folder changed."""

from __future__ import annotations

import time

import click
from flask import Flask, current_app
from flask.cli import with_appcontext

from app.grading import regrade as regrading
from app.grading.queue import InProcessQueue


@click.command("regrade")
@click.argument("exercise")
@click.option("--all", "every", is_flag=True, help="Every stored submission, not only each learner's latest.")
@click.option("--no-wait", is_flag=True, help="Start (or resume) it and return: the workers carry on.")
@with_appcontext
def regrade_command(exercise: str, every: bool, no_wait: bool) -> None:
    """Regrade EXERCISE's graded submissions with its folder as it is now (it must validate).

    Run again while a regrade of EXERCISE is under way, it follows that one: jobs of a worker
    that died go back to the queue. With the in-process queue (no CELERY_BROKER_URL) this
    command grades them itself and waits; with Celery the workers grade them.
    """
    app = current_app._get_current_object()  # type: ignore[attr-defined]
    run = regrading.resume(app, exercise)
    if run is not None:
        click.echo(f"A regrade of {exercise} is under way (run {run.id}); following it.")
    else:
        try:
            run = regrading.start(app, exercise, scope="all" if every else "latest", requested_by="flask regrade")
        except regrading.Refused as exc:
            raise click.ClickException(str(exc)) from None
        click.echo(f"Regrading {run.total} submission(s) of {exercise} (run {run.id}).")
    local = isinstance(app.extensions["grading_queue"], InProcessQueue)
    if no_wait and not local:
        return
    _follow(app, exercise, run.id, run.total)


def _follow(app: Flask, exercise: str, run_id: str, total: int) -> None:
    """Print the progress until every job of the run is done; every 10 s, take over jobs of dead workers."""
    shown, rounds = -1, 0
    while True:
        rounds += 1
        if rounds % 10 == 0:
            regrading.resume(app, exercise)
        found = regrading.counts(run_id)
        if found["done"] != shown:
            shown = found["done"]
            click.echo(f"{shown}/{total} done, {found['running']} running")
        if found["queued"] == 0 and found["running"] == 0:
            regrading.close_finished()
            return
        time.sleep(1.0)
