# expect-status: error
# expect-error-kind: runtime
"""Prints a passing document, then leaves with exit code 0 before any test runs."""
import json
import os

print(json.dumps({"version": 1, "status": "pass", "score": 1.0}))
os._exit(0)
