"""Secrets in a config file follow the key file's rule: a file others may read is refused."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from confidante import KeyFileExposed, Memory
from confidante.config import load_settings
from confidante.vault.crypto import encode_key, new_key

from conftest import OWNER


def _config(tmp_path: Path, body: str, mode: int, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "config.toml"
    path.write_text(body)
    path.chmod(mode)
    monkeypatch.setenv("CONFIDANTE_CONFIG", str(path))
    return path


@pytest.mark.parametrize("mode", [0o644, 0o640, 0o604, 0o660])
def test_a_master_key_in_a_readable_config_file_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mode: int
) -> None:
    key = encode_key(new_key())
    _config(tmp_path, f'master_key = "{key}"\n', mode, monkeypatch)
    with pytest.raises(KeyFileExposed) as e:
        load_settings()
    assert e.value.code == "key_file_permissions"
    assert key not in str(e.value) and "chmod 600" in str(e.value)
    with pytest.raises(KeyFileExposed):
        Memory.open(tmp_path / "m.db", owner_ids=[OWNER])
    assert not (tmp_path / "m.db").exists()


def test_a_private_config_file_may_hold_the_master_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    key = new_key()
    _config(tmp_path, f'master_key = "{encode_key(key)}"\n', 0o600, monkeypatch)
    assert load_settings().master_key.get_secret_value() == encode_key(key)
    Memory.open(tmp_path / "m.db", owner_ids=[OWNER]).close()


def test_a_database_password_in_a_readable_config_file_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _config(
        tmp_path, 'db = "postgresql://app:hunter2hunter2@db.internal/mem"\n', 0o644, monkeypatch
    )
    with pytest.raises(KeyFileExposed) as e:
        load_settings()
    assert "hunter2" not in str(e.value)


def test_settings_without_secrets_may_be_world_readable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    body = 'owner_ids = ["discord:1"]\ndb = "postgresql://app@db.internal/mem"\n'
    _config(tmp_path, body, 0o644, monkeypatch)
    assert load_settings().owner_ids == ["discord:1"]


def test_the_cli_names_the_problem_without_the_key(tmp_path: Path) -> None:
    key = encode_key(new_key())
    cfg = tmp_path / "config.toml"
    cfg.write_text(f'master_key = "{key}"\n')
    cfg.chmod(0o644)
    env = {k: v for k, v in os.environ.items() if not k.startswith("CONFIDANTE_")}
    env.update(HOME=str(tmp_path), CONFIDANTE_CONFIG=str(cfg), XDG_DATA_HOME=str(tmp_path / "d"))
    run = subprocess.run(
        [sys.executable, "-m", "confidante", "config", "--show", "--json"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode != 0
    assert "key_file_permissions" in run.stdout + run.stderr
    assert key not in run.stdout + run.stderr
