"""Tests of app.grading: the queue, fairness, claims, Runs, the worker."""
