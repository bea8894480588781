# Synapse: `make run` starts everything, `make test` runs the tests, `make bench` measures.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed-requirements
# The embedded server's data directory, found as the settings find it.
EMBEDDED_PGDATA := $(or $(SYNAPSE_PGDATA),$(or $(SYNAPSE_VAR_DIR),var)/pgdata)

.PHONY: install run test bench lint stop-db clean-db

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

bench: install
	DEBUG=$${DEBUG:-true} $(PY) -m bench

lint: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

# Stops the embedded PostgreSQL, whoever started it, and keeps its data (without .venv none can run).
stop-db:
	@test ! -x $(PY) || $(PY) -m memoryproject.embedded_db stop "$(EMBEDDED_PGDATA)"

# Stops the embedded PostgreSQL and deletes its data. Asks no questions.
clean-db: stop-db
	rm -rf "$(EMBEDDED_PGDATA)" "$(EMBEDDED_PGDATA).clients.json"
