"""Shapes of the pipeline-log API (output only)."""

from __future__ import annotations

from rest_framework import serializers

from pipelinelog.models import LogEntry
from pipelinelog.story import turn_story


class LogEntrySerializer(serializers.ModelSerializer):
    mind_id = serializers.CharField(allow_null=True, read_only=True)

    class Meta:
        model = LogEntry
        fields = ["id", "created_at", "kind", "node", "span_id", "source", "mind_id", "content"]
        read_only_fields = fields


class SpanTraceSerializer(serializers.Serializer):
    span_id = serializers.UUIDField(allow_null=True)
    node = serializers.CharField()
    status = serializers.CharField(help_text="From span_end: ok, error, client_error; `open` when it has none.")
    duration_ms = serializers.FloatField(allow_null=True)
    rows = LogEntrySerializer(many=True)


class TurnTraceSerializer(serializers.Serializer):
    turn_id = serializers.CharField()
    spans = SpanTraceSerializer(many=True)
    truncated = serializers.BooleanField(help_text="True when the turn has more rows than one answer returns.")
    story = serializers.SerializerMethodField(
        help_text="The turn told in lines of text: each span's heading, its rows beneath (recall with "
        "resonance and reinforcement in words: anchors, shells, paths, factors, the outcome)."
    )

    def get_story(self, trace) -> list[str]:
        return turn_story(trace.spans)
