"""Cross-job attacks on the local sandbox's jail (grader/sandboxes/jail.py)."""
