"""Benchmarks (not tests): latency of the hot endpoints, in-process through the full middleware
stack, against a throw-away database on the embedded PostgreSQL. Run with `make bench` or
`python -m bench --help`; docs/benchmarks.md explains what is measured and the latest numbers.
"""
