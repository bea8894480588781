from django.apps import AppConfig


class PipelinelogConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "pipelinelog"
    verbose_name = "Pipeline log"
