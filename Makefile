# The two commands: `make run` (a demo server on SQLite) and `make test` (the whole suite).
PYTHON ?= python3
VENV ?= .venv
BIN = $(VENV)/bin
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: run test venv

venv: $(VENV)/.installed

$(VENV)/.installed: requirements.txt requirements-dev.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --disable-pip-version-check -r requirements-dev.txt
	touch $@

# The reloader watches the project's own packages only: scanning the virtualenv too would cost a core.
RELOAD_DIRS = $(patsubst %/__init__.py,--reload-dir %,$(wildcard */__init__.py))

run: venv
	DEBUG=1 $(BIN)/python manage.py migrate --verbosity 0
	DEBUG=1 $(BIN)/python manage.py parley_demo --port $(PORT)
	DEBUG=1 $(BIN)/uvicorn parley_site.asgi:application --reload $(RELOAD_DIRS) --host $(HOST) --port $(PORT)

test: venv
	$(BIN)/python -m pytest $(PYTEST_ARGS)
