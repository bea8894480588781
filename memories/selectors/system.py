"""Read operations for minds and service status."""

from __future__ import annotations

import logging
import socket

import psutil
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.db import DatabaseError, connection
from django.utils import timezone

from memories.models import Memory
from memoryproject.core.contributions import contributed_service_counts
from minds.models import Mind

logger = logging.getLogger(__name__)


# A cluster whose last heartbeat is older than this is not alive (seconds). django-q2 saves its
# Stat every guard cycle (half a second) and the cache keeps it 3 s, so 10 s is a dead cluster.
CLUSTER_HEARTBEAT_STALE_SECONDS = 10


def _cluster_is_live(stat, *, now, hostname: str) -> bool:
    """Fresh heartbeat, and (on this host) the cluster's main process still exists.

    A `qcluster` killed hard leaves its sentinel running, which keeps saving heartbeats in the
    name of the dead main process; the pid check sees through that.
    """
    if (now - stat.timestamp).total_seconds() > CLUSTER_HEARTBEAT_STALE_SECONDS:
        return False
    return stat.host != hostname or psutil.pid_exists(stat.pid)


def live_clusters() -> list:
    """The django-q2 clusters (their Stat) that are alive, read from the shared database cache."""
    from django_q.status import Stat

    now = timezone.now()
    hostname = socket.gethostname()
    return [stat for stat in Stat.get_all() if _cluster_is_live(stat, now=now, hostname=hostname)]


def worker_alive() -> bool:
    """True when at least one django-q2 cluster is alive (see `live_clusters`)."""
    try:
        return len(live_clusters()) > 0
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
        # The long-term net's counts (knots, active knots, edges), from the net's app.
        **contributed_service_counts(),
    }


def service_health(*, with_counts: bool = False) -> dict:
    """The body of GET /health: `status` is `ok` only when the database and the worker are.

    Up or down per component for anyone; `version` and the row counts (`stats`) only
    `with_counts` (a staff session): they tell an outsider what runs and how much it holds."""
    database_ok = True
    stats: dict[str, int] = {}
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
        if with_counts:
            stats = cache.get_or_set(HEALTH_STATS_CACHE_KEY, _service_counts, HEALTH_STATS_CACHE_SECONDS)
    except DatabaseError:
        logger.exception("Health check: the database is not answering")
        database_ok = False
    alive = database_ok and worker_alive()
    health = {
        "status": "ok" if database_ok and alive else "degraded",
        "database": "ok" if database_ok else "down",
        "worker": "ok" if alive else "down",
    }
    if with_counts:
        health.update(version=settings.VERSION, stats=stats)
    return health
