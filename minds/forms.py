"""The forms of the human UI's account, mind, key and share pages.

They parse what a browser sends; the rules themselves stay in the services (`minds.services`),
whose refusals the views show on these forms. Lengths are the API's (`minds.api.serializers`)
and the models', so a page accepts exactly what the API accepts.
"""

from __future__ import annotations

from django import forms
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth import authenticate
from django.contrib.auth.forms import AuthenticationForm
from django.core.exceptions import ValidationError

from minds.api.serializers import EMAIL_MAX_CHARS, MIND_DESCRIPTION_MAX_CHARS, PASSWORD_MAX_CHARS
from minds.login_policy import Refusal, login_attempt
from minds.models import Mind, MindKey, ShareAccess
from minds.services import LOGIN_FAILED, email_normalize
from minds.throttling import client_address

PASSWORDS_DIFFER = "The two passwords differ; type the same password twice."


class PolicedLoginMixin:
    """Django's password check of a login form, run under the login policy (minds.login_policy),
    which counts it with the API's: a refused attempt is a form error, and `refusal` tells the
    view to answer 429 with Retry-After."""

    refusal: Refusal | None = None

    def clean(self) -> dict:
        email, password = self.cleaned_data.get("username"), self.cleaned_data.get("password")
        if email is None or not password:
            return self.cleaned_data
        self._not_allowed: ValidationError | None = None
        outcome = login_attempt(email=email, address=client_address(self.request), check=self._check)
        if isinstance(outcome, Refusal):
            self.refusal = outcome
            raise ValidationError(outcome.message, code="throttled")
        if outcome is None:
            raise self._not_allowed or self.get_invalid_login_error()
        self.user_cache = outcome
        return self.cleaned_data

    def _check(self):
        # As typed (the UI's form lower-cases it in clean_username; the admin's usernames are as made).
        username, password = self.cleaned_data["username"], self.cleaned_data["password"]
        user = authenticate(self.request, username=username, password=password)
        if user is None:
            return None
        try:
            self.confirm_login_allowed(user)  # the admin's: staff only
        except ValidationError as error:
            self._not_allowed = error  # a wrong door counts as a wrong password
            return None
        return user


class AdminLoginForm(PolicedLoginMixin, AdminAuthenticationForm):
    """The Django admin's login form under the login policy (minds.admin_site)."""


class EmailAuthenticationForm(PolicedLoginMixin, AuthenticationForm):
    """Django's login form, with the email as the username (stored lower-cased) and the API's
    message for a wrong email or password."""

    error_messages = {**AuthenticationForm.error_messages, "invalid_login": LOGIN_FAILED}

    username = forms.CharField(
        label="Email",
        max_length=EMAIL_MAX_CHARS,
        widget=forms.EmailInput(attrs={"autofocus": True, "autocomplete": "email"}),
    )

    def clean_username(self) -> str:
        return email_normalize(self.cleaned_data["username"])


class RegisterForm(forms.Form):
    email = forms.EmailField(max_length=EMAIL_MAX_CHARS, widget=forms.EmailInput(attrs={"autocomplete": "email"}))
    password = forms.CharField(
        max_length=PASSWORD_MAX_CHARS,
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}),
        help_text="Django's password rules apply: at least 8 characters, not too common, not only digits.",
    )
    password_again = forms.CharField(
        max_length=PASSWORD_MAX_CHARS,
        strip=False,
        label="Password again",
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}),
    )

    def clean(self) -> dict:
        cleaned = super().clean()
        if cleaned.get("password") and cleaned.get("password") != cleaned.get("password_again"):
            self.add_error("password_again", PASSWORDS_DIFFER)
        return cleaned


class MindForm(forms.Form):
    """Create or rename a mind."""

    name = forms.CharField(max_length=Mind._meta.get_field("name").max_length)
    description = forms.CharField(
        max_length=MIND_DESCRIPTION_MAX_CHARS, required=False, widget=forms.Textarea(attrs={"rows": 2})
    )


class KeyIssueForm(forms.Form):
    label = forms.CharField(
        max_length=MindKey._meta.get_field("label").max_length,
        required=False,
        help_text="What uses the key, e.g. “laptop agent”.",
    )


class ShareCreateForm(forms.Form):
    user_email = forms.EmailField(label="Email of the account", max_length=EMAIL_MAX_CHARS)
    acl = forms.ChoiceField(label="Access", choices=ShareAccess.choices)


class ShareUpdateForm(forms.Form):
    acl = forms.ChoiceField(label="Access", choices=ShareAccess.choices)
