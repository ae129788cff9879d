"""The README's commands work as written in a fresh clone, on the demo database `make run` leaves behind
(migrated, demo data loaded), with no environment of their own but what the README shows."""
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

PROJECT = Path(__file__).resolve().parents[1]
NOT_IN_A_CLONE = shutil.ignore_patterns(".git", ".venv", "staticfiles", "artifacts", "*.sqlite3", "__pycache__",
                                        "node_modules")
# What a newcomer's shell does not have: the suite's settings, key and database.
SUITE_ENVIRONMENT = ("DJANGO_SETTINGS_MODULE", "SECRET_KEY", "DATABASE_URL", "DEBUG", "ALLOWED_HOSTS")


def readme_commands():
    """Every line of the README's shell blocks that runs manage.py, in order."""
    blocks = re.findall(r"^```sh\n(.*?)^```", (PROJECT / "README.md").read_text(), re.M | re.S)
    return [line for block in blocks for line in block.splitlines() if "manage.py" in line]


@pytest.fixture
def fresh_clone(tmp_path):
    """A copy of the project whose `.venv/bin/python` is this interpreter, after `make run`'s two steps."""
    clone = tmp_path / "parley"
    shutil.copytree(PROJECT, clone, ignore=NOT_IN_A_CLONE)
    python = clone / ".venv" / "bin" / "python"
    python.parent.mkdir(parents=True)
    python.write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
    python.chmod(0o755)
    env = {name: value for name, value in os.environ.items() if name not in SUITE_ENVIRONMENT}
    for step in ("migrate --verbosity 0", "parley_demo"):  # as the Makefile's run target calls them
        shell(f"DEBUG=1 .venv/bin/python manage.py {step}", clone, env)
    return clone, env


def shell(script, cwd, env):
    done = subprocess.run(["bash", "-euo", "pipefail", "-c", script], cwd=cwd, env=env, capture_output=True,
                          text=True, stdin=subprocess.DEVNULL, timeout=300)
    assert done.returncode == 0, f"{script}\n{done.stdout}\n{done.stderr}"
    return done.stdout


def test_the_readme_shows_token_and_login_commands():
    commands = readme_commands()
    assert any("parley_token create" in command for command in commands)
    assert any("createsuperuser" in command for command in commands)


def test_the_readmes_tokens_section_documents_rotate_and_expiry():
    section = (PROJECT / "README.md").read_text().split("## Tokens", 1)[1].split("\n## ", 1)[0]
    assert "parley_token rotate" in section and "--grace" in section
    assert "parley_token create" in section and "--expires-in" in section and "token_invalid" in section


def test_every_manage_py_command_of_the_readme_works_as_written_on_the_demo_database(fresh_clone):
    clone, env = fresh_clone
    output = shell("\n".join(readme_commands()), clone, env)
    assert "created ainotes:" in output and "rotated ainotes:" in output and "revoked ainotes:" in output, output
