"""Parameters of /memory/search and /memory/semantic-search (validation only) and their answers."""

from __future__ import annotations

from django.core.validators import RegexValidator
from rest_framework import serializers

from memories.api.serializers import MemorySerializer
from memories.limits import MAX_TAG_CHARS
from memories.models import Category
from memoryproject.core.api.fields import QueryIntegerField, StrictCharField, StrictChoiceField
from memoryproject.core.pagination import MAX_PAGE_LIMIT

# Longest search text (characters). Enough for a paragraph of conversation as the query;
# beyond it websearch_to_tsquery builds huge AND-queries that match nothing anyway.
SEARCH_MAX_QUERY_CHARS = 5000
# Results when `limit` is not given (docs/search.md), and the cap of every list.
SEARCH_DEFAULT_LIMIT = 20
SEMANTIC_DEFAULT_LIMIT = 10
# Lowest cosine similarity semantic-search returns when `threshold` is not given (docs/search.md).
SEMANTIC_DEFAULT_THRESHOLD = 0.3


class SearchTextField(StrictCharField):
    """`q`: raw text, any characters except NUL (PostgreSQL text cannot hold it), at most
    SEARCH_MAX_QUERY_CHARS unless `max_length` says otherwise."""

    default_error_messages = {
        "required": "Give the text to search for: ?q=<text>.",
        "blank": "q is empty; give the text to search for.",
        "max_length": "q is at most {max_length:,} characters; shorten the query.",
        "nul": "q must not contain NUL characters (\\u0000); remove them.",
    }

    def __init__(self, *, max_length: int = SEARCH_MAX_QUERY_CHARS, **kwargs):
        # The NUL rule as a pattern, so the OpenAPI document states it (to_internal_value refuses
        # NUL first, with its own message; this validator never fires).
        kwargs["validators"] = [*kwargs.get("validators", []), RegexValidator(r"^[^\x00]*$")]
        super().__init__(max_length=max_length, **kwargs)

    def to_internal_value(self, data):
        if isinstance(data, str) and "\x00" in data:
            self.fail("nul")
        return super().to_internal_value(data)


class SearchQuerySerializer(serializers.Serializer):
    q = SearchTextField(help_text="Text to search for, websearch syntax: quotes for phrases, OR, -word.")
    limit = QueryIntegerField(required=False, min_value=1, max_value=MAX_PAGE_LIMIT, default=SEARCH_DEFAULT_LIMIT)
    tag = StrictCharField(
        required=False,
        max_length=MAX_TAG_CHARS,
        error_messages={
            "blank": "tag is empty; leave it out or name a tag.",
            "max_length": f"A tag is at most {MAX_TAG_CHARS} characters.",
        },
    )
    category = StrictChoiceField(Category.values, required=False)

    def validate_tag(self, tag: str) -> str:
        return tag.lower()  # tags are stored lower-cased


class SemanticSearchQuerySerializer(serializers.Serializer):
    q = SearchTextField(help_text="Text to compare with the memories by meaning.")
    limit = QueryIntegerField(required=False, min_value=1, max_value=MAX_PAGE_LIMIT, default=SEMANTIC_DEFAULT_LIMIT)
    threshold = serializers.FloatField(
        required=False,
        min_value=0.0,
        max_value=1.0,
        default=SEMANTIC_DEFAULT_THRESHOLD,
        error_messages={
            "invalid": "Use a number from 0 to 1.",
            "min_value": "Use a number from 0 to 1.",
            "max_value": "Use a number from 0 to 1.",
            "max_string_length": "Use a number from 0 to 1.",
        },
        help_text="Lowest cosine similarity returned (0–1).",
    )


def _memory_part(result_serializer: serializers.Serializer, memory) -> dict:
    """The memory object of a hit. One MemorySerializer per result list, not per hit: building a
    serializer copies all its fields, which cost more than the whole search query."""
    memory_serializer = getattr(result_serializer, "_memory_serializer", None)
    if memory_serializer is None:
        memory_serializer = result_serializer._memory_serializer = MemorySerializer(context=result_serializer.context)
    return memory_serializer.to_representation(memory)


class SearchResultSerializer(MemorySerializer):
    """A memory found by /memory/search."""

    score = serializers.FloatField(help_text="Reciprocal-rank-fusion score: Σ 1/(60 + rank) over the lists.")
    matched = serializers.ListField(
        child=serializers.ChoiceField(["text", "vector"]), help_text="Which lists found it: text, vector or both."
    )

    def to_representation(self, hit):
        return {**_memory_part(self, hit.memory), "score": hit.score, "matched": list(hit.matched)}


class SemanticResultSerializer(MemorySerializer):
    """A memory found by /memory/semantic-search."""

    similarity = serializers.FloatField(help_text="Cosine similarity to the query (-1–1).")

    def to_representation(self, hit):
        return {**_memory_part(self, hit.memory), "similarity": hit.similarity}


class SearchResponseSerializer(serializers.Serializer):
    query = serializers.CharField()
    limit = serializers.IntegerField()
    count = serializers.IntegerField(help_text="Results in this answer (at most `limit`).")
    results = SearchResultSerializer(many=True)


class SemanticSearchResponseSerializer(serializers.Serializer):
    query = serializers.CharField()
    limit = serializers.IntegerField()
    threshold = serializers.FloatField()
    count = serializers.IntegerField(help_text="Results in this answer (at most `limit`).")
    results = SemanticResultSerializer(many=True)
