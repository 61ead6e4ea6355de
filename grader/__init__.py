"""Flask-free grading library: exercise folders, a sandboxed pytest harness and the results document."""
