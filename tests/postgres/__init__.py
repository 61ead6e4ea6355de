"""The app's tests on a real PostgreSQL server (their own group)."""
