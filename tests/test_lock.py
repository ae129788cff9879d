"""Reproducible installs: a lock with hashes for every dependency, made by `make lock` from requirements*.txt,
installed by `make` with hashes required, and refused loudly once it no longer matches the requirements."""
import re
import shutil
import subprocess
from pathlib import Path

import pytest

import lockcheck

ROOT = Path(lockcheck.__file__).resolve().parent
FILES = ["requirements.txt", "requirements-dev.txt", "requirements.lock", "requirements-dev.lock"]


@pytest.fixture
def checkout(tmp_path):
    for name in FILES:
        shutil.copy(ROOT / name, tmp_path / name)
    return tmp_path


def edit(path, old, new):
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))


def test_the_lock_files_match_the_requirements_as_committed():
    assert lockcheck.main() == 0


def test_a_version_changed_in_the_requirements_makes_the_lock_stale(checkout):
    edit(checkout / "requirements.txt", "Django==5.2.19", "Django==5.2.18")
    assert lockcheck.stale(checkout / "requirements.txt", checkout / "requirements.lock") == [
        "django is 5.2.18 in requirements.txt but 5.2.19 in requirements.lock"]
    assert lockcheck.main(checkout) == 1


def test_a_requirement_added_but_not_locked_makes_the_lock_stale(checkout):
    with open(checkout / "requirements-dev.txt", "a") as requirements:
        requirements.write("some-new-tool==1.0\n")
    assert lockcheck.stale(checkout / "requirements-dev.txt", checkout / "requirements-dev.lock") == [
        "some-new-tool==1.0 is in requirements-dev.txt but not in requirements-dev.lock"]


def test_a_requirement_dropped_but_still_locked_makes_the_lock_stale(checkout):
    edit(checkout / "requirements.txt", "whitenoise==6.12.0\n", "")
    assert "whitenoise is locked as a requirement but is no longer in requirements.txt" in lockcheck.stale(
        checkout / "requirements.txt", checkout / "requirements.lock")


def test_a_missing_lock_is_stale(checkout):
    (checkout / "requirements.lock").unlink()
    assert lockcheck.main(checkout) == 1


@pytest.mark.parametrize("lock", ["requirements.lock", "requirements-dev.lock"])
def test_every_locked_package_is_pinned_with_its_hashes(lock):
    blocks = re.split(r"\n(?=[A-Za-z0-9])", (ROOT / lock).read_text().split("\n", 2)[2])
    assert len(blocks) > 20
    for block in blocks:
        assert re.match(r"[A-Za-z0-9._-]+==\S+", block), block
        assert re.search(r"--hash=sha256:[0-9a-f]{64}", block), block


def test_the_runtime_lock_holds_the_versions_the_tests_run_on():
    runtime = lockcheck.locked(ROOT / "requirements.lock")
    development = lockcheck.locked(ROOT / "requirements-dev.lock")
    assert {name: version for name, (version, _) in runtime.items()} == {
        name: development[name][0] for name in runtime}


def test_make_installs_the_lock_with_hashes_required_after_checking_it():
    commands = subprocess.run(["make", "-n", "-B", "venv"], cwd=ROOT, capture_output=True, text=True,
                              check=True).stdout.splitlines()
    check = next(i for i, line in enumerate(commands) if line.endswith("lockcheck.py"))
    install = next(i for i, line in enumerate(commands) if " install " in line)
    assert check < install
    assert "--require-hashes -r requirements-dev.lock" in commands[install]
