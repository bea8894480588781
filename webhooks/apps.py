from django.apps import AppConfig


class WebhooksConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "webhooks"

    def ready(self) -> None:
        from webhooks import receivers  # noqa: F401 — connects the lifecycle and net signal receivers
