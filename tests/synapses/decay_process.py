"""A separate process that runs `manage.py decay` on the test database, for the SIGKILL test.

    python tests/synapses/decay_process.py      # decay with rate 0.02, min weight 0.1

It uses tests.settings and the test database named by SYNAPSES_TEST_DATABASE.
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

call_command("decay", "--rate", "0.02", "--min-weight", "0.1")
