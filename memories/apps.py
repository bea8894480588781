from django.apps import AppConfig


class MemoriesConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "memories"

    def ready(self) -> None:
        from django.urls import register_converter

        from memoryproject.core.converters import MemoryIdConverter

        register_converter(MemoryIdConverter, "memory_id")

        import memories.checks  # noqa: F401  (registers the system checks)
        import memories.receivers  # noqa: F401  (listens to minds.signals)
        import memoryproject.embedded.checks  # noqa: F401  (registers the PostgreSQL/pgvector version check)
