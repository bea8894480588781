"""The human UI of accounts and minds: log in and out, register, change the password, create a
mind, and a mind's keys, shares and settings (docs/ui.md).

Each view authorizes with `minds.access.mind_get_for`, exactly as the API does (keys, shares and
renaming need admin access, deleting needs the owner), then calls one service. A refused write
is shown on its form; a freshly issued Mind Key is shown once, on a page that is not cached.
"""

from __future__ import annotations

import math
from types import SimpleNamespace

from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.views import LoginView, LogoutView, PasswordChangeView
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse, reverse_lazy
from django.utils.cache import add_never_cache_headers
from django.views.decorators.http import require_GET, require_POST

from memoryproject.core.domain import Conflict
from memoryproject.core.ui_pages import form_add_domain_error, ui_view
from minds.access import Access, mind_get_for
from minds.admin_site import refused_login
from minds.forms import EmailAuthenticationForm, KeyIssueForm, MindForm, RegisterForm, ShareCreateForm, ShareUpdateForm
from minds.models import Mind
from minds.selectors import mind_key_get, mind_keys_list, mind_share_get, mind_shares_list
from minds.services import (
    IssuedKey,
    mind_create,
    mind_delete,
    mind_key_issue,
    mind_key_revoke,
    mind_share_create,
    mind_share_delete,
    mind_share_update,
    mind_update,
    user_register,
)
from minds.throttling import RegisterIPRateThrottle

DASHBOARD = "ui-dashboard"
# Django's own backend: the one `login()` must name when several are configured.
MODEL_BACKEND = "django.contrib.auth.backends.ModelBackend"
TOO_MANY_ATTEMPTS = "Too many attempts from here or for this account; try again in {seconds} s."


# --- Accounts -------------------------------------------------------------------------------


def _throttled_seconds(request: HttpRequest, throttles: list) -> int | None:
    """Seconds to wait when one of the API's throttles refuses this attempt, else None.

    The page counts in the API's own throttles (same scopes, rates and cache), so attempts
    through the page and through `POST /register` add up. They read the client address from
    `META` and `headers`.
    """
    attempt = SimpleNamespace(META=request.META, headers=request.headers, data={})
    waits = [throttle.wait() or 0 for throttle in throttles if not throttle.allow_request(attempt, None)]
    return math.ceil(max(waits)) if waits else None


def _too_many_attempts(response: HttpResponse, seconds: int) -> HttpResponse:
    response["Retry-After"] = str(seconds)
    return response


class AccountLoginView(LoginView):
    """Django's login under the login policy of `POST /login` and `/admin/login/` (one count for
    the three): a refused attempt answers 429 with Retry-After and says when to try again."""

    template_name = "accounts/login.html"
    authentication_form = EmailAuthenticationForm
    redirect_authenticated_user = True

    def form_invalid(self, form):
        return refused_login(super().form_invalid(form))

    def form_valid(self, form):
        response = super().form_valid(form)
        messages.success(self.request, f"Logged in as {form.get_user().email}.")
        return response


class AccountLogoutView(LogoutView):
    """POST only (Django's LogoutView refuses GET), so a link elsewhere cannot log anyone out."""

    def post(self, request, *args, **kwargs):
        response = super().post(request, *args, **kwargs)
        messages.info(request, "Logged out.")
        return response


class AccountPasswordChangeView(PasswordChangeView):
    template_name = "accounts/password_change.html"
    success_url = reverse_lazy(DASHBOARD)

    def form_valid(self, form):
        response = super().form_valid(form)
        messages.success(self.request, "Password changed. Other sessions of this account are logged out.")
        return response


def register(request: HttpRequest) -> HttpResponse:
    """A new account (the service applies Django's password validators), logged in at once.
    Throttled per client address like `POST /register`."""
    if request.user.is_authenticated:
        return redirect(DASHBOARD)
    form = RegisterForm(request.POST or None)
    if request.method == "POST" and (seconds := _throttled_seconds(request, [RegisterIPRateThrottle()])) is not None:
        context = {"form": RegisterForm(initial={"email": request.POST.get("email", "")})}
        context["throttled"] = TOO_MANY_ATTEMPTS.format(seconds=seconds)
        return _too_many_attempts(render(request, "accounts/register.html", context, status=429), seconds)
    if request.method == "POST" and form.is_valid():
        try:
            user = user_register(email=form.cleaned_data["email"], password=form.cleaned_data["password"])
        except ValidationError as error:
            form_add_domain_error(form, error)
        else:
            login(request, user, backend=MODEL_BACKEND)
            messages.success(request, f"Welcome, {user.email}. Create a mind to give an agent its memory.")
            return redirect(DASHBOARD)
    return render(request, "accounts/register.html", {"form": form})


# --- Minds ----------------------------------------------------------------------------------


def _key_shown_once(request: HttpRequest, *, mind: Mind, issued: IssuedKey, status: int = 201) -> HttpResponse:
    """The page that shows a key's plain text, the only time it is shown: never cached."""
    response = render(request, "minds/key_shown_once.html", {"mind": mind, "issued": issued}, status=status)
    add_never_cache_headers(response)
    return response


@ui_view
@require_POST
def mind_new(request: HttpRequest) -> HttpResponse:
    """Create a mind (the dashboard's form); the answer shows its first Mind Key once."""
    form = MindForm(request.POST)
    if form.is_valid():
        try:
            mind, issued = mind_create(
                owner=request.user, name=form.cleaned_data["name"], description=form.cleaned_data["description"]
            )
        except ValidationError as error:
            form_add_domain_error(form, error)
        else:
            messages.success(request, f"Mind “{mind.name}” created. Copy its key now: it is shown only once.")
            return _key_shown_once(request, mind=mind, issued=issued)
    messages.error(request, "The mind was not created; see the form.")
    return render(request, "minds/mind_new.html", {"form": form}, status=400)


def _keys_page(request: HttpRequest, mind: Mind, **forms) -> HttpResponse:
    context = {
        "mind": mind,
        "keys": mind_keys_list(mind=mind),
        "shares": mind_shares_list(mind=mind),
        "key_form": forms.get("key_form") or KeyIssueForm(),
        "share_form": forms.get("share_form") or ShareCreateForm(),
        "mind_form": forms.get("mind_form") or MindForm(initial={"name": mind.name, "description": mind.description}),
        "acl_choices": ShareUpdateForm.base_fields["acl"].choices,
        "is_owner": mind.access == Access.OWNER.label,
    }
    return render(request, "minds/keys.html", context, status=400 if forms else 200)


@ui_view
@require_GET
def mind_keys(request: HttpRequest, mind_id: str) -> HttpResponse:
    """The mind's keys (never a secret), who it is shared with, its name (admin access or owner)."""
    mind, _ = mind_get_for(user=request.user, mind_id=mind_id, need=Access.ADMIN)
    return _keys_page(request, mind)


@ui_view
@require_POST
def mind_key_new(request: HttpRequest, mind_id: str) -> HttpResponse:
    mind, _ = mind_get_for(user=request.user, mind_id=mind_id, need=Access.ADMIN)
    form = KeyIssueForm(request.POST)
    if not form.is_valid():
        return _keys_page(request, mind, key_form=form)
    issued = mind_key_issue(mind=mind, label=form.cleaned_data["label"])
    messages.success(request, f"Key {issued.key.prefix}… issued. Copy it now: it is shown only once.")
    return _key_shown_once(request, mind=mind, issued=issued)


@ui_view
@require_POST
def mind_key_revoke_view(request: HttpRequest, mind_id: str, key_id: int) -> HttpResponse:
    mind, _ = mind_get_for(user=request.user, mind_id=mind_id, need=Access.ADMIN)
    key = mind_key_revoke(key=mind_key_get(mind=mind, key_id=key_id))
    messages.success(request, f"Key {key.prefix}… revoked: it answers 401 from now on.")
    return redirect("ui-mind-keys", mind_id=mind.pk)


@ui_view
@require_POST
def mind_share_new(request: HttpRequest, mind_id: str) -> HttpResponse:
    mind, _ = mind_get_for(user=request.user, mind_id=mind_id, need=Access.ADMIN)
    form = ShareCreateForm(request.POST)
    if form.is_valid():
        try:
            share = mind_share_create(
                mind=mind, user_email=form.cleaned_data["user_email"], acl=form.cleaned_data["acl"]
            )
        except (ValidationError, Conflict) as error:
            form_add_domain_error(form, error)
        else:
            messages.success(request, f"Shared with {share.user.email} ({share.acl}).")
            return redirect("ui-mind-keys", mind_id=mind.pk)
    return _keys_page(request, mind, share_form=form)


@ui_view
@require_POST
def mind_share_change(request: HttpRequest, mind_id: str, share_id: int) -> HttpResponse:
    mind, _ = mind_get_for(user=request.user, mind_id=mind_id, need=Access.ADMIN)
    share = mind_share_get(mind=mind, share_id=share_id)
    form = ShareUpdateForm(request.POST)
    if not form.is_valid():
        messages.error(request, f"Choose one of: {', '.join(value for value, _ in form.fields['acl'].choices)}.")
    else:
        share = mind_share_update(share=share, acl=form.cleaned_data["acl"])
        messages.success(request, f"{share.user.email} now has {share.acl} access.")
    return redirect("ui-mind-keys", mind_id=mind.pk)


@ui_view
@require_POST
def mind_share_remove(request: HttpRequest, mind_id: str, share_id: int) -> HttpResponse:
    mind, _ = mind_get_for(user=request.user, mind_id=mind_id, need=Access.ADMIN)
    share = mind_share_get(mind=mind, share_id=share_id)
    email = share.user.email
    mind_share_delete(share=share)
    messages.success(request, f"No longer shared with {email}.")
    return redirect("ui-mind-keys", mind_id=mind.pk)


@ui_view
@require_POST
def mind_rename(request: HttpRequest, mind_id: str) -> HttpResponse:
    mind, _ = mind_get_for(user=request.user, mind_id=mind_id, need=Access.ADMIN)
    form = MindForm(request.POST)
    if form.is_valid():
        try:
            mind = mind_update(mind=mind, name=form.cleaned_data["name"], description=form.cleaned_data["description"])
        except ValidationError as error:
            form_add_domain_error(form, error)
        else:
            messages.success(request, f"Mind renamed to “{mind.name}”.")
            return redirect("ui-mind-keys", mind_id=mind.pk)
    return _keys_page(request, mind, mind_form=form)


@ui_view
@require_POST
def mind_remove(request: HttpRequest, mind_id: str) -> HttpResponse:
    """Delete the mind and everything of it (owner only). The form asks to type its name."""
    mind, _ = mind_get_for(user=request.user, mind_id=mind_id, need=Access.OWNER)
    if request.POST.get("confirm_name", "").strip() != mind.name:
        messages.error(request, f"Type the mind's name, “{mind.name}”, to delete it; nothing was deleted.")
        return redirect("ui-mind-keys", mind_id=mind.pk)
    name = mind.name
    mind_delete(mind=mind)
    messages.success(request, f"Mind “{name}” and everything in it deleted.")
    return redirect(reverse(DASHBOARD))
