"""tests/amp: the variant exercise folders under variants/ are graded by tests, never collected as tests."""

collect_ignore = ["variants"]
