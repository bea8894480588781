"""The database a process runs on, and `make run` around it: the embedded PostgreSQL and its
upgrade (`server`, `upgrade`), the version checks and the outage handling that apply to any
PostgreSQL (`checks`, `outage`), the free-port check and the process supervisor of `manage.py
serve` (`port`, `supervisor`). docs/operations.md describes each.

Imports nothing: `make run` runs `python -m memoryproject.embedded.port` with the system Python,
before Django is installed.
"""
