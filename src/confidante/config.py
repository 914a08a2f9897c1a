"""Configuration: environment (`CONFIDANTE_*`), an optional TOML file, then defaults.

Precedence, highest first: explicit arguments, environment variables, the TOML file
named by `CONFIDANTE_CONFIG` (or `~/.config/confidante/config.toml`), defaults.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import (
    BaseSettings,
    NoDecode,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

from .model import normalize_actor


def _xdg(var: str, fallback: str) -> Path:
    return Path(os.environ.get(var) or Path.home() / fallback)


def default_db_path() -> Path:
    return _xdg("XDG_DATA_HOME", ".local/share") / "confidante" / "memory.db"


def default_config_path() -> Path:
    return Path(
        os.environ.get("CONFIDANTE_CONFIG")
        or _xdg("XDG_CONFIG_HOME", ".config") / "confidante" / "config.toml"
    )


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="CONFIDANTE_", extra="ignore")

    owner_ids: Annotated[list[str], NoDecode] = Field(default_factory=list)
    master_key: SecretStr | None = None
    db: Path | str = Field(default_factory=default_db_path)  # a file, or a postgresql:// URL
    key_file: Path | None = None
    # Expiry: every stored (T2) fact expires. Explicit ttl > kind > scope > default.
    default_ttl_days: float = Field(30.0, gt=0)  # the tiered model's default
    ttl_days_by_scope: dict[str, float] = Field(default_factory=dict)  # e.g. {"owner": 365}
    ttl_days_by_kind: dict[str, float] = Field(default_factory=dict)  # e.g. {"profile": 180}
    refresh_on_read: bool = False  # recalled facts get their expiry pushed forward
    # Cleanup protocol
    archive_grace_days: float = Field(30.0, ge=0)  # expired facts wait, encrypted, then go
    pattern_max_age_days: float = Field(90.0, gt=0)  # public patterns not seen since: dropped
    cleanup_interval_days: float = Field(7.0, gt=0)  # how often `serve` runs cleanup
    # Privacy guard: refuse T3 data (default) or store it redacted ("[EMAIL]")
    privacy_mode: Literal["refuse", "redact"] = "refuse"
    # Recall: the embedder for semantic ranking ("none" = keyword only)
    embedder: str = "default"
    # Decrypted partitions kept in memory, least recently used dropped first (MiB)
    cache_mb: float = Field(256.0, gt=0)
    # PostgreSQL: how often a server completes pending erasure (re-key, master-key rotation)
    erasure_interval_minutes: float = Field(60.0, ge=0)

    @field_validator("owner_ids", mode="before")
    @classmethod
    def _split_owner_ids(cls, value: Any) -> Any:
        if isinstance(value, str):
            # ASCII spacing around commas only: an id with Unicode spaces is refused, not
            # trimmed into another id (see model.parse_actor)
            value = [v for v in (p.strip(" \t\r\n") for p in value.split(",")) if v]
        return value

    @field_validator("owner_ids")
    @classmethod
    def _valid_owner_ids(cls, value: list[str]) -> list[str]:
        return [normalize_actor(v) for v in value]

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        toml = TomlConfigSettingsSource(settings_cls, toml_file=default_config_path())
        return (init_settings, env_settings, toml)


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
