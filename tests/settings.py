"""Settings for the test run: the real settings, with a fixed secret and fast password hashing."""

import os

os.environ.setdefault("SECRET_KEY", "tests-only-not-a-secret-" + "x" * 32)
# The suite runs on the hashing embedder (exact, fast, no model); the `default_model` tests run
# the default model (minilm-onnx) themselves. Set in the environment too, so the processes a test
# starts with the real settings (`manage.py serve`, the worker) embed the same way.
os.environ["SYNAPSE_EMBEDDER"] = "hashing"

from memoryproject.settings import *  # noqa: E402,F403

# Hashing passwords at full strength would dominate the run time; tests do not need it.
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

# The pipeline log writes each span at its end on the test's connection, so tests read it at
# once and roll it back. Subprocess tests of the buffered writer set PIPELINE_LOG_SYNC=false.
from memoryproject.env import env_bool  # noqa: E402

PIPELINE_LOG_SYNC = env_bool("PIPELINE_LOG_SYNC", True)
