"""The Django admin's site: Django's own, with its login under the login policy that `/login`
and `/accounts/login/` follow (minds.login_policy), so `/admin/login/` counts the same wrong
passwords and refuses with 429 and Retry-After. Installed by `minds.apps.SynapseAdminConfig`."""

from __future__ import annotations

from django.contrib import admin

from minds.forms import AdminLoginForm


def refused_login(response):
    """A login page whose form the policy refused answers 429 with Retry-After (seconds)."""
    form = (getattr(response, "context_data", None) or {}).get("form")
    refusal = getattr(form, "refusal", None)
    if refusal is not None:
        response.status_code = 429
        response["Retry-After"] = str(refusal.seconds)
    return response


class SynapseAdminSite(admin.AdminSite):
    login_form = AdminLoginForm

    def login(self, request, extra_context=None):
        return refused_login(super().login(request, extra_context))
