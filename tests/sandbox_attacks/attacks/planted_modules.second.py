# what: A later job: imports what the first planted, and starts a fresh interpreter that would run it.
import importlib
import subprocess
import sys

escaped = []
try:
    importlib.invalidate_caches()
    import learnai_planted  # noqa: F401
    escaped.append("module")
except ImportError:
    pass
try:
    fresh = subprocess.run([sys.executable, "-c", "import os; print(os.environ.get('LEARNAI_PLANTED'))"],
                           capture_output=True, text=True, timeout=60)
    if "yes" in fresh.stdout:
        escaped.append("fresh interpreter")
except (OSError, subprocess.SubprocessError):
    pass
print("ESCAPED", escaped) if escaped else print("HELD planted")
