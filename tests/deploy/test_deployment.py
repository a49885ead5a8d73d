"""The deployment files: deploy/compose.yaml is valid YAML with the processes, health checks and
named volumes the README describes (and `docker compose config` accepts it where Compose is
installed); the Dockerfile is multi-stage, slim, unprivileged, with `tdg` as entrypoint and a
health check on /healthz; the image's context holds what the build copies."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from typing import Any

import pytest
import yaml

from tests.paths import REPO

COMPOSE = REPO / "deploy" / "compose.yaml"
DOCKERFILE = REPO / "Dockerfile"


def _compose() -> dict[str, Any]:
    loaded = yaml.safe_load(COMPOSE.read_text())
    assert isinstance(loaded, dict)
    return loaded


def _tdg_command(service: dict[str, Any]) -> list[str]:
    command = service["command"]
    assert isinstance(command, list), command
    return [str(part) for part in command]


def test_compose_runs_migrate_once_then_serve_and_scalable_workers() -> None:
    services = _compose()["services"]
    assert {"postgres", "redis", "minio", "bucket", "migrate", "serve", "worker"} <= set(services)
    migrate, serve, worker = services["migrate"], services["serve"], services["worker"]
    assert _tdg_command(migrate) == ["migrate"] and migrate["restart"] == "no"
    assert migrate["depends_on"]["postgres"]["condition"] == "service_healthy"
    for name, service in (("serve", serve), ("worker", worker)):
        assert _tdg_command(service)[0] == name
        assert service["image"] == migrate["image"]  # one image for every process
        assert service["depends_on"]["migrate"]["condition"] == "service_completed_successfully"
        assert service["depends_on"]["bucket"]["condition"] == "service_completed_successfully"
        env = service["environment"]
        assert (
            env["TDG_STORAGE_URL"].startswith("s3://") and env["TDG_S3_ENDPOINT_URL"] == "http://minio:9000"
        )
        assert env["TDG_BROKER_URL"].startswith("redis://redis:")
        assert env["TDG_DATABASE_URL"].startswith("postgresql+psycopg://")
        assert "TDG_SECRET_KEY" in env and "AWS_ACCESS_KEY_ID" in env
    # scalable: no fixed container name, no host port
    assert "container_name" not in worker and "ports" not in worker
    assert (
        "--name" in _tdg_command(worker)
        and "%h" in _tdg_command(worker)[_tdg_command(worker).index("--name") + 1]
    )


def test_compose_health_checks_and_named_volumes() -> None:
    compose = _compose()
    services = compose["services"]
    for name in ("postgres", "redis", "minio", "serve", "worker"):
        test = services[name]["healthcheck"]["test"]
        assert test and test[0] in ("CMD", "CMD-SHELL"), (name, test)
    assert "/healthz" in " ".join(services["serve"]["healthcheck"]["test"])
    declared = set(compose["volumes"])
    used = {
        volume.split(":", 1)[0]
        for service in services.values()
        for volume in service.get("volumes", [])
        if not volume.startswith((".", "/"))
    }
    assert used == declared == {"pgdata", "redisdata", "miniodata", "servedata"}


def test_compose_environment_names_are_settings_the_service_reads() -> None:
    from app.core.settings import Settings

    fields = {f"TDG_{name.upper()}" for name in Settings.model_fields}
    env = _compose()["services"]["serve"]["environment"]
    unknown = {key for key in env if key.startswith("TDG_") and key not in fields}
    assert not unknown, unknown


@pytest.mark.skipif(
    shutil.which("docker") is None
    or subprocess.run(["docker", "compose", "version"], capture_output=True).returncode != 0,
    reason="Docker Compose is not installed here; the YAML checks above stand in for it",
)
def test_docker_compose_config_accepts_the_file() -> None:
    env = {**os.environ, "TDG_SECRET_KEY": "k" * 48, "TDG_ADMIN_PASSWORD": "admin-password-1"}
    result = subprocess.run(
        ["docker", "compose", "-f", str(COMPOSE), "config", "--quiet"],
        capture_output=True,
        text=True,
        env=env,
    )
    assert result.returncode == 0, result.stderr


def test_dockerfile_is_multi_stage_slim_unprivileged_with_tdg_entrypoint() -> None:
    text = DOCKERFILE.read_text()
    stages = re.findall(r"^FROM\s+(\S+)(?:\s+AS\s+(\S+))?", text, flags=re.MULTILINE)
    assert len(stages) >= 2 and all("slim" in image for image, _ in stages), stages
    assert re.search(r"^USER\s+(?!0\b|root\b)\S+", text, flags=re.MULTILINE)
    assert re.search(r'^ENTRYPOINT\s+\["tdg"\]', text, flags=re.MULTILINE)
    healthcheck = re.search(r"^HEALTHCHECK(?:[^\n]*\\\n)*[^\n]*", text, flags=re.MULTILINE)
    assert healthcheck and "/healthz" in healthcheck.group(0)
    # the runtime stage installs what the build stage made, with the prebuilt web interface in it
    assert "from=build" in text and "app/web/static/index.html" in text
    assert (REPO / "app" / "web" / "static" / "index.html").is_file()


def test_dockerignore_lets_through_what_the_build_copies() -> None:
    ignore = (REPO / ".dockerignore").read_text().split()
    copied = re.findall(r"^COPY\s+(?!--from)(.+?)\s+\S+$", DOCKERFILE.read_text(), flags=re.MULTILINE)
    for line in copied:
        for source in line.split():
            assert f"!{source}" in ignore or f"!{source}/" in ignore, source
