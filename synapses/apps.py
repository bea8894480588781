from django.apps import AppConfig


class SynapsesConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "synapses"

    def ready(self) -> None:
        from synapses import receivers  # noqa: F401 — connects the signal receivers
