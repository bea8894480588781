"""`manage.py unlock EMAIL`: lifts the login policy's lockouts and delay of an account."""

from __future__ import annotations

from django.core.management.base import BaseCommand

from minds.login_policy import login_unlock


class Command(BaseCommand):
    help = (
        "Lift every login lockout of the account EMAIL (from every address) and its delay, at /login, "
        "/accounts/login/ and /admin/login/ alike. The email need not belong to an account."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("email")

    def handle(self, *args, email: str, **options) -> None:
        lifted = login_unlock(email=email)
        self.stdout.write(f"{email}: {lifted} lockout(s) lifted; the account's delay is reset.")
