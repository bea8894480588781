"""DRF permission classes shared by every app."""

from rest_framework.permissions import BasePermission

from minds.principals import is_agent


class IsHuman(BasePermission):
    """Endpoints for people only: a Mind Key is known but not allowed here (403)."""

    message = "This endpoint is for humans (log in for a JWT); a Mind Key cannot use it."

    def has_permission(self, request, view) -> bool:
        user = request.user
        return bool(user and user.is_authenticated and not is_agent(user))
