"""Tests of the grader: loader, harness, runner, sandboxes, validate, golden folders."""
