#!/usr/bin/env bash
# The GPU check (docs/grading.md, "GPU check"): what a CPU grader cannot verify, in one call of
# under 10 minutes on a machine lent a CUDA GPU that has Python 3.12, torch and pytest but no
# Docker and no package registry. Grading uses the local sandbox.
#
#   scripts/gpu-check.sh --fetch-wheels   here, with a registry: the missing pure-Python
#                                         packages (and pydantic-core) as cp312 wheels in .whl/
#   scripts/gpu-check.sh [ARGS]           there (carry .whl): installs .whl/*.whl under
#                                         /tmp/gpu-check-site, then scripts/gpu_check.py ARGS
#
# Exit status: 0 every expectation held; 1 one did not; 2 no CUDA GPU; 3 packages missing.
set -uo pipefail
cd "$(dirname "$0")/.."
PY="${PY:-python3}"
WHEELS=(pydantic==2.14.4 pydantic-core==2.50.5 annotated-types==0.8.0 typing-inspection==0.4.5
        typing-extensions==4.16.0)

if [ "${1:-}" = "--fetch-wheels" ]; then
  mkdir -p .whl
  exec "$PY" -m pip download --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
    --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 \
    -d .whl "${WHEELS[@]}"
fi

if compgen -G ".whl/*.whl" >/dev/null; then
  "$PY" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target /tmp/gpu-check-site .whl/*.whl \
    || { echo "gpu-check: FAILED: the wheels in .whl/ did not install" >&2; exit 3; }
  export PYTHONPATH="/tmp/gpu-check-site${PYTHONPATH:+:$PYTHONPATH}"
fi
missing=$("$PY" -c 'import importlib.util as u; print(" ".join(n for n in ("torch", "pytest", "pydantic", "safetensors", "numpy") if u.find_spec(n) is None))')
if [ -n "$missing" ]; then
  echo "gpu-check: FAILED: missing Python packages: $missing (run scripts/gpu-check.sh --fetch-wheels where a registry answers, and carry .whl)" >&2
  exit 3
fi

# CUDA reserves address space for the whole device: cap written memory, not addresses
# (grader/runner.py). One thread per learner as on every grader.
export GRADER_SANDBOX=local GRADER_MEMORY_RLIMIT=data PYTHONUNBUFFERED=1
timeout 570 "$PY" scripts/gpu_check.py "$@"
status=$?
[ $status -eq 124 ] && echo "gpu-check: FAILED: stopped after 570 s (the call's limit is 600 s)" >&2
exit $status
