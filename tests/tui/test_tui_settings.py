"""The theme is kept between runs in a settings file (honouring XDG_CONFIG_HOME, or named by $WORKBENCH_SETTINGS);
a corrupt file gives a one-line notice and the defaults, never a crash."""

import json

import pytest
from tui_helpers import app_test, wait_until

from workbench.tui.app import WorkbenchApp
from workbench.tui.home import HomeScreen
from workbench.tui.settings import settings_path


@pytest.fixture
def config(tmp_path, monkeypatch, fixture_root):
    monkeypatch.delenv("WORKBENCH_SETTINGS", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    return tmp_path / "config" / "d2k-workbench" / "settings.json"


def test_the_settings_file_is_under_xdg_config_home_unless_named(config, tmp_path, monkeypatch):
    assert settings_path() == config
    monkeypatch.setenv("WORKBENCH_SETTINGS", str(tmp_path / "mine.json"))
    assert settings_path() == tmp_path / "mine.json"


async def started(app, pilot) -> None:
    await wait_until(pilot, lambda: isinstance(app.screen, HomeScreen) and app.screen.is_mounted)


@app_test
async def test_a_chosen_theme_is_restored_at_the_next_start(config, tmp_path):
    first = WorkbenchApp(sessions=tmp_path / "sessions", settings=settings_path())
    async with first.run_test() as pilot:
        await started(first, pilot)
        default = first.theme
        chosen = next(name for name in ("dracula", "nord", "gruvbox") if name != default)
        first.theme = chosen  # what picking it in the command palette does
        await pilot.pause()
    assert json.loads(config.read_text())["theme"] == chosen
    second = WorkbenchApp(sessions=tmp_path / "sessions", settings=settings_path())
    async with second.run_test() as pilot:
        await started(second, pilot)
        assert second.theme == chosen and not second._notifications


@app_test
async def test_a_corrupt_settings_file_gives_one_line_and_the_defaults(config, tmp_path):
    config.parent.mkdir(parents=True)
    config.write_text('{"theme": "nord",')  # cut short
    app = WorkbenchApp(sessions=tmp_path / "sessions", settings=settings_path())
    default = WorkbenchApp().theme
    async with app.run_test() as pilot:
        await started(app, pilot)
        [notice] = [n.message for n in app._notifications]
        assert "unreadable" in notice and str(config) in notice and "\n" not in notice
        assert app.theme == default
    assert config.read_text() == '{"theme": "nord",'  # left for the person to look at


@app_test
async def test_an_unknown_theme_in_the_settings_is_said_and_ignored(config, tmp_path):
    config.parent.mkdir(parents=True)
    config.write_text(json.dumps({"theme": "no-such-theme"}))
    app = WorkbenchApp(sessions=tmp_path / "sessions", settings=settings_path())
    async with app.run_test() as pilot:
        await started(app, pilot)
        [notice] = [n.message for n in app._notifications]
        assert "no-such-theme" in notice and app.theme != "no-such-theme"
