"""The docker sandbox backend: sandbox.py runs each job in a container; see docs/sandbox.md for the rest."""

from grader.sandboxes.docker.engine import docker_available, max_jobs
from grader.sandboxes.docker.sandbox import DockerSandbox

__all__ = ["DockerSandbox", "docker_available", "max_jobs"]
