"""Docker sandbox tests: real containers (their own group)."""
