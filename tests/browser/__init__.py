"""Browser tests: a live server driven through Chromium (their own group)."""
