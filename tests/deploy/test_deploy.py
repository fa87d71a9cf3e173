"""The files in deploy/ agree with the server: its settings, ports, health path and console scripts.

No container engine runs here, so the Dockerfile, compose.yaml, haproxy.cfg, the systemd unit and
the example environment file are parsed, and what they tell the server is handed to the server's own
configuration parser; the health check runs against a real server.
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
import re
import shlex
import sys
import tomllib
import urllib.error
import urllib.request
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
import yaml

from server import logs
from server.admin import cli as admin_cli
from server.app import Server
from server.config import Config, load_config

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
DEPLOY_FILES = ["Dockerfile", "compose.yaml", "haproxy.cfg", "cafe-server.service", "cafe.env.example"]

FIELDS = Config.model_fields
ENV_NAMES = {"CAFE_" + name.upper() for name in FIELDS}
PORT: int = FIELDS["port"].default
LINE_PORT: int = FIELDS["line_port"].default
REDIS_DEFAULT_PORT = 6379


# --- parsers for the deployment files -------------------------------------------------------------


def dockerfile() -> list[tuple[str, str]]:
    """The Dockerfile's instructions as (KEYWORD, arguments), continuation lines joined."""
    instructions: list[tuple[str, str]] = []
    pending = ""
    for raw in (DEPLOY / "Dockerfile").read_text().splitlines():
        line = raw.strip()
        if not pending and (not line or line.startswith("#")):
            continue
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        keyword, _, args = (pending + line).partition(" ")
        instructions.append((keyword.upper(), args.strip()))
        pending = ""
    return instructions


def dockerfile_args(keyword: str) -> list[str]:
    """The arguments of every instruction named ``keyword`` in the final stage."""
    final = dockerfile()
    last_from = max(i for i, (kw, _) in enumerate(final) if kw == "FROM")
    return [args for kw, args in final[last_from:] if kw == keyword]


def image_env() -> dict[str, str]:
    """The environment the image sets (``ENV`` in the final stage)."""
    env: dict[str, str] = {}
    for args in dockerfile_args("ENV"):
        for pair in shlex.split(args):
            key, _, value = pair.partition("=")
            env[key] = value
    return env


def image_command() -> list[str]:
    """The image's ``CMD`` (exec form)."""
    (cmd,) = dockerfile_args("CMD")
    argv: list[str] = json.loads(cmd)
    return argv


def image_healthcheck() -> list[str]:
    """The image's ``HEALTHCHECK`` command (exec form)."""
    (check,) = dockerfile_args("HEALTHCHECK")
    _, _, cmd = check.partition(" CMD ")
    argv: list[str] = json.loads(cmd)
    return argv


def compose() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load((DEPLOY / "compose.yaml").read_text())
    return data


def compose_nodes() -> dict[str, dict[str, Any]]:
    """The compose services that run cafe-server."""
    return {
        name: service
        for name, service in compose()["services"].items()
        if service.get("command", [None])[0] == "cafe-server"
    }


#: how compose.yaml asks for PostgreSQL's password (compose refuses to start without it)
POSTGRES_PASSWORD = "${POSTGRES_PASSWORD:?set POSTGRES_PASSWORD (see above)}"


def node_environment(service: dict[str, Any]) -> dict[str, str]:
    """A compose node's ``CAFE_*`` environment, its PostgreSQL password given."""
    return {
        name: str(value).replace(POSTGRES_PASSWORD, "secret")
        for name, value in service["environment"].items()
        if name.startswith("CAFE_")
    }


def node_config(service: dict[str, Any]) -> Config:
    """A compose node's configuration: its command's flags and its environment."""
    return load_config(service["command"][1:], node_environment(service))


def unit() -> dict[str, list[tuple[str, str]]]:
    """The systemd unit as section -> [(key, value)] (keys may repeat)."""
    sections: dict[str, list[tuple[str, str]]] = {}
    current: list[tuple[str, str]] = []
    for raw in (DEPLOY / "cafe-server.service").read_text().splitlines():
        line = raw.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("["):
            current = sections.setdefault(line.strip("[]"), [])
            continue
        key, _, value = line.partition("=")
        current.append((key.strip(), value.strip()))
    return sections


def unit_values(section: str, key: str) -> list[str]:
    return [value for k, value in unit()[section] if k == key]


def haproxy() -> dict[str, list[list[str]]]:
    """haproxy.cfg as "section name" -> its lines split into words, comments dropped."""
    sections: dict[str, list[list[str]]] = {}
    current: list[list[str]] = []
    for raw in (DEPLOY / "haproxy.cfg").read_text().splitlines():
        line = raw.split("#", 1)[0].rstrip()
        if not line.strip():
            continue
        if not raw[0].isspace():
            current = sections.setdefault(line.strip(), [])
        else:
            current.append(line.split())
    return sections


def haproxy_frontends() -> dict[int, tuple[str, str]]:
    """Each port the balancer listens on -> (the frontend's mode, its default backend)."""
    result: dict[int, tuple[str, str]] = {}
    for name, lines in haproxy().items():
        if not name.startswith("frontend "):
            continue
        words = {line[0]: line[1:] for line in lines}
        port = int(words["bind"][0].rsplit(":", 1)[1])
        result[port] = (words["mode"][0], words["default_backend"][0])
    return result


def env_example() -> list[tuple[str, str, bool]]:
    """The settings of cafe.env.example as (NAME, value, commented out)."""
    settings = []
    for line in (DEPLOY / "cafe.env.example").read_text().splitlines():
        match = re.fullmatch(r"(#?)([A-Z][A-Z0-9_]*)=(.*)", line)
        if match:
            settings.append((match[2], match[3], match[1] == "#"))
    return settings


def setting_name(env_name: str) -> str:
    return env_name.removeprefix("CAFE_").lower()


def server_commands() -> dict[str, list[str]]:
    """Every cafe-server command line in the deployment files, by where it is."""
    commands = {"Dockerfile CMD": image_command()}
    for name, service in compose_nodes().items():
        commands[f"compose {name}"] = service["command"]
    (exec_start,) = unit_values("Service", "ExecStart")
    commands["unit ExecStart"] = shlex.split(exec_start)
    return commands


def console_scripts() -> dict[str, str]:
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())
    scripts: dict[str, str] = data["project"]["scripts"]
    return scripts


async def http_get(url: str) -> tuple[int, bytes]:
    def fetch() -> tuple[int, bytes]:
        try:
            with urllib.request.urlopen(url, timeout=5) as response:
                return response.status, response.read()
        except urllib.error.HTTPError as error:
            with error:
                return error.code, error.read()

    return await asyncio.to_thread(fetch)


@pytest.fixture
async def live_server() -> AsyncIterator[Server]:
    """A real server on a free loopback port, in this process."""
    logs.configure("warning", "console")
    server = Server(Config.model_validate({"port": 0, "line_port": -1, "data": ":memory:"}))
    await server.start()
    yield server
    await server.stop()


# --- settings -------------------------------------------------------------------------------------


def test_env_example_lists_every_setting_once() -> None:
    """cafe.env.example has one line for each setting of Config, and nothing else."""
    names = [name for name, _, _ in env_example()]
    assert sorted(names) == sorted(ENV_NAMES)


def test_env_example_comments_out_the_defaults_and_sets_valid_values() -> None:
    """A commented-out line shows the setting's default; the whole file, uncommented, is a valid config."""
    every: dict[str, str] = {}
    for name, value, commented in env_example():
        field = setting_name(name)
        default = FIELDS[field].default
        if commented and default is not None:
            parsed = load_config([], {name: value})
            assert getattr(parsed, field) == default, f"{name}={value} is not the default {default!r}"
        every[name] = value
    load_config([], every)


def test_every_cafe_variable_in_the_deploy_files_is_a_setting() -> None:
    """No file in deploy/ names a CAFE_* variable the server does not read."""
    for name in DEPLOY_FILES:
        used = set(re.findall(r"\bCAFE_[A-Z0-9_]+\b", (DEPLOY / name).read_text()))
        assert used <= ENV_NAMES, f"{name}: {sorted(used - ENV_NAMES)}"


def test_every_cafe_server_command_line_parses_as_the_server_would() -> None:
    """Each cafe-server command line (image, compose nodes, unit) uses only real flags with valid values."""
    flags = {"--" + name.replace("_", "-") for name in FIELDS}
    # (a compose node's command with the node's environment, which names its Redis)
    environments = {f"compose {name}": node_environment(s) for name, s in compose_nodes().items()}
    for where, argv in server_commands().items():
        assert Path(argv[0]).name == "cafe-server", where
        used = {arg.split("=", 1)[0] for arg in argv[1:] if arg.startswith("--")}
        assert used <= flags, f"{where}: {sorted(used - flags)}"
        load_config(argv[1:], environments.get(where, {}))


def test_the_image_and_the_unit_run_the_declared_console_script() -> None:
    """The image's CMD, the compose nodes and the unit's ExecStart run pyproject's cafe-server script."""
    assert console_scripts()["cafe-server"] == "server.__main__:main"
    (exec_start,) = unit_values("Service", "ExecStart")
    assert exec_start == "/opt/cafe/.venv/bin/cafe-server"
    for where, argv in server_commands().items():
        assert Path(argv[0]).name in console_scripts(), where


def test_the_image_copies_every_package_pip_installs() -> None:
    """The build stage copies pyproject.toml, setup.py (the compiled modules), the readme and every
    package, so `pip install .` works."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    patterns = project["tool"]["setuptools"]["packages"]["find"]["include"]
    packages = {
        path.name
        for path in ROOT.iterdir()
        if (path / "__init__.py").is_file() and any(Path(path.name).match(p) for p in patterns)
    }
    assert packages, "no packages found"
    copied = {word for args in (a for kw, a in dockerfile() if kw == "COPY") for word in args.split()}
    assert packages | {"pyproject.toml", "setup.py", project["project"]["readme"]} <= copied


# --- ports and health -----------------------------------------------------------------------------


def test_the_image_listens_everywhere_on_the_default_ports_and_keeps_data_in_its_volume() -> None:
    """Under the image's environment cafe-server binds 0.0.0.0:8765 and :2323, the log inside /data."""
    config = load_config(image_command()[1:], image_env())
    assert config.host == "0.0.0.0"
    assert {int(p) for args in dockerfile_args("EXPOSE") for p in args.split()} == {PORT, LINE_PORT}
    assert (config.port, config.line_port) == (PORT, LINE_PORT)
    (volume,) = dockerfile_args("VOLUME")
    assert Path(volume) in Path(config.data).parents


async def test_the_image_healthcheck_passes_against_a_real_server(live_server: Server) -> None:
    """The Dockerfile's HEALTHCHECK command, run as written, exits 0 against a running server."""
    argv = image_healthcheck()
    assert argv[0] == "python"
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        *argv[1:],
        env={**image_env(), "CAFE_PORT": str(live_server.port)},
        stderr=asyncio.subprocess.PIPE,
    )
    _, err = await process.communicate()
    assert process.returncode == 0, err.decode()


async def test_every_health_path_the_deploy_files_ask_is_answered_ok(live_server: Server) -> None:
    """The paths probed by the image, the balancer's checks and compose all answer 200 {"status": "ok"}."""
    paths: set[str] = set()
    for word in image_healthcheck() + compose()["services"]["balancer"]["healthcheck"]["test"]:
        paths.update(urlsplit(url).path for url in re.findall(r"http://[^'\" ]+", word))
    for lines in haproxy().values():
        paths.update(line[3] for line in lines if line[:3] == ["option", "httpchk", "GET"])
    assert paths
    for path in paths:
        status, body = await http_get(f"http://127.0.0.1:{live_server.port}{path}")
        assert status == 200, path
        assert json.loads(body)["status"] == "ok", path


# --- the cluster ----------------------------------------------------------------------------------


def test_compose_nodes_share_the_compose_redis_under_distinct_names() -> None:
    """At least two nodes, each with --redis at the compose redis service and its own --node-id."""
    services = compose()["services"]
    nodes = compose_nodes()
    assert len(nodes) >= 2
    node_ids = []
    for name, service in nodes.items():
        config = node_config(service)
        assert config.redis is not None, name
        url = urlsplit(config.redis)
        redis = services[url.hostname]
        assert redis["image"].startswith("redis:"), name
        assert (url.port or REDIS_DEFAULT_PORT) == REDIS_DEFAULT_PORT
        assert "--appendonly" in redis["command"]
        assert service["depends_on"][url.hostname]["condition"] == "service_healthy", name
        node_ids.append(config.node_id)
    assert None not in node_ids and len(set(node_ids)) == len(node_ids)
    assert len({json.dumps(s["build"], sort_keys=True) + s["image"] for s in nodes.values()}) == 1


def test_compose_nodes_ack_a_move_once_the_compose_replica_has_it() -> None:
    """Every node runs with --redis-durability replica, and a replica service copies the nodes'
    Redis, on a volume of its own, with the append-only file on; the nodes start once it follows
    the primary (its health is its link's, not only an answer to PING)."""
    services = compose()["services"]
    for name, service in compose_nodes().items():
        config = node_config(service)
        assert config.redis_durability == "replica", name
        primary = urlsplit(config.redis or "").hostname
        replicas = {
            n: s for n, s in services.items() if s.get("command", [])[:2] == ["redis-server", "--replicaof"]
        }
        assert replicas, "no replica of the nodes' Redis"
        for replica_name, replica in replicas.items():
            command = replica["command"]
            assert command[2:4] == [primary, str(REDIS_DEFAULT_PORT)], name
            assert command[command.index("--appendonly") + 1] == "yes"
            assert replica["depends_on"][primary]["condition"] == "service_healthy"
            assert "master_link_status:up" in " ".join(replica["healthcheck"]["test"])
            assert service["depends_on"][replica_name]["condition"] == "service_healthy", name
            assert {v.split(":")[0] for v in replica["volumes"]}.isdisjoint(
                v.split(":")[0] for v in services[primary]["volumes"]
            )


def test_the_balancer_checks_readiness_not_liveness() -> None:
    """Every backend asks /readyz (503 while a node cannot reach Redis), so clients go to nodes
    that can serve them."""
    checks = [line for lines in haproxy().values() for line in lines if line[:2] == ["option", "httpchk"]]
    assert len(checks) == len(haproxy_frontends())
    assert all(line[2:] == ["GET", "/readyz"] for line in checks), checks


def test_the_balancer_forwards_both_ports_to_every_node() -> None:
    """HAProxy listens on 8765 (mode http, WebSocket) and 2323 (mode tcp), each backend holding every node."""
    frontends = haproxy_frontends()
    assert set(frontends) == {PORT, LINE_PORT}
    assert frontends[PORT][0] == "http" and frontends[LINE_PORT][0] == "tcp"
    nodes = set(compose_nodes())
    sections = haproxy()
    for port, (mode, backend) in frontends.items():
        lines = sections[f"backend {backend}"]
        assert ["mode", mode] in lines
        targets = {tuple(line[2].rsplit(":", 1)) for line in lines if line[0] == "server"}
        assert targets == {(node, str(port)) for node in nodes}, backend


def test_the_balancer_names_each_client_and_the_nodes_trust_it_alone() -> None:
    """Behind HAProxy every client reaches a node from the balancer's address: the web frontend
    adds X-Forwarded-For, the line backend sends a PROXY header to each node (its checks, to
    another port, do not), and every node trusts the balancer's fixed address alone, which lies
    in the compose network's own subnet, outside the range Docker gives the other containers."""
    sections = haproxy()
    assert ["option", "forwardfor"] in sections["frontend web"]
    lines = sections["frontend line"]
    line_backend = sections[f"backend {next(line[1] for line in lines if line[0] == 'default_backend')}"]
    servers = [line for line in line_backend if line[0] == "server"]
    assert servers and all(line[-1] == "send-proxy" and "port" in line for line in servers), servers
    web_servers = [line for line in sections["backend nodes_web"] if line[0] == "server"]
    assert web_servers and not any("send-proxy" in line for line in web_servers)
    data = compose()
    (pool,) = data["networks"]["default"]["ipam"]["config"]
    balancer = data["services"]["balancer"]["networks"]["default"]["ipv4_address"]
    # inside the subnet, outside the range the other containers' addresses are drawn from
    assert ipaddress.ip_address(balancer) in ipaddress.ip_network(pool["subnet"])
    assert ipaddress.ip_network(pool["ip_range"]).subnet_of(ipaddress.ip_network(pool["subnet"]))
    assert ipaddress.ip_address(balancer) not in ipaddress.ip_network(pool["ip_range"])
    for name, node in compose_nodes().items():
        assert node["environment"]["CAFE_TRUSTED_PROXIES"] == balancer, name
        assert "CAFE_MAX_PER_IP" not in node["environment"], name  # each node counts real clients


def test_the_balancer_holds_each_client_to_the_connections_a_node_would() -> None:
    """Both frontends count each client's connections in one table over both nodes, refusing one
    past the server's default --max-per-ip."""
    limit = Config().max_per_ip
    sections = haproxy()
    table = sections["backend per_client"]
    assert table[0][:3] == ["stick-table", "type", "ipv6"] and "conn_cur" in table[0]
    for name in (n for n in sections if n.startswith("frontend ")):
        lines = sections[name]
        assert ["tcp-request", "connection", "track-sc0", "src", "table", "per_client"] in lines, name
        reject = [
            "tcp-request",
            "connection",
            "reject",
            "if",
            "{",
            "sc0_conn_cur(per_client)",
            "gt",
            str(limit),
            "}",
        ]
        assert reject in lines, name


def test_compose_publishes_the_balancer_on_both_ports() -> None:
    """The balancer service mounts haproxy.cfg, publishes 8765 and 2323 and waits for healthy nodes."""
    balancer = compose()["services"]["balancer"]
    assert any(volume.startswith("./haproxy.cfg:") for volume in balancer["volumes"])
    published = {tuple(int(p) for p in mapping.split(":")[-2:]) for mapping in balancer["ports"]}
    assert published == {(PORT, PORT), (LINE_PORT, LINE_PORT)}
    assert {n: d["condition"] for n, d in balancer["depends_on"].items()} == dict.fromkeys(
        compose_nodes(), "service_healthy"
    )


def test_compose_nodes_keep_their_records_in_the_compose_postgres_and_wait_for_it() -> None:
    """Every node's CAFE_DATABASE is the compose PostgreSQL (its password from POSTGRES_PASSWORD,
    which compose requires), which keeps its data on a volume of its own and has a health check
    the nodes wait for."""
    services = compose()["services"]
    for name, service in compose_nodes().items():
        assert POSTGRES_PASSWORD in service["environment"]["CAFE_DATABASE"], name
        config = node_config(service)
        assert config.database is not None and config.redis is not None, name
        where = urlsplit(config.database)
        postgres = services[where.hostname or ""]
        assert postgres["image"].startswith("postgres:") and where.port == 5432, name
        assert where.path == "/" + postgres["environment"]["POSTGRES_DB"]
        assert where.username == postgres["environment"]["POSTGRES_USER"]
        assert postgres["environment"]["POSTGRES_PASSWORD"] == POSTGRES_PASSWORD
        assert service["depends_on"][where.hostname or ""]["condition"] == "service_healthy", name
    postgres = services["postgres"]
    assert [v.split(":")[1] for v in postgres["volumes"]] == ["/var/lib/postgresql/data"]
    assert postgres["volumes"][0].split(":")[0] in compose()["volumes"]
    assert postgres["healthcheck"]["test"][:2] == ["CMD", "pg_isready"]


# --- the systemd unit -----------------------------------------------------------------------------


def test_the_unit_stops_gracefully_restarts_on_failure_and_may_write_the_data_dir() -> None:
    """The unit reads /etc/cafe/cafe.env, runs as cafe, stops by SIGTERM, and the log's folder is writable."""
    service = dict(unit()["Service"])
    assert service["EnvironmentFile"] == "/etc/cafe/cafe.env"
    assert service["User"] == "cafe"
    assert service["KillSignal"] == "SIGTERM" and float(service["TimeoutStopSec"]) > 0
    assert service["Restart"] == "on-failure"
    assert service["NoNewPrivileges"] == "yes" and service["ProtectSystem"] == "strict"
    assert service["PrivateTmp"] == "yes"
    data = dict((name, value) for name, value, commented in env_example() if not commented)["CAFE_DATA"]
    writable = [Path(p) for values in unit_values("Service", "ReadWritePaths") for p in values.split()]
    assert any(path in Path(data).parents for path in writable), data


def test_cafe_admin_in_a_compose_node_finds_the_cluster_by_itself() -> None:
    """The nodes take Redis and PostgreSQL from their environment, so ``docker compose exec node1
    cafe-admin COMMAND`` reads the cluster's data without flags (the image's ``CAFE_DATA`` aside)."""
    for name, service in compose_nodes().items():
        args = admin_cli.build_parser().parse_args(["modlog"])
        config = admin_cli.settings(args, {**image_env(), **node_environment(service)})
        assert (config.redis, config.database) == (node_config(service).redis, node_config(service).database)
        assert config.redis is not None and config.database is not None, name
