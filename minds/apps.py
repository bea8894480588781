from django.apps import AppConfig


class MindsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "minds"

    def ready(self) -> None:
        from django.urls import register_converter

        from memoryproject.core.converters import MindIdConverter

        register_converter(MindIdConverter, "mind_id")

        # Registers the OpenAPI extensions (auth schemes) before any schema is generated.
        import minds.openapi  # noqa: F401

        # Registers the system checks (minds.W001) and the receivers that revoke tokens.
        import minds.checks  # noqa: F401
