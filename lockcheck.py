"""Is each lock file still the lock of its requirements? `python3 lockcheck.py` says what is stale and exits
1, so that `make` stops before installing from it; `make lock` makes both again.

The lock files are made by uv (`make lock`): requirements-dev.lock from requirements-dev.txt, and
requirements.lock from requirements.txt within it, so production installs exactly the versions the tests
ran on. A lock is stale when a requirement is missing from it, pinned to another version there, or still in
it as a requirement after it left the requirements file. Standard library only: it runs before any virtualenv
exists."""
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent
LOCKS = {"requirements.txt": "requirements.lock", "requirements-dev.txt": "requirements-dev.lock"}
PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)(?:\[[^\]]*\])?==([^\s;\\]+)")


def normalized(name):
    return re.sub(r"[-_.]+", "-", name).lower()  # PEP 503


def requirements(path):
    """{name: version} of a requirements file and the files it includes with -r; its lines are pins."""
    pins = {}
    for line in path.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        if line.startswith(("-r ", "--requirement ")):
            pins.update(requirements(path.parent / line.split(None, 1)[1]))
            continue
        match = PIN.match(line)
        if match is None:
            raise SystemExit(f"{path.name}: pin every requirement exactly (name==version), not {line!r}")
        pins[normalized(match[1])] = match[2]
    return pins


def locked(path):
    """{name: (version, the sources uv noted after `# via`)} of a lock file."""
    packages, current = {}, None
    for line in path.read_text().splitlines():
        match = PIN.match(line)
        if match is not None:
            current = normalized(match[1])
            packages[current] = (match[2], set())
        elif current is not None and line.lstrip().startswith("#"):
            source = line.lstrip("# ").removeprefix("via").strip()
            if source:
                packages[current][1].add(source)
    return packages


def stale(requirements_path, lock_path):
    """What makes the lock disagree with its requirements, as sentences; [] when it agrees."""
    if not lock_path.exists():
        return [f"{lock_path.name} is missing"]
    wanted, have = requirements(requirements_path), locked(lock_path)
    problems = [f"{name}=={version} is in {requirements_path.name} but not in {lock_path.name}"
                for name, version in wanted.items() if name not in have]
    problems += [f"{name} is {version} in {requirements_path.name} but {have[name][0]} in {lock_path.name}"
                 for name, version in wanted.items() if name in have and have[name][0] != version]
    direct = {f"-r {path}" for path in ("requirements.txt", "requirements-dev.txt")}
    problems += [f"{name} is locked as a requirement but is no longer in {requirements_path.name}"
                 for name, (_, sources) in have.items() if sources & direct and name not in wanted]
    return problems


def main(root=ROOT):
    problems = [problem for requirements_name, lock_name in LOCKS.items()
                for problem in stale(root / requirements_name, root / lock_name)]
    for problem in problems:
        print(f"stale lock: {problem}", file=sys.stderr)
    if problems:
        print("run `make lock` and commit the lock files (README, 'Dependencies')", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
