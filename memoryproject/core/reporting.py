"""What Django's error page and error e-mails may show: no credential, DATABASE_URL's included.

Django's SafeExceptionReporterFilter hides settings and request.META entries whose *name* looks
secret (KEY, PASS, TOKEN …). `DATABASE_URL` is not such a name, yet its value carries the database
password — and under `make run` (DEBUG on) the technical 500 page lists it twice: as a setting and,
since the development server copies the environment into META, as a request header. So here every
string value, whatever its name, loses the password of any URL in it (`scheme://user:***@host`),
and frame locals get the same treatment.
"""

from __future__ import annotations

import re

from django.template.defaultfilters import pprint
from django.views.debug import SafeExceptionReporterFilter

# `scheme://user:password@` — the password is everything between the first `:` after the scheme's
# `//` and the last `@` before the host.
_URL_PASSWORD = re.compile(r"(?P<head>[A-Za-z][A-Za-z0-9+.\-]*://[^:/@\s]*:)(?P<password>[^\s]*)(?P<tail>@)")


def url_passwords_masked(text: str, substitute: str) -> str:
    return _URL_PASSWORD.sub(lambda match: f"{match['head']}{substitute}{match['tail']}", text)


class SecretsReporterFilter(SafeExceptionReporterFilter):
    """Django's filter, plus: DATABASE_URL by name, and URL passwords in any string value."""

    hidden_settings = re.compile(
        "API|AUTH|TOKEN|KEY|SECRET|PASS|SIGNATURE|HTTP_COOKIE|DATABASE_URL|PEPPER", flags=re.IGNORECASE
    )

    def cleanse_setting(self, key, value):
        cleansed = super().cleanse_setting(key, value)
        return url_passwords_masked(cleansed, self.cleansed_substitute) if isinstance(cleansed, str) else cleansed

    def get_traceback_frame_variables(self, request, tb_frame):
        return [(name, self._shown(value)) for name, value in super().get_traceback_frame_variables(request, tb_frame)]

    def _shown(self, value):
        """`value`, or — when the text the page would print of it holds a URL password — that
        text masked (the page prints frame locals with the same `pprint`)."""
        text = value if isinstance(value, str) else pprint(value)
        masked = url_passwords_masked(text, self.cleansed_substitute)
        return value if masked == text else masked
