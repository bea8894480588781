#!/usr/bin/env python
"""Django's command-line utility for administrative tasks."""

import os
import sys

# Exit status for a setting that does not parse: the shell's "wrong usage", unlike 1 (a failure).
BAD_SETTING_EXIT_STATUS = 2


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memoryproject.settings")
    from django.conf import settings
    from django.core.exceptions import ImproperlyConfigured
    from django.core.management import execute_from_command_line

    try:
        # Load the settings first: Django's own loader would swallow a bad setting and answer
        # "Unknown command" for every command of our apps.
        settings.INSTALLED_APPS  # noqa: B018
        execute_from_command_line(sys.argv)
    except ImproperlyConfigured as error:
        # One line naming the variable is what a person needs; the traceback is noise.
        print(f"Configuration error: {error}", file=sys.stderr)
        sys.exit(BAD_SETTING_EXIT_STATUS)


if __name__ == "__main__":
    main()
