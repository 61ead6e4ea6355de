"""Tests of app.instructor: the overview pages and their bounds."""
