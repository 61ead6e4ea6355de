"""Tests of app.progress: states, history, figures, the quota."""
