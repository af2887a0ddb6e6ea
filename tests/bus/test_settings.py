"""A service's numbers from its environment (match_bus.settings): each read as the variable
says, and a value it cannot use refused with a sentence naming it, before the service starts
(one line on stderr, no traceback), for every service."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from match_bus.clock import Clock
from match_bus.settings import decimal, whole
from match_client import cli
from match_client.terminal import Settings
from services.bot.config import BotConfig
from services.ledger.service import LedgerConfig
from services.lobby.config import ConfigError as LobbyConfigError
from services.lobby.config import LobbyConfig
from services.referee.config import RefereeConfig
from tests.refused import refused_at_start


def test_a_whole_number_is_read_or_its_default_taken() -> None:
    assert whole({}, "N", 7) == 7
    assert whole({"N": "  "}, "N", 7) == 7
    assert whole({"N": " 12 "}, "N", 7, 0) == 12
    assert whole({"N": "0"}, "N", 7, 0) == 0


@pytest.mark.parametrize(
    ("text", "minimum", "unit", "said"),
    [
        (
            "abc",
            0,
            "milliseconds",
            "N must be a whole number of milliseconds, 0 or more, not 'abc'",
        ),
        ("-1", 0, "", "N must be a whole number, 0 or more, not '-1'"),
        ("0", 1, "", "N must be a whole number, 1 or more, not '0'"),
        ("1.5", None, "", "N must be a whole number, not '1.5'"),
    ],
)
def test_a_whole_number_it_cannot_use_is_refused_by_name(
    text: str, minimum: int | None, unit: str, said: str
) -> None:
    with pytest.raises(ValueError) as refused:
        whole({"N": text}, "N", 7, minimum, unit)
    assert str(refused.value) == said


def test_a_number_is_read_or_its_default_taken() -> None:
    assert decimal({}, "X", 0.5) == 0.5
    assert decimal({"X": "2.25"}, "X", 0.5, 0, "seconds", True) == 2.25
    assert decimal({"X": "0"}, "X", 0.5, 0, "seconds") == 0.0


@pytest.mark.parametrize(
    ("text", "above", "said"),
    [
        ("soon", False, "X must be a number of seconds, 0 or more, not 'soon'"),
        ("-0.1", False, "X must be a number of seconds, 0 or more, not '-0.1'"),
        ("0", True, "X must be a number of seconds above 0, not '0'"),
        ("nan", True, "X must be a number of seconds above 0, not 'nan'"),
    ],
)
def test_a_number_it_cannot_use_is_refused_by_name(text: str, above: bool, said: str) -> None:
    with pytest.raises(ValueError) as refused:
        decimal({"X": text}, "X", 0.5, 0, "seconds", above)
    assert str(refused.value) == said


def test_the_referee_and_the_ledger_read_theirs_through_it() -> None:
    referee = RefereeConfig.from_env({"REFEREE_FILL_WAIT_MS": "0", "REFEREE_CLOCK_RATE": "10"})
    assert (referee.fill_wait_ms, referee.clock_rate, referee.frames) == (0, 10.0, True)
    with pytest.raises(ValueError, match="REFEREE_LEASE_TTL_S must be a number of seconds"):
        RefereeConfig.from_env({"REFEREE_LEASE_TTL_S": "0"})
    with pytest.raises(ValueError, match="REFEREE_FRAMES must be 1 or 0"):
        RefereeConfig.from_env({"REFEREE_FRAMES": "maybe"})
    assert LedgerConfig.from_env({"LEDGER_BATCH": "32"}).batch == 32
    with pytest.raises(ValueError, match="LEDGER_BATCH must be a whole number, 1 or more"):
        LedgerConfig.from_env({"LEDGER_BATCH": "0"})


@pytest.mark.parametrize(
    ("service", "setting"),
    [
        ("dealer", "METRICS_PORT=port"),
        ("referee", "REFEREE_FILL_WAIT_MS=abc"),
        ("lobby", "METRICS_PORT=x"),
        ("ledger", "LEDGER_BATCH=lots"),
        ("players", "MATCH_STREAM_REPLICAS=0"),
        ("bot", "METRICS_PORT=-3"),
    ],
)
def test_every_service_refuses_a_bad_number_before_it_starts(
    tmp_path: Path, service: str, setting: str
) -> None:
    key = tmp_path / "bot.key"  # the bot reads its key first
    key.write_text("k" * 32)
    key.chmod(0o600)
    name, value = setting.split("=", 1)
    said = refused_at_start(service, {"MATCH_BOT_KEY_FILE": str(key), name: value})
    assert said.strip().splitlines()[-1].startswith(f"{service}: {name} must be ")


def clocks(env: dict[str, str]) -> dict[str, Callable[[], Clock]]:
    """Every reader of the system's clock: each process must agree on what time it is."""

    def referee() -> Clock:
        config = RefereeConfig.from_env(env)
        return Clock(config.clock_rate, config.clock_anchor_ms)

    return {
        "shared": lambda: Clock.from_env(env),
        "referee": referee,
        "lobby": lambda: LobbyConfig.from_env(env).clock,
        "bot": lambda: BotConfig.from_env(env).clock,
        "terminal": lambda: Settings.from_env(env).clock,
    }


def test_every_process_reads_the_same_clock(bot_key: dict[str, str]) -> None:
    env = {**bot_key, "REFEREE_CLOCK_RATE": "10", "REFEREE_CLOCK_ANCHOR_MS": "1767225600000"}
    for name, read in clocks(env).items():
        clock = read()
        assert (clock.rate, clock.anchor_ms) == (10.0, 1_767_225_600_000), name


@pytest.mark.parametrize(
    ("setting", "said"),
    [
        ("REFEREE_CLOCK_RATE=fast", "REFEREE_CLOCK_RATE must be a number above 0, not 'fast'"),
        ("REFEREE_CLOCK_RATE=0", "REFEREE_CLOCK_RATE must be a number above 0, not '0'"),
        (
            "REFEREE_CLOCK_ANCHOR_MS=-1",
            "REFEREE_CLOCK_ANCHOR_MS must be a whole number of milliseconds, 0 or more, not '-1'",
        ),
    ],
)
def test_every_process_refuses_a_clock_it_cannot_use_in_the_same_words(
    bot_key: dict[str, str], setting: str, said: str
) -> None:
    name, value = setting.split("=", 1)
    for reader, read in clocks({**bot_key, name: value}).items():
        with pytest.raises((ValueError, LobbyConfigError)) as refused:
            read()
        assert str(refused.value) == said, reader


def test_the_terminal_client_names_a_clock_setting_it_cannot_use(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("REFEREE_CLOCK_RATE", "fast")
    assert cli.main(["tables"]) == 2
    assert capsys.readouterr().err == (
        "match: error: REFEREE_CLOCK_RATE must be a number above 0, not 'fast'\n"
    )
