#!/usr/bin/env bash
# The whole suite (`make test`), in groups that share the machine's cores; exits 1 if any group fails.
#
# Groups (every directory under tests/ belongs to exactly one, so nothing is left out;
# tests/test_suite_layout.py checks it):
#   python    every directory but the three below, over pytest-xdist workers (-n): what a plain
#             `pytest` at the root runs (testpaths in pyproject.toml)
#   docker    tests/docker: real containers, each capped at one CPU; its own process
#   postgres  tests/postgres: one shared database, so one process
#   browser   tests/browser: a live server and Chromium, one process
#   validate  not pytest: `grader validate exercises` with mutants (local sandbox), the
#             instructor check of every folder exactly as an author runs it (docs/exercises.md)
# Two lanes run side by side: docker | python, then postgres, then browser; validate last, alone. Each group's
# output (with its 20 slowest tests) is printed whole when it ends, then a summary.
# Local gradings done twice (validate, then parity) are shared through a cache folder made
# for this run (tests/grading_cache.py).
#
# Environment:
#   PY                    the interpreter                 (default .venv/bin/python)
#   TEST_WORKERS          xdist workers, python group     (default: cores, at most 4; 0 = none)
#   DOCKER_TEST_WORKERS   xdist workers, docker group     (default 0)
#   TEST_LANES            1 = groups one after another    (default 2 lanes)
#   PYTEST_ARGS           extra pytest arguments for every group, e.g. -m "not slow"
#   TEST_GROUPS           the groups to run               (default: all five)
set -uo pipefail
cd "$(dirname "$0")/.."

PY="${PY:-.venv/bin/python}"
cores=$(nproc 2>/dev/null || echo 2)
WORKERS="${TEST_WORKERS:-$(( cores < 4 ? cores : 4 ))}"  # each worker imports torch: ~0.5 GB
DOCKER_WORKERS="${DOCKER_TEST_WORKERS:-0}"
LANES="${TEST_LANES:-2}"
SERIAL_DIRS="docker postgres browser"  # the groups of their own; pyproject's testpaths leaves them out
GROUPS_WANTED="${TEST_GROUPS:-python $SERIAL_DIRS validate}"
eval "EXTRA=(${PYTEST_ARGS:-})"  # shell words, so -m "not slow" stays two arguments

RUN_DIR="$(mktemp -d "${TMPDIR:-/tmp}/learnai-tests.XXXXXX")"
trap 'rm -rf "$RUN_DIR"; [ -z "${heartbeat:-}" ] || kill "$heartbeat" 2>/dev/null' EXIT
export LEARNAI_GRADING_CACHE="$RUN_DIR/gradings"

wanted() { [[ " $GROUPS_WANTED " == *" $1 "* ]]; }

xdist() {  # pytest arguments for N workers (none for 0)
  if [ "$1" -gt 0 ]; then
    # loadfile: a module runs whole on one worker, so a module-scoped fixture (the AMP
    # corpus grades every case up front) runs once, and the tests of one shared service
    # (the Celery stack) never compete with each other. Not loadgroup: with pytest 9.2 its
    # xdist_group marks are silently ignored (xdist 3.8 renames item._nodeid, which pytest
    # no longer reads), and the corpus was graded twice per run, once on each worker.
    echo "-n $1 --dist loadfile"
  fi
}

group_args() {  # the pytest arguments of a group
  case "$1" in
    # no path: pytest's testpaths (pyproject.toml), so a plain `pytest` is this group
    python) echo "$(xdist "$WORKERS")" ;;
    docker) echo "tests/docker $(xdist "$DOCKER_WORKERS")" ;;
    *) echo "tests/$1" ;;
  esac
}

run_group() {  # run one group, print its log whole, record "name rc seconds"
  local name=$1 started rc
  started=$(date +%s)
  echo "group $name started"
  if [ "$name" = validate ]; then
    # Every folder: the solution passes, starters and empty bodies fail, every mutant of the
    # solution fails a check, no check never fails (one line per folder; exit 1 if any fails).
    "$PY" -m grader validate exercises --sandbox local >"$RUN_DIR/$name.log" 2>&1
  else
    # shellcheck disable=SC2046 -- group_args is a word list on purpose
    "$PY" -m pytest $(group_args "$name") --durations=20 "${EXTRA[@]}" \
      >"$RUN_DIR/$name.log" 2>&1
  fi
  rc=$?
  {
    flock 9
    echo "==================== group $name: exit $rc, $(( $(date +%s) - started )) s"
    cat "$RUN_DIR/$name.log"
  } 9>"$RUN_DIR/print.lock"
  echo "$name $rc $(( $(date +%s) - started ))" >>"$RUN_DIR/summary"
}

lane() {  # run the wanted groups among the arguments, one after another
  for name in "$@"; do
    if wanted "$name"; then run_group "$name"; fi
  done
}

started=$(date +%s)
echo "test groups: $GROUPS_WANTED (python: $WORKERS xdist workers; $LANES lanes)"
# A group's output comes when it ends; meanwhile a line every 5 minutes, so a CI watching
# for silence does not take a long group for a hung one.
# (Short sleeps: a sleep left over after the kill would hold the output pipe open.)
( ticks=0
  while sleep 10; do
    ticks=$((ticks + 1))
    [ $((ticks % 30)) -ne 0 ] || echo "... $((ticks / 6)) min in; groups done: $(cut -d' ' -f1 \
      "$RUN_DIR/summary" 2>/dev/null | tr '\n' ' ')"
  done ) &
heartbeat=$!
if [ "$LANES" -ge 2 ]; then
  lane docker &
  docker_lane=$!
  lane python postgres browser
  wait "$docker_lane"
else
  lane python docker postgres browser
fi
# Last, on a machine the other groups have left: validate grades under the exercises' real
# time limits (not the roomy copies the tests use), which a loaded machine turns into timeouts.
lane validate
kill "$heartbeat" 2>/dev/null

failed=0
echo "==================== summary ($(( $(date +%s) - started )) s in all)"
while read -r name rc seconds; do
  case "$rc" in
    0) verdict="passed" ;;
    5) # pytest's "no tests collected": a group's tests all filtered out by PYTEST_ARGS is
       # fine; with no filter it means the group lost its tests, which must not pass.
       if [ ${#EXTRA[@]} -gt 0 ]; then verdict="no tests selected by PYTEST_ARGS"
       else verdict="FAILED: no tests collected"; failed=1; fi ;;
    *) verdict="FAILED (exit $rc)"; failed=1 ;;
  esac
  printf '%-9s %5s s  %s\n' "$name" "$seconds" "$verdict"
done <"$RUN_DIR/summary"
for name in $GROUPS_WANTED; do
  grep -q "^$name " "$RUN_DIR/summary" || { echo "$name: unknown group, or it never ran"; failed=1; }
done
exit "$failed"
