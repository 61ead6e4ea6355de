"""Benchmarks that print their figures: run each as a module from the repository root.

    .venv/bin/python -m bench.NAME
"""
