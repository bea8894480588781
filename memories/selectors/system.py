"""Read operations for minds and service status."""

from __future__ import annotations

import logging

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.db import DatabaseError, connection

from memories.models import Memory
from minds.models import Mind

logger = logging.getLogger(__name__)


def worker_alive() -> bool:
    """True when a django-q2 cluster saved its heartbeat (Stat, kept a few seconds) lately.

    The cluster writes its Stat into the shared database cache every guard cycle, so the web
    process can see it.
    """
    from django_q.status import Stat

    try:
        return len(Stat.get_all()) > 0
    except Exception:  # a broken cache must not break /health
        logger.exception("Reading the worker heartbeat failed")
        return False


# /health is polled by probes every few seconds; counting whole tables each time would cost
# work proportional to all stored data, so the counts are refreshed at most this often (seconds).
HEALTH_STATS_CACHE_SECONDS = 60
HEALTH_STATS_CACHE_KEY = "synapse:health-stats"


def _service_counts() -> dict[str, int]:
    return {
        "users": get_user_model().objects.count(),
        "minds": Mind.objects.count(),
        "memories": Memory.objects.count(),
    }


def service_health() -> dict:
    """The body of GET /health: `status` is `ok` only when the database and the worker are."""
    database_ok = True
    stats: dict[str, int] = {}
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
        stats = cache.get_or_set(HEALTH_STATS_CACHE_KEY, _service_counts, HEALTH_STATS_CACHE_SECONDS)
    except DatabaseError:
        logger.exception("Health check: the database is not answering")
        database_ok = False
    alive = database_ok and worker_alive()
    return {
        "status": "ok" if database_ok and alive else "degraded",
        "database": "ok" if database_ok else "down",
        "worker": "ok" if alive else "down",
        "version": settings.VERSION,
        "stats": stats,
    }
