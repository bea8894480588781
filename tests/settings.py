"""Settings for the test run: the real settings, with a fixed secret and fast password hashing."""

import os

os.environ.setdefault("SECRET_KEY", "tests-only-not-a-secret-" + "x" * 32)

from memoryproject.settings import *  # noqa: E402,F403

# Hashing passwords at full strength would dominate the run time; tests do not need it.
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
