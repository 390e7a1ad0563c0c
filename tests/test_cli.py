"""Every command has help with an example and a mention in the README."""

import subprocess
import sys
from pathlib import Path

import pytest

from assistant import cli

REPO = Path(__file__).resolve().parent.parent
COMMANDS = sorted(cli.EXAMPLES)


def test_every_command_is_registered_with_an_example():
    parser = cli._parser()
    registered = set(parser._subparsers._group_actions[0].choices)
    assert registered == set(cli.EXAMPLES)


@pytest.mark.parametrize("command", COMMANDS)
def test_command_help_shows_an_example(command):
    result = subprocess.run(
        [sys.executable, "-m", "assistant.cli", command, "--help"], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0
    assert "example:" in result.stdout and f"assistant {command}" in result.stdout


@pytest.mark.parametrize("command", COMMANDS)
def test_command_is_documented_in_readme(command):
    assert f"assistant {command}" in (REPO / "README.md").read_text()


def test_every_config_key_is_documented_in_readme():
    readme = (REPO / "README.md").read_text()
    from assistant.config import Config

    for section, field in Config.model_fields.items():
        for key in field.annotation.model_fields:
            assert f"`{key}`" in readme, f"[{section}] {key} missing from README"
