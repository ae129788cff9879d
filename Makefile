# The two commands: `make run` (a demo server on SQLite) and `make test` (the whole suite).
PYTHON ?= python3
VENV ?= .venv
BIN = $(VENV)/bin
HOST ?= 127.0.0.1
PORT ?= 8000

# The lock files (README, "Dependencies"): made by uv, this version, in a virtualenv of its own.
UV_VERSION = 0.13.9
LOCK_TOOLS = .venv-lock
COMPILE = $(LOCK_TOOLS)/bin/uv pip compile --quiet --generate-hashes --universal --python-version 3.11 \
	--custom-compile-command "make lock" $(if $(UPGRADE),--upgrade)

.PHONY: run test lint venv lock lock-check messages

venv: $(VENV)/.installed

# Exactly what the lock names, each file checked against its hash; a lock that no longer matches
# requirements*.txt stops the install.
$(VENV)/.installed: requirements.txt requirements-dev.txt requirements.lock requirements-dev.lock lockcheck.py
	$(PYTHON) lockcheck.py
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --disable-pip-version-check --require-hashes -r requirements-dev.lock
	touch $@

lock-check:
	$(PYTHON) lockcheck.py

# Both locks from requirements*.txt, keeping the versions they already hold unless asked (`make lock
# UPGRADE=1`). requirements.lock is resolved within requirements-dev.lock: production gets the tested versions.
lock:
	$(PYTHON) -m venv $(LOCK_TOOLS)
	$(LOCK_TOOLS)/bin/pip install --quiet --disable-pip-version-check uv==$(UV_VERSION)
	$(COMPILE) -o requirements-dev.lock requirements-dev.txt
	$(COMPILE) -c requirements-dev.lock -o requirements.lock requirements.txt

# The reloader watches the project's own packages only: scanning the virtualenv too would cost a core.
RELOAD_DIRS = $(patsubst %/__init__.py,--reload-dir %,$(wildcard */__init__.py))

# `make run` starts the job worker (parley_worker: webhook deliveries, periodic jobs) beside the server,
# and ends it with the server. The server is its own OAuth issuer at the address it listens on.
run: venv
	DEBUG=1 $(BIN)/python manage.py migrate --verbosity 0
	DEBUG=1 $(BIN)/python manage.py parley_keys create --if-missing
	DEBUG=1 $(BIN)/python manage.py parley_demo --port $(PORT)
	DEBUG=1 $(BIN)/python manage.py parley_room demo
	DEBUG=1 $(BIN)/python manage.py parley_worker & worker=$$!; trap 'kill $$worker 2>/dev/null' EXIT; \
	DEBUG=1 PARLEY_PUBLIC_URL=$${PARLEY_PUBLIC_URL:-http://$(HOST):$(PORT)} \
	$(BIN)/uvicorn parley_site.asgi:application --reload $(RELOAD_DIRS) --host $(HOST) --port $(PORT)

# The suite in WORKERS processes at once (pytest-xdist; README, "How the tests run"): most tests wait on a
# server, a subprocess or a browser, so more workers than cores keep both cores busy. A test file stays on one
# worker, which shares its module's fixtures. WORKERS=0 runs the tests in this process, one after another.
WORKERS ?= 4

test: venv
	$(BIN)/python -m pytest -n $(WORKERS) --dist loadfile $(PYTEST_ARGS)

# The linters, as pyproject.toml sets them: ruff on the whole tree, mypy on the files it names. mypy's Django
# plugin loads the settings, which DEBUG=1 lets load without a SECRET_KEY.
lint: venv
	$(BIN)/ruff check --quiet .
	DEBUG=1 $(BIN)/mypy

# The German catalogues of the console (each app's locale/de): every marked string collected again, then
# compiled. Needs GNU gettext; the compiled .mo files are committed, so installing does not.
I18N_IGNORE = --ignore '.*' --ignore staticfiles --ignore artifacts
messages: venv
	DEBUG=1 $(BIN)/python manage.py makemessages --locale de --no-obsolete $(I18N_IGNORE)
	DEBUG=1 $(BIN)/python manage.py compilemessages --locale de $(I18N_IGNORE)
