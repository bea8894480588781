"""Thin django-q2 entry points of the pipeline log.

Retention has none of its own: it is the second step of the daily decay job
(`synapses.tasks.knots_decay`), so one schedule owns it; `manage.py prune_log` runs it by hand.
"""
