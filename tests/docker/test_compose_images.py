"""compose.yaml's Redis and PostgreSQL images, built from Debian's packages (`make compose-images`), answer."""

from __future__ import annotations

import os
import time
import uuid
from typing import Any

import pytest

# Not marked "docker": that marker also needs the sandbox image (tests/docker/conftest.py); these do not.
pytestmark = pytest.mark.slow

REDIS = os.environ.get("REDIS_IMAGE", "learnai-redis:7")
POSTGRES = os.environ.get("POSTGRES_IMAGE", "learnai-postgres:15")


@pytest.fixture
def engine() -> Any:
    docker = pytest.importorskip("docker", reason="the docker SDK is not installed")
    try:
        client = docker.from_env(timeout=30)
        client.ping()
    except Exception as exc:  # noqa: BLE001 -- any failure means: no engine here
        pytest.skip(f"no Docker engine answers ({type(exc).__name__})")
    for image in (REDIS, POSTGRES):
        try:
            client.images.get(image)
        except docker.errors.ImageNotFound:
            pytest.skip(f"{image} is missing: run `make compose-images`")
    return client


def _started(client: Any, image: str, **kwargs: Any) -> Any:
    return client.containers.run(image, detach=True, name=f"learnai-test-{uuid.uuid4().hex[:12]}",
                                 labels={"learnai.test": "compose-images"}, **kwargs)


def _exec_until(container: Any, command: list[str], timeout: float = 60) -> str:
    deadline = time.monotonic() + timeout
    while True:
        code, output = container.exec_run(command)
        if code == 0 or time.monotonic() > deadline:
            assert code == 0, output.decode(errors="replace")
            return output.decode(errors="replace")
        time.sleep(0.5)


def test_the_redis_image_answers_over_the_network_with_an_append_only_file(engine: Any) -> None:
    # compose.yaml's command, as its redis service runs it
    container = _started(engine, REDIS, command=["redis-server", "--protected-mode", "no", "--dir", "/data",
                                                 "--appendonly", "yes", "--appendfsync", "everysec"])
    try:
        assert "PONG" in _exec_until(container, ["redis-cli", "ping"])
        address = _exec_until(container, ["sh", "-c", "hostname -i"]).split()[0]
        # from the network, not the loopback: what a worker container does
        assert "PONG" in _exec_until(container, ["redis-cli", "-h", address, "ping"])
        assert "aof_enabled:1" in _exec_until(container, ["redis-cli", "info", "persistence"])
    finally:
        container.remove(force=True, v=True)


def test_the_postgres_image_makes_the_database_and_takes_a_password_over_the_network(engine: Any) -> None:
    container = _started(engine, POSTGRES, environment={
        "POSTGRES_USER": "laip", "POSTGRES_PASSWORD": "secret-pw", "POSTGRES_DB": "laip"})
    try:
        _exec_until(container, ["pg_isready", "-U", "laip"], timeout=120)
        address = _exec_until(container, ["sh", "-c", "hostname -i"]).split()[0]
        query = ["psql", "-h", address, "-U", "laip", "-d", "laip", "-tAc", "select current_user"]
        code, _ = container.exec_run(query, environment={"PGPASSWORD": "wrong"})
        assert code != 0  # a password is required over the network
        assert _exec_until(container, ["sh", "-c", f"PGPASSWORD=secret-pw {' '.join(query[:-1])} "
                                                   "'select current_user'"]).strip() == "laip"
    finally:
        container.remove(force=True, v=True)
