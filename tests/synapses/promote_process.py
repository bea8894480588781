"""A separate process that runs `manage.py promote --now` on the test database, for the tests
with real processes.

    python tests/synapses/promote_process.py

It uses tests.settings and the test database named by SYNAPSES_TEST_DATABASE. With
PROMOTION_GATE set it first waits for a shared advisory lock on that key, so that the test can
hold the lock and let several processes start at the same moment.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
os.environ["DJANGO_SETTINGS_MODULE"] = "tests.settings"

from django.conf import settings  # noqa: E402

settings.DATABASES["default"]["NAME"] = os.environ["SYNAPSES_TEST_DATABASE"]

import django  # noqa: E402

django.setup()

from django.core.management import call_command  # noqa: E402
from django.db import connection  # noqa: E402

gate = os.environ.get("PROMOTION_GATE")
if gate:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_lock_shared(%s)", [int(gate)])
        cursor.execute("SELECT pg_advisory_unlock_shared(%s)", [int(gate)])

call_command("promote", "--now", "--batch-size", "50")
