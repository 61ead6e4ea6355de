"""Tests of app.exercises: the exercise page."""
