"""gunicorn's settings for `manage.py serve` (`gunicorn -c python:memoryproject.gunicorn_conf`).

Every value here is one of gunicorn's own setting names; `serve` adds only `bind`. The worker
and thread counts come from the environment (README → Configuration); docs/operations.md has
the measurements behind their defaults.
"""

from __future__ import annotations

from memoryproject.env import env_int

# Processes that serve requests. Two matches the two cores of the machine the defaults were
# measured on; more processes than cores only add memory and context switches.
workers = env_int("WEB_WORKERS", 2, minimum=1)
# Threads per process: a request waiting on PostgreSQL or an embedder leaves the others running,
# so a long sync no longer holds a whole process (each thread needs its own database connection).
threads = env_int("WEB_THREADS", 8, minimum=1)
# Threads need gunicorn's threaded worker; the default `sync` worker ignores `threads`.
worker_class = "gthread"

# Seconds a worker may stay silent before the master kills it. A 1,000-item sync with the
# semantic embedder takes up to 20 s; six times that leaves room on a loaded machine.
timeout = 120
# Seconds in-flight requests get to finish after SIGTERM (serve waits a little longer).
graceful_timeout = 25
# Seconds an idle keep-alive connection stays open; agents send bursts of requests.
keepalive = 5

# No limit on the request line: the API bounds the whole URL itself and answers a JSON error,
# where gunicorn would answer an HTML 414 to a `q` of the 5,000 characters search allows.
limit_request_line = 0
# Header fields per request: a client needs a dozen; the cap stops a flood of them.
limit_request_fields = 100
# Bytes per header field: a JWT is under 1 KB and a browser cookie under 4 KB.
limit_request_field_size = 8190

# No control socket: gunicorn's default path is one per user, so a second checkout's server
# would take over the first one's; serve manages gunicorn with signals and needs none.
control_socket_disable = True

# The access log on standard output, next to serve's own lines.
accesslog = "-"
