"""Tests of the AMP checks: tracer, static review, the corpus of learner submissions."""
