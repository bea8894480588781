"""One row per step of a request or background job (docs/pipeline-log.md, "What a row holds")."""

from __future__ import annotations

from django.db import models

from pipelinelog.constants import NODE_MAX_LENGTH, SOURCE_MAX_LENGTH, TURN_ID_MAX_LENGTH


class Kind(models.TextChoices):
    INPUT = "input"  # what a node received
    OUTPUT = "output"  # what a node produced
    CALCULATION = "calculation"  # an algorithmic computation and its numbers
    DECISION = "decision"  # a branch between two or more options, with the reason
    DB_READ = "db_read"  # a read of stored data worth seeing in a trace
    DB_WRITE = "db_write"  # a create / update / delete
    ERROR = "error"  # an exception or a refused input
    NOTE = "note"  # a free remark
    SPAN_START = "span_start"  # a node run begins
    SPAN_END = "span_end"  # a node run ends: {"status", "duration_ms"}
    PROMPT = "prompt"  # the content of an LLM call
    TOKEN = "token"  # noqa: S105 — token counts / cost of an LLM call, not a secret


class LogEntry(models.Model):
    """Rows are written only by `pipelinelog.writer` (buffered) and deleted only by retention."""

    # Set when the row is recorded (not when it is flushed), so the order of a span is its real order.
    created_at = models.DateTimeField()
    turn_id = models.CharField(max_length=TURN_ID_MAX_LENGTH)
    span_id = models.UUIDField(null=True, blank=True)
    source = models.CharField(max_length=SOURCE_MAX_LENGTH)
    node = models.CharField(max_length=NODE_MAX_LENGTH)
    kind = models.CharField(max_length=20, choices=Kind.choices)
    content = models.JSONField(null=True, blank=True)
    # Null for cross-mind jobs; deleting a mind deletes its log rows.
    mind = models.ForeignKey(
        "minds.Mind",
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="log_entries",
        db_index=False,  # covered by pipelinelog_mind_created_idx
    )

    class Meta:
        verbose_name = "log entry"
        verbose_name_plural = "log entries"
        indexes = [
            models.Index(fields=["turn_id"], name="pipelinelog_turn_idx"),
            models.Index(fields=["span_id"], name="pipelinelog_span_idx"),
            models.Index(fields=["node", "kind"], name="pipelinelog_node_kind_idx"),
            models.Index(fields=["-created_at"], name="pipelinelog_created_idx"),
            # Mind first: serves every mind lookup (and the cascade) and the newest-first list of one mind.
            models.Index(fields=["mind", "-created_at"], name="pipelinelog_mind_created_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.created_at:%Y-%m-%d %H:%M:%S} {self.node} {self.kind}"
