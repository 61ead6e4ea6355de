"""Grading off the request thread: a queue interface and the worker that runs one job."""
