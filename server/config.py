"""Configuration: command-line flags, each with a ``CAFE_*`` environment variable as its default.

``cafe-server --help`` lists every setting. A flag wins over the environment, the environment
over the embedded default.
"""

from __future__ import annotations

import argparse
import os
import re
import urllib.parse
from collections.abc import Mapping, Sequence
from typing import Annotated, Any

import annotated_types
from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError

from server.peers import TrustedProxies


def _origins(spec: str | None) -> str | None:
    """``--allowed-origins`` as given, once it is ``*`` or every part of it is an origin as a
    browser sends one: ``http`` or ``https``, a host, perhaps a port, and nothing after them.

    >>> _origins("https://cafe.example.org, http://127.0.0.1:8765/")
    'https://cafe.example.org, http://127.0.0.1:8765/'
    >>> _origins("cafe.example.org")
    Traceback (most recent call last):
    ValueError: 'cafe.example.org' is not an origin
    """
    if spec is None or spec.strip() == "*":
        return spec
    parts = [part.strip() for part in spec.split(",")]
    if not any(parts):
        raise ValueError("no origin listed")
    for part in filter(None, parts):
        try:
            url = urllib.parse.urlsplit(part)
            port = url.port  # (a port out of range raises)
        except ValueError:
            raise ValueError(f"{part!r} is not an origin") from None
        if (
            url.scheme not in ("http", "https")
            or not url.hostname
            or url.username is not None
            or url.password is not None
            or url.path not in ("", "/")
            or url.query
            or url.fragment
            or port == 0
        ):
            raise ValueError(f"{part!r} is not an origin")
    return spec


def _proxies(spec: str | None) -> str | None:
    """``--trusted-proxies`` as given, once every part of it reads as an address or a network."""
    TrustedProxies(spec)
    return spec


class Config(BaseModel):
    """Every setting of the server, validated."""

    # (an infinite or undefined number is no setting: a budget or a lease of inf never ends)
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    host: str = Field(
        "127.0.0.1", min_length=1, description="address of the HTTP/WebSocket and line endpoints"
    )
    port: int = Field(
        8765,
        ge=0,
        le=65535,
        description="HTTP and WebSocket port (/ws, /livez, /readyz, /healthz, /metrics, the web page)",
    )
    line_port: int = Field(2323, ge=-1, le=65535, description="line (telnet/nc) port; -1 turns it off")
    data: str = Field(
        "./data/cafe.db", min_length=1, description="SQLite file of the game log; ':memory:' keeps nothing"
    )
    log_level: str = Field(
        "info", pattern="^(debug|info|warning|error)$", description="debug, info, warning, error"
    )
    log_format: str = Field(
        "json", pattern="^(json|console)$", description="json (one object a line) or console"
    )
    outbox: int = Field(256, ge=8, description="messages queued per connection before it counts as slow")
    slow_strikes: int = Field(3, ge=1, description="resyncs of a slow connection before it is dropped")
    max_connections: int = Field(5000, ge=1, description="connections the server accepts at once")
    max_rooms: int = Field(2000, ge=1, description="rooms the server holds at once")
    max_frame: int = Field(16384, ge=256, description="largest WebSocket frame accepted, in bytes")
    max_line: int = Field(1024, ge=80, description="longest line accepted on the line endpoint, in bytes")
    compression: str = Field(
        "none",
        pattern="^(none|deflate)$",
        description="WebSocket compression: none, or deflate (permessage-deflate when the client offers"
        " it: less traffic for about 35 KB more memory a connection and 10 us more CPU a message)",
    )
    event_loop: str = Field(
        "uvloop",
        pattern="^(uvloop|asyncio)$",
        description="uvloop (a sixth less CPU a move at full load; asyncio's where not installed) or asyncio",
    )
    allowed_origins: Annotated[str | None, AfterValidator(_origins)] = Field(
        None,
        description="web pages (Origin header) whose scripts may open /ws: a comma list of origins"
        " (https://cafe.example.org), or * for any; default the page's own origin (the same host:port"
        " as the request's Host). Clients that send no Origin (bots, terminals) are always let in."
        " A server listening on loopback answers only a Host that is an address, localhost, or the"
        " host of an origin listed here",
    )
    ping_interval: float = Field(
        20.0,
        gt=0,
        description="seconds between keep-alive pings to a WebSocket client; one that leaves a ping"
        " unanswered as long is closed",
    )
    hello_timeout: float = Field(
        10.0, gt=0, description="seconds a new connection has to say hello (give a name) before it is closed"
    )
    max_per_ip: int = Field(
        20,
        ge=1,
        description="connections one address (an IPv6 one: its /64) may hold at once (20: a household"
        " or office behind one NAT with a few tabs and bots stays below it, while one host cannot take"
        " the server's max-connections)",
    )
    trusted_proxies: Annotated[str | None, AfterValidator(_proxies)] = Field(
        None,
        description="reverse proxies in front of the server (a comma list of addresses or networks:"
        " 10.0.0.5,172.28.0.0/16) whose word on the client's address is taken: a WebSocket or HTTP"
        " request from one is counted as the last address of its X-Forwarded-For header, a line"
        " connection from one must begin with a PROXY protocol v1 header (HAProxy's send-proxy)"
        " and is counted as the client it names; default none",
    )
    rate: float = Field(20.0, gt=0, description="messages per second a connection may send (sustained)")
    burst: int = Field(40, ge=1, description="messages a connection may send in a burst")
    chat_rate: float = Field(1.0, gt=0, description="chat messages per second a connection may send")
    chat_burst: int = Field(5, ge=1, description="chat messages a connection may send in a burst")
    resume_window: float = Field(
        300.0, ge=0, description="seconds a name and seat are held for a lost connection"
    )
    game_max_age: float = Field(
        604800.0,
        ge=0,
        description="seconds after its start that a game waiting with nobody in its room ends (closed,"
        " unrated): its players left it, or lost their connections longer than the resume window ago;"
        " 0 keeps such games for ever",
    )
    clock_min: float = Field(5.0, gt=0, description="shortest turn clock, in seconds, a room may set")
    bot_budget: float = Field(1.0, gt=0, le=60, description="seconds the strong bot thinks per move")
    max_bot_games: int = Field(
        2, ge=0, description="games a person may have running against the server's bots alone"
    )
    bot_workers: int = Field(
        1,
        ge=0,
        description="processes the server's bots think in (their moves queue for them, so that others'"
        " games never wait for a bot); 0 thinks in the server's own process",
    )
    analysis_workers: int = Field(
        1,
        ge=1,
        le=16,
        description="analyses of finished games (/analyse) run at once, each in a process of its own at"
        " a lower priority, so that games in play never wait for one",
    )
    analysis_budget: float = Field(
        0.75, gt=0, le=10, description="seconds of one core an analysis spends on each move of the game"
    )
    analysis_queue: int = Field(
        20, ge=1, description="analyses that may wait for a worker; more are refused until one is done"
    )
    analysis_rate: int = Field(
        10,
        ge=1,
        description="new analyses one person may ask for an hour (three times as many one address);"
        " an analysis kept already costs nothing and does not count",
    )
    redis: str | None = Field(
        None,
        pattern="^(redis|rediss|unix)://",
        description="cluster mode: share rooms, names and the game log through this Redis"
        " (redis://HOST:PORT/0; rediss:// with TLS, unix://PATH?db=0 on a Unix socket)",
    )
    redis_durability: str = Field(
        "none",
        pattern="^(none|fsync|replica)$",
        description="cluster mode: when a move is acked. none: once Redis has it in memory; fsync: once"
        " it is on Redis' disk (Redis must run with appendonly yes, appendfsync always; checked at"
        " start-up); replica: once a replica has it too (WAIT 1)",
    )
    redis_window: float = Field(
        10.0,
        ge=0,
        le=1000,
        description="cluster mode: milliseconds at least between two round trips in which a node"
        " sends its moves and its messages to other nodes, while they keep coming (the first after"
        " a pause goes at once); what comes meanwhile goes together. Larger costs a move latency"
        " and saves CPU; 0: each as soon as the last is back",
    )
    database: str | None = Field(
        None,
        pattern="^(postgresql|postgres)://",
        description="cluster mode: keep the records (accounts, ratings, lists, finished games) in this"
        " PostgreSQL database (postgresql://USER:PASSWORD@HOST:PORT/DB), Redis only what is live;"
        " needs --redis",
    )
    node_id: str | None = Field(
        None, description="this node's name in a cluster (default: host name and process id)"
    )
    lease: float = Field(
        3.0,
        ge=0.5,
        le=600,
        description="cluster mode: seconds a room's lease lasts, the longest a dead node's rooms wait"
        " before another node takes them over; a node's heartbeat (every third of it), its expiry"
        " (5/3 of it), its readiness and its people's names (ten times it) follow it",
    )
    hash_memory: int = Field(
        65536, ge=8, description="KiB of memory one argon2id password hash uses (argon2-cffi's default)"
    )
    hash_workers: int = Field(2, ge=1, description="threads that hash passwords, beside the event loop")
    login_attempts: int = Field(
        5,
        ge=1,
        description="failed logins of one name (and 4 times as many of one address, an IPv6 one by"
        " its /64) per 5 minutes",
    )
    static_dir: str | None = Field(
        None, description="serve the web page from this folder instead of the bundled one"
    )

    @property
    def data_shown(self) -> str:
        """Where the data is, for a log line or a terminal: ``--data``, or ``--redis`` without a
        password (in its user part or its query).

        >>> Config(redis="redis://:s3cret@10.0.0.5:6379/0").data_shown
        'redis://10.0.0.5:6379/0'
        >>> Config(redis="unix:///run/redis.sock?db=0&password=s3cret").data_shown
        'unix:///run/redis.sock?db=0'
        >>> Config(redis="rediss://cafe:s3cret@[::1]/1").data_shown, Config(data="x.db").data_shown
        ('rediss://[::1]/1', 'x.db')
        """
        if self.redis is None:
            return self.data
        parts = urllib.parse.urlsplit(self.redis)
        host = parts.hostname or ""
        host = f"[{host}]" if ":" in host else host
        where = host if parts.port is None else f"{host}:{parts.port}"
        query = "&".join(p for p in parts.query.split("&") if p and not p.startswith("password="))
        return f"{parts.scheme}://{where}{parts.path}" + (f"?{query}" if query else "")

    @property
    def argon2(self) -> dict[str, Any]:
        """The password hashing settings, as ``server.lobby.accounts.Accounts`` takes them."""
        return {
            "memory_cost": self.hash_memory,
            "workers": self.hash_workers,
            "name_limit": self.login_attempts,
            "address_limit": 4 * self.login_attempts,
        }


def _env_name(name: str) -> str:
    return "CAFE_" + name.upper()


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="cafe-server",
        description="The Café International game server: WebSocket, HTTP and line (telnet) endpoints.",
        epilog="Every flag can also be set by the environment variable shown; a flag wins.",
    )
    for name, info in Config.model_fields.items():
        flag = "--" + name.replace("_", "-")
        default = info.default
        parser.add_argument(
            flag,
            dest=name,
            default=None,
            metavar=name.upper(),
            help=f"{info.description} [env {_env_name(name)}; default {default}]",
        )
    return parser


#: the settings only a cluster reads: refused without ``--redis``, where they would be ignored
_CLUSTER_ONLY = ("database", "redis_durability", "redis_window", "node_id", "lease")
#: what a ``--data`` flag leaves unread in the environment: a cluster's settings
_CLUSTER_STORES = ("redis", *_CLUSTER_ONLY)


def load_config(argv: Sequence[str] | None = None, environ: Mapping[str, str] | None = None) -> Config:
    """The configuration from flags over ``CAFE_*`` variables over the defaults."""
    environ = os.environ if environ is None else environ
    args = build_parser().parse_args(argv)
    # ``--data`` on the command line names where the data is, a SQLite file: a cluster's Redis
    # and PostgreSQL in the environment (a shell that loaded the cluster's settings) are not read
    unread = _CLUSTER_STORES if args.data is not None and args.redis is None else ()
    values: dict[str, Any] = {}
    for name in Config.model_fields:
        value = getattr(args, name)
        if value is None and name not in unread:
            value = environ.get(_env_name(name))
            if value == "" and Config.model_fields[name].default is None:
                value = None  # an optional setting left empty (CAFE_REDIS=) is one not given
        if value is not None:
            values[name] = value
    try:
        config = Config.model_validate(values, strict=False)
    except ValidationError as e:
        raise ConfigError(_refusal(e, args, environ)) from None
    if not config.redis:  # (PostgreSQL keeps a cluster's records, beside Redis)
        for name in _CLUSTER_ONLY:
            if getattr(config, name) != Config.model_fields[name].default:
                flag = f"--{name.replace('_', '-')} ({_env_name(name)})"
                raise ConfigError(f"{flag} needs --redis (CAFE_REDIS): only a cluster uses it")
    return config


class ConfigError(ValueError):
    """A setting's value is not one the server takes; the message names the flag or variable, the
    value and what is allowed, on one line (``cafe-server`` prints it and exits with status 2, as
    argparse does for a flag it does not know)."""


def _refusal(error: ValidationError, args: argparse.Namespace, environ: Mapping[str, str]) -> str:
    """The first refused setting, as one line: where it came from, its value, what is allowed."""
    name = str(error.errors()[0]["loc"][0])
    value = getattr(args, name)
    where = "--" + name.replace("_", "-") if value is not None else _env_name(name)
    if value is None:
        value = environ.get(_env_name(name), "")
    return f"{where}: {value!r} is not {allowed(name)}"


#: what the settings that must not be empty take
_TEXTS = {"host": "an address or a host name", "data": "a file's path, or :memory:"}


def allowed(name: str) -> str:
    """What setting ``name`` takes, in words.

    >>> allowed("port"), allowed("max_per_ip"), allowed("log_format")
    ('an integer from 0 to 65535', 'an integer of 1 or more', 'json or console')
    >>> allowed("lease"), allowed("bot_budget")
    ('a number from 0.5 to 600', 'a number greater than 0, at most 60')
    >>> allowed("host"), allowed("data")
    ('an address or a host name', "a file's path, or :memory:")
    >>> allowed("analysis_budget")
    'a number greater than 0, at most 10'
    >>> allowed("database")
    'a URL starting with postgresql:// or postgres://'
    """
    if name == "trusted_proxies":
        return "a comma list of addresses or networks, a network without host bits (10.0.0.5,172.28.0.0/16)"
    if name == "allowed_origins":
        return "* or a comma list of origins (https://cafe.example.org,http://127.0.0.1:8765)"
    info = Config.model_fields[name]
    low: str | None = None
    high: str | None = None
    for bound in info.metadata:
        if isinstance(bound, annotated_types.Ge):
            low = f"{bound.ge}"
        elif isinstance(bound, annotated_types.Gt):
            low = f">{bound.gt}"
        elif isinstance(bound, annotated_types.Le):
            high = f"{bound.le}"
        elif getattr(bound, "pattern", None):
            choices = re.fullmatch(r"\^\((.*)\)\$", bound.pattern)
            if choices:
                *first, last = choices[1].split("|")
                return f"{', '.join(first)} or {last}"
            schemes = re.fullmatch(r"\^\((.*)\)://", bound.pattern)
            if schemes:
                *first, last = (f"{scheme}://" for scheme in schemes[1].split("|"))
                return f"a URL starting with {', '.join(first)} or {last}"
    if any(isinstance(bound, annotated_types.MinLen) for bound in info.metadata):
        return _TEXTS[name]
    kind = "an integer" if info.annotation is int else "a number"
    if low is not None and low.startswith(">"):
        return f"{kind} greater than {low[1:]}" + ("" if high is None else f", at most {high}")
    if low is not None and high is not None:
        return f"{kind} from {low} to {high}"
    if low is not None:
        return f"{kind} of {low} or more"
    return "a text" if info.annotation is not int and info.annotation is not float else kind
