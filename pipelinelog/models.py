"""One row per step of a request or background job (docs/pipeline-log.md, "What a row holds"), and the
erasures the log still owes a deletion."""

from __future__ import annotations

from django.contrib.postgres.fields import ArrayField
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


class ErasureReason(models.TextChoices):
    MEMORY_DELETED = "memory_deleted"  # DELETE /memory/{id}
    VERSIONS_PURGED = "versions_purged"  # DELETE /memory/{id}/versions
    MIND_DELETED = "mind_deleted"  # DELETE /minds/{id}


class Erasure(models.Model):
    """A deletion whose content the log must lose (docs/pipeline-log.md, "Erasure").

    Written in the deleting transaction; `pipelinelog.tasks.erasure_apply` finds the log rows and
    the worker's task rows that quote the content and erases it there. Until then `texts` holds
    the beginnings of the erased contents, the only copy the search needs; applied, the row keeps
    only that a deletion happened: which memory of which mind, why, when, and how many rows lost
    what they quoted.
    """

    # Not foreign keys: the record outlives the memory and the mind it names.
    mind_id = models.CharField(max_length=40)
    memory_id = models.CharField(max_length=40, blank=True, default="")  # blank for a whole mind
    reason = models.CharField(max_length=16, choices=ErasureReason.choices)
    texts = ArrayField(models.TextField(), default=list, blank=True)
    # Log rows older than this cannot quote the content (it reached this server later); null: all.
    since = models.DateTimeField(null=True, blank=True)
    requested_at = models.DateTimeField()
    applied_at = models.DateTimeField(null=True, blank=True)
    rows_erased = models.PositiveIntegerField(default=0)

    class Meta:
        indexes = [
            models.Index(
                fields=["requested_at"], condition=models.Q(applied_at__isnull=True), name="erasure_pending_idx"
            )
        ]

    def __str__(self) -> str:
        return f"{self.reason} {self.memory_id or self.mind_id} at {self.requested_at:%Y-%m-%d %H:%M:%S}"
