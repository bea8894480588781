# Synapse: `make run` starts everything, `make test` runs the tests, `make bench` measures.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed-requirements
# The embedded server's data directory, found as the settings find it.
EMBEDDED_PGDATA := $(or $(SYNAPSE_PGDATA),$(or $(SYNAPSE_VAR_DIR),var)/pgdata)

.PHONY: install run test bench bench-quick bench-scale lint stop-db clean-db

# Where `make run` listens: `make run PORT=8010`, `make run HOST=0.0.0.0` (then set ALLOWED_HOSTS).
PORT   ?= 8000
HOST   ?= 127.0.0.1

$(STAMP): requirements.txt requirements-upgrade.txt
	@echo "Installing dependencies into $(VENV) (about 2 minutes on the first start)…"
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	@$(PY) -m pip install --disable-pip-version-check --progress-bar on -r requirements.txt -r requirements-upgrade.txt
	@touch $(STAMP)

install: $(STAMP)

# Local use: DEBUG on (a secret key is generated into var/); override with DEBUG=false SECRET_KEY=...
# A busy port stops here, with one line, before anything is installed or started.
run:
	@$(PYTHON) -m memoryproject.embedded.port $(HOST) $(PORT)
	@$(MAKE) --no-print-directory --silent install
	@DEBUG=$${DEBUG:-true} $(PY) manage.py serve --host $(HOST) --port $(PORT)

test: install
	$(PY) -m pytest $(PYTEST_ARGS)

# Under 30 minutes on 2 cores (bench/suite.py times every step and prints the total): the
# endpoint table (1k minds), the latency table against the database's own limit at 1k/10k/100k
# (with the mem0 peer when requirements-peer.txt is installed), one mind's vector search with
# 1, 10 and 100 minds in 100k rows, the load test, promotion into a 100k-knot net with 1 and 2
# workers, the plots (requirements-bench.txt), and LoCoMo retrieval when given the data (kept
# outside the repository): make bench LOCOMO=path/to/locomo.json
bench: install
	DEBUG=$${DEBUG:-true} $(PY) -m bench suite $(if $(LOCOMO),--locomo "$(LOCOMO)")

# Seconds: LoCoMo retrieval on a tiny synthetic file of the same format (bench/locomo/synthetic.py),
# the latency table at two tiny mind sizes (in-process and over HTTP, no peer), and the decay
# and promotion benches on tiny nets.
bench-quick: install
	tmp=$$(mktemp -d) && $(PY) -m bench.locomo.synthetic $$tmp/locomo-synthetic.json \
	  && $(PY) -m bench locomo --data $$tmp/locomo-synthetic.json; status=$$?; rm -rf $$tmp; exit $$status
	DEBUG=$${DEBUG:-true} $(PY) -m bench latency --sizes 100 300 --requests 10 --warmup 2 --no-peer --no-save \
	  --database bench_synapse_quick
	$(PY) -m bench decay --knots 2000 --distinct 500 --rounds 1 --no-save --database bench_synapse_decay_quick
	$(PY) -m bench promotion --knots 500 --memories 40 --no-save --database bench_synapse_promotion_quick

# The slow layouts: one mind's vector search with 1, 10, 100 and 1,000 minds in 100k rows, and
# the decay of 1,000,000 knots (issue bound ≤ 15 s); prints each step's duration and the total.
bench-scale: install
	DEBUG=$${DEBUG:-true} $(PY) -m bench suite --scale

lint: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

# Stops the embedded PostgreSQL, whoever started it, and keeps its data (without .venv none can run).
stop-db:
	@test ! -x $(PY) || $(PY) -m memoryproject.embedded.server stop "$(EMBEDDED_PGDATA)"

# Stops the embedded PostgreSQL and deletes its data. Asks no questions.
clean-db: stop-db
	rm -rf "$(EMBEDDED_PGDATA)" "$(EMBEDDED_PGDATA).clients.json" "$(EMBEDDED_PGDATA)".serve-*.lock
