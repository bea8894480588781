from django.apps import AppConfig


class MemoriesConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "memories"

    def ready(self) -> None:
        from django.urls import register_converter

        from memories.converters import MemoryIdConverter, MindIdConverter

        register_converter(MemoryIdConverter, "memory_id")
        register_converter(MindIdConverter, "mind_id")

        import memories.checks  # noqa: F401  (registers the system checks)
        import memoryproject.database_checks  # noqa: F401  (registers the PostgreSQL/pgvector version check)

        # Registers the OpenAPI extensions (auth schemes) before any schema is generated.
        import memoryproject.schema  # noqa: F401
