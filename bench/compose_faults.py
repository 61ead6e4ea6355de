"""compose.yaml end to end without a registry: a grading, an instructor's check of every folder, sandboxes after kills.

    WEB_IMAGE=learnai-web:latest SANDBOX_IMAGE=learnai-sandbox:latest .venv/bin/python -m bench.compose_faults

Needs the images of `make web-image sandbox-image compose-images`, Debian's docker-compose and a
Docker engine. Runs its own compose project (COMPOSE_PROJECT_NAME, default learnai-faults) on
WEB_PORT (default 18021), grades one real solution through a worker container and a docker
sandbox, has an instructor check every folder (the checks run on the checker, the background lane's
worker: the web container has neither torch nor a sandbox) and fails unless every folder ends
checked and available, and prints what it measured. It takes the project down (volumes too) at the end.
"""

from __future__ import annotations

import http.cookiejar
import json
import os
import re
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
PROJECT = os.environ.get("COMPOSE_PROJECT_NAME", "learnai-faults")
PORT = int(os.environ.get("WEB_PORT", "18021"))
EXERCISE = "tensors-broadcast"
LABEL_WORKER = "learnai.worker"


INSTRUCTOR = ("teacher@example.org", "Sakura-Lantern-4417-faults")


def compose(*args: str) -> None:
    env = {**os.environ, "COMPOSE_PROJECT_NAME": PROJECT, "WEB_PORT": str(PORT), "WEB_BIND": "127.0.0.1",
           "SECRET_KEY": "compose-faults",
           "DOCKER_GID": str(os.stat("/var/run/docker.sock").st_gid)}
    done = subprocess.run(["docker-compose", "-f", str(REPO / "compose.yaml"), *args], env=env, cwd=REPO,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=600)
    if done.returncode != 0:
        raise SystemExit(f"docker-compose {' '.join(args[:3])} failed: {done.stderr.decode(errors='replace')[-2000:]}")


def wait(check: Any, timeout: float, what: str, every: float = 0.5) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            value = check()
        except (OSError, urllib.error.URLError):
            value = None
        if value:
            return value
        time.sleep(every)
    raise SystemExit(f"timed out after {timeout:.0f} s waiting for {what}")


class Browser:
    def __init__(self) -> None:
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))

    def call(self, method: str, path: str, body: Any = None) -> tuple[int, dict[str, Any]]:
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(f"http://127.0.0.1:{PORT}{path}", data=data, method=method,
                                         headers={"Content-Type": "application/json"})
        try:
            with self.opener.open(request, timeout=30) as response:
                return response.status, json.loads(response.read() or b"{}")
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read() or b"{}")

    def page(self, path: str, form: dict[str, str] | None = None) -> str:
        """A page's HTML; with `form`, that form posted (URL-encoded, as a browser does) and the answer followed."""
        data = urllib.parse.urlencode(form).encode() if form is not None else None
        with self.opener.open(f"http://127.0.0.1:{PORT}{path}", data=data, timeout=30) as response:
            return str(response.read().decode("utf-8"))


def csrf(html: str) -> str:
    found = re.search(r'name="csrf_token" (?:type="hidden" )?value="([^"]+)"', html)
    if not found:
        raise SystemExit("no CSRF token on the page")
    return found.group(1)


def check_every_folder(browser: Browser) -> dict[str, str]:
    """Log in as an instructor, press "Check every folder now", wait for every verdict; folder -> its state."""
    email, password = INSTRUCTOR
    compose("exec", "-T", "web", "flask", "users", "create", "--instructor", "--email", email, "--password", password)
    browser.page("/login", {"email": email, "password": password, "csrf_token": csrf(browser.page("/login"))})
    asked = time.monotonic()
    browser.page("/instructor/validation", {"csrf_token": csrf(browser.page("/instructor/validation"))})

    def states() -> dict[str, str] | None:
        found = dict(re.findall(r'<tr data-exercise="([^"]+)" data-validation="([^"]+)"',
                                browser.page("/instructor/validation")))
        return found if found and all(state.startswith("done") for state in found.values()) else None

    verdicts = wait(states, 1800, "every folder's check", every=5)
    print(f"instructor's check of {len(verdicts)} folders done after {time.monotonic() - asked:.1f} s "
          f"(one check at a time, on the checker)")
    return verdicts  # type: ignore[no-any-return]


# Besides the grading workers: the Run worker and the background lane's checker start sandboxes too.
SANDBOX_SERVICES = ("checker", "runner")


def worker_hosts(client: Any) -> dict[str, str]:
    """compose service -> each sandbox-starting container's hostname (its short id), which sandbox labels start with."""
    found = {}
    project = {"label": f"com.docker.compose.project={PROJECT}"}
    for container in client.containers.list(ignore_removed=True, filters=project):
        service = container.labels.get("com.docker.compose.service", "")
        if service.startswith("worker") or service in SANDBOX_SERVICES:
            found[service] = container.attrs["Config"]["Hostname"]
    return found


def sandboxes(client: Any, hosts: set[str]) -> list[Any]:
    return [c for c in client.containers.list(all=True, ignore_removed=True, filters={"label": LABEL_WORKER})
            if c.labels.get(LABEL_WORKER, "").split(":")[0] in hosts]


def main() -> int:
    import docker

    client = docker.from_env(timeout=30)
    started = time.monotonic()
    compose("up", "-d")
    browser = Browser()
    wait(lambda: browser.call("GET", "/api/exercises")[0] < 500, 180, "the web container")
    up_s = time.monotonic() - started
    hosts = worker_hosts(client)
    print(f"up and answering after {up_s:.1f} s; workers {sorted(hosts)}")
    try:
        solution = (REPO / "exercises" / EXERCISE / "solution.py").read_text()
        wait(lambda: sandboxes(client, set(hosts.values())), 300, "warm sandboxes", every=1)
        sent = time.monotonic()
        status, body = wait(lambda: (r := browser.call("POST", f"/api/exercises/{EXERCISE}/submissions",
                                                       {"code": solution}))[0] == 202 and r, 60, "a 202")
        result = wait(lambda: (r := browser.call("GET", f"/api/submissions/{body['id']}")[1]).get("status") == "done"
                      and r["result"], 300, "the result", every=0.5)
        print(f"graded end to end: {result['status']} after {time.monotonic() - sent:.1f} s")
        if result["status"] != "pass":
            raise SystemExit(f"the reference solution was not graded pass: {json.dumps(result)[:2000]}")

        verdicts = check_every_folder(browser)
        failed = {folder: state for folder, state in verdicts.items() if state != "done-ok"}
        if failed:
            html = browser.page("/instructor/validation")
            raise SystemExit(f"folders not ok after the instructor's check: {failed}\n{html[-4000:]}")
        # The page marks a folder kept from learners (its tests cannot be graded) data-unavailable.
        unavailable = re.findall(r'<tr data-exercise="([^"]+)"[^>]*data-unavailable="true"',
                                 browser.page("/instructor/validation"))
        if unavailable:
            raise SystemExit(f"folders unavailable to learners after the check: {unavailable}")
        print(f"every folder checked ok and available: {len(verdicts)}")

        victim = sorted(service for service in hosts if service.startswith("worker"))[0]  # a grading worker
        mine = {hosts[victim]}
        wait(lambda: sandboxes(client, mine), 300, f"{victim}'s sandboxes", every=1)
        before = len(sandboxes(client, mine))
        killed = time.monotonic()
        subprocess.run(["docker", "kill", f"{PROJECT}_{victim}_1"], check=False, stdout=subprocess.DEVNULL)
        wait(lambda: not any(c.status == "running" for c in sandboxes(client, mine)), 120,
             "the killed worker's sandboxes to end", every=0.5)
        ended = time.monotonic() - killed
        wait(lambda: not sandboxes(client, mine), 120, "the killed worker's sandboxes to go", every=0.5)
        print(f"docker kill {victim}: its {before} sandbox(es) ended after {ended:.1f} s, "
              f"removed after {time.monotonic() - killed:.1f} s")
    finally:
        stopping = time.monotonic()
        compose("down", "-v")
        down_s = time.monotonic() - stopping
        rest = set(hosts.values())
        left = len(sandboxes(client, rest))
        wait(lambda: not sandboxes(client, rest), 60, "no sandbox of this project's workers", every=0.5)
        print(f"compose down took {down_s:.1f} s; sandboxes left right after: {left}; "
              f"none after {time.monotonic() - stopping:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
