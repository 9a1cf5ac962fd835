"""The app's settings kept between runs (the theme): a small JSON file under the user's config folder.

`$WORKBENCH_SETTINGS` names the file outright (tests, or a second profile); otherwise it is
`$XDG_CONFIG_HOME/d2k-workbench/settings.json` (`~/.config` when XDG_CONFIG_HOME is unset). A file that cannot be
read or parsed gives the defaults and a one-line notice; it is left as it is until a setting is saved over it."""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass
from pathlib import Path

SETTINGS_ENV = "WORKBENCH_SETTINGS"


@dataclass
class Settings:
    theme: str | None = None  # a Textual theme's name; None: the app's default


def settings_path() -> Path:
    named = os.environ.get(SETTINGS_ENV)
    if named:
        return Path(named).expanduser()
    config = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(config) / "d2k-workbench" / "settings.json"


def load_settings(path: Path) -> tuple[Settings, str | None]:
    """The settings in `path` (defaults when it does not exist) and, when it cannot be used, why in one line."""
    try:
        data = json.loads(path.read_text())
    except FileNotFoundError:
        return Settings(), None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        return Settings(), f"settings file {path} unreadable ({_first_line(exc)}): defaults used"
    theme = data.get("theme") if isinstance(data, dict) else None
    if not isinstance(data, dict) or not isinstance(theme, str | None):
        return Settings(), f"settings file {path} is not a settings object: defaults used"
    return Settings(theme=theme), None


def save_settings(path: Path, settings: Settings) -> None:
    """Write the settings whole (a temporary file renamed over the old one: a crash leaves one or the other)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_text(json.dumps(asdict(settings), indent=2) + "\n")
    temporary.replace(path)


def _first_line(exc: Exception) -> str:
    return str(exc).splitlines()[0] if str(exc) else type(exc).__name__
