from django.apps import AppConfig
from django.contrib.admin import apps as admin_apps


class SynapseAdminConfig(admin_apps.AdminConfig):
    """Django's admin on minds.admin_site's site: its login follows the login policy.
    INSTALLED_APPS names it in place of `django.contrib.admin`."""

    default = False  # not the config of `minds` (MindsConfig is)
    default_site = "minds.admin_site.SynapseAdminSite"


class MindsConfig(AppConfig):
    default = True
    default_auto_field = "django.db.models.BigAutoField"
    name = "minds"

    def ready(self) -> None:
        from django.urls import register_converter

        from memoryproject.core.converters import MindIdConverter

        register_converter(MindIdConverter, "mind_id")

        # The OpenAPI extensions (auth schemes) before any schema is generated; the system checks
        # (minds.W001); the receivers that revoke tokens on a password change or deactivation.
        import minds.checks  # noqa: F401
        import minds.openapi  # noqa: F401
        import minds.receivers  # noqa: F401
