"""Settings as the earlier systems wrote them, where that is safe: a bare numeric owner id
on a configured default platform, and the old TOML names of the owner setting."""

from __future__ import annotations

from pathlib import Path

import pytest

from confidante import ConfigError, Context, Memory
from confidante.config import load_settings
from confidante.model import qualify_actor


def test_a_bare_owner_id_needs_a_default_platform(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CONFIDANTE_OWNER_IDS", "123456789012345678, telegram:7")
    with pytest.raises(ConfigError):  # a bare id could be anyone on any platform
        load_settings()
    monkeypatch.setenv("CONFIDANTE_DEFAULT_PLATFORM", "discord")
    assert load_settings().owner_ids == ["discord:123456789012345678", "telegram:7"]
    assert qualify_actor("42", "discord") == "discord:42"
    assert qualify_actor("slack:U1", "discord") == "slack:U1"
    with pytest.raises(Exception):  # noqa: B017 - only digits are a platform's bare id
        qualify_actor("alice", "discord")


@pytest.mark.parametrize("name", ["owner_id", "owner", "owners", "OWNER-ID"])
def test_the_old_toml_names_of_the_owner(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, key: bytes
) -> None:
    cfg = tmp_path / "config.toml"
    cfg.write_text(f'default_platform = "discord"\n{name} = "1"\n')
    monkeypatch.setenv("CONFIDANTE_CONFIG", str(cfg))
    assert load_settings().owner_ids == ["discord:1"]
    with Memory.open(tmp_path / "m.db", master_key=key) as mem:
        assert mem.owners == {"discord:1"}
        mem.remember(Context.dm("discord:1"), "the owner's plan", "owner")
