from django.apps import AppConfig


class PipelinelogConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "pipelinelog"
    verbose_name = "Pipeline log"

    def ready(self) -> None:
        from django_q.signals import post_execute_in_worker, pre_enqueue, pre_execute

        from minds.signals import mind_deleting, mind_resolved
        from pipelinelog import receivers, worker_hooks
        from pipelinelog.constants import setting
        from pipelinelog.writer import writer

        pre_enqueue.connect(worker_hooks.on_pre_enqueue, dispatch_uid="pipelinelog.pre_enqueue")
        pre_execute.connect(worker_hooks.on_pre_execute, dispatch_uid="pipelinelog.pre_execute")
        post_execute_in_worker.connect(
            worker_hooks.on_post_execute_in_worker, dispatch_uid="pipelinelog.post_execute_in_worker"
        )
        mind_resolved.connect(receivers.mind_bind_to_span, dispatch_uid="pipelinelog.mind_resolved")
        mind_deleting.connect(receivers.mind_erasure_record, dispatch_uid="pipelinelog.mind_deleting")
        if setting("PIPELINE_LOG_ENABLED") and not setting("PIPELINE_LOG_SYNC"):
            # Here, on the main thread, while it is sure to be the main thread: atexit + SIGTERM.
            writer.install_exit_hooks()
