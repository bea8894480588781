from django.apps import AppConfig


class SynapsesConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "synapses"
