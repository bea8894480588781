"""A separate process that logs through the buffered writer, for the shutdown tests.

    python tests/pipelinelog/log_writer_process.py burst   # log BURST_SPANS spans, open one more, wait
    python tests/pipelinelog/log_writer_process.py stream  # log one span every STREAM_PAUSE s, forever

It uses tests.settings with the buffered writer (PIPELINE_LOG_SYNC=false) and the test
database named by PIPELINELOG_TEST_DATABASE. It prints `ready` once it has logged the burst
(or its first streamed span), so the test knows when to send its signal.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

BURST_SPANS = 50  # each writes span_start, note, span_end
STREAM_PAUSE = 0.01  # seconds between streamed spans

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
os.environ["DJANGO_SETTINGS_MODULE"] = "tests.settings"
os.environ["PIPELINE_LOG_SYNC"] = "false"

from django.conf import settings  # noqa: E402

settings.DATABASES["default"]["NAME"] = os.environ["PIPELINELOG_TEST_DATABASE"]

import django  # noqa: E402

django.setup()

from pipelinelog.spans import span  # noqa: E402


def burst() -> None:
    for number in range(BURST_SPANS):
        with span("tests.subprocess.burst", turn_id="TERM") as sp:
            sp.note({"n": number})
    with span("tests.subprocess.open", turn_id="TERM") as sp:
        sp.note({"open": True})
        print("ready", flush=True)
        while True:  # SIGTERM ends this through SystemExit, closing the span
            time.sleep(0.1)


def stream() -> None:
    number = 0
    while True:
        with span("tests.subprocess.stream", turn_id="KILL") as sp:
            sp.note({"n": number})
        if number == 0:
            print("ready", flush=True)
        number += 1
        time.sleep(STREAM_PAUSE)


if __name__ == "__main__":
    {"burst": burst, "stream": stream}[sys.argv[1]]()
