"""The WSGI application for gunicorn (`gunicorn memoryproject.wsgi`)."""

import os
import sys

from django.core.exceptions import ImproperlyConfigured
from django.core.wsgi import get_wsgi_application

# gunicorn's "application failed to load" status: its master then stops instead of booting the
# worker again and again (any other status, such as manage.py's 2, would be retried forever).
APP_LOAD_ERROR_EXIT_STATUS = 4

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memoryproject.settings")
try:
    application = get_wsgi_application()
except ImproperlyConfigured as error:
    # One line naming the variable, not a traceback per worker.
    print(f"Configuration error: {error}", file=sys.stderr)
    sys.exit(APP_LOAD_ERROR_EXIT_STATUS)
