"""MkDocs hook: the site's header names the version the docs describe, read from
pyproject.toml (the one place it is written), so the two cannot drift."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import tomllib


def on_config(config: Any, **kwargs: Any) -> Any:
    pyproject = Path(config["config_file_path"]).parent / "pyproject.toml"
    version = tomllib.loads(pyproject.read_text())["project"]["version"]
    config["site_name"] = f"{config['site_name']} {version}"
    return config
