"""Parameters of GET /synapses/resonance (validation only) and the shapes of it and GET /synapses/modes."""

from __future__ import annotations

from rest_framework import serializers

from memories.api.search_serializers import SearchTextField
from memoryproject.core.api.fields import QueryIntegerField, StrictCharField
from memoryproject.core.domain import ValidationFailed
from synapses import constants
from synapses.resonance.arithmetic import Mode, mode_of, unknown_mode_message
from synapses.resonance.service import mood_resolve

# Longest `q` a resonance takes (characters): a turn of conversation, not a document.
RESONANCE_MAX_QUERY_CHARS = 1000
# Longest `mode` / `intent` / `mood` label (characters).
RESONANCE_MAX_LABEL_CHARS = 100


class ResonanceQuerySerializer(serializers.Serializer):
    q = SearchTextField(max_length=RESONANCE_MAX_QUERY_CHARS, help_text="What the agent is talking about.")
    mode = StrictCharField(
        required=False,
        allow_blank=True,
        max_length=RESONANCE_MAX_LABEL_CHARS,
        help_text="A mode of GET /synapses/modes (sets hop depth and gravity); `default` when left out.",
    )
    intent = StrictCharField(
        required=False,
        allow_blank=True,
        max_length=RESONANCE_MAX_LABEL_CHARS,
        help_text="`instruction` searches with the raw query (no perception gravity); other labels change nothing.",
    )
    mood = StrictCharField(
        required=False,
        allow_blank=True,
        max_length=RESONANCE_MAX_LABEL_CHARS,
        help_text="The agent's current feeling, an emotion label: knots of nearby sectors rank higher.",
    )
    limit = QueryIntegerField(
        required=False,
        min_value=1,
        max_value=constants.RESONANCE_MAX_LIMIT,
        default=constants.RESONANCE_DEFAULT_LIMIT,
    )

    def validate_mode(self, name: str) -> Mode | str:
        """Resolved here against the mind's modes (context `modes`), so a bad mode is named with
        every other bad parameter in one 400, and the service is given the Mode itself rather
        than a name to resolve against the mind's settings again."""
        modes = self.context.get("modes")
        if modes is None:
            return name
        mode = mode_of(name, modes)
        if mode is None:
            raise serializers.ValidationError(unknown_mode_message(name, modes))
        return mode

    def validate_mood(self, label: str) -> str:
        try:
            return mood_resolve(label)
        except ValidationFailed as failed:
            raise serializers.ValidationError(failed.fields["mood"]) from None

    def validate(self, attrs: dict) -> dict:
        """A mode left out is the mind's default mode, resolved like a named one."""
        modes = self.context.get("modes")
        if modes is not None and "mode" not in attrs:
            attrs["mode"] = mode_of("", modes)
        return attrs


class PathStepSerializer(serializers.Serializer):
    from_knot_id = serializers.IntegerField()
    edge_id = serializers.IntegerField()
    layers = serializers.ListField(child=serializers.CharField())
    shared_entities = serializers.ListField(child=serializers.CharField(), help_text="Entity names.")
    shared_themes = serializers.ListField(child=serializers.CharField())


class ResonanceItemSerializer(serializers.Serializer):
    rank = serializers.IntegerField(help_text="1 = strongest.")
    knot_id = serializers.IntegerField(
        allow_null=True, help_text="null for a memory not yet promoted (`in_net` false): it has no knot yet."
    )
    in_net = serializers.BooleanField(
        help_text="false: a memory stored moments ago, not yet promoted into the long-term net (no knot, "
        "no edges, `shell` 0, `weight_present` the presence its knot will start with). Offer its `memory_id` "
        "in `POST /synapses/used`; the use is applied when it is promoted."
    )
    memory_id = serializers.CharField(help_text="The memory the knot was promoted from (or the pending memory).")
    memory_ids = serializers.ListField(
        child=serializers.CharField(), help_text="Every memory linked to the knot, `memory_id` first."
    )
    content = serializers.CharField()
    themes = serializers.ListField(child=serializers.CharField())
    entities = serializers.ListField(child=serializers.CharField(), help_text="Entity names.")
    emotion = serializers.CharField(allow_blank=True)
    observer = serializers.CharField()
    created_at = serializers.DateTimeField()
    weight_present = serializers.FloatField()
    shell = serializers.IntegerField(help_text="0 = an anchor (found by the query itself), n = n hops away.")
    rank_weight = serializers.FloatField(
        help_text="relevance ranking: (the fused query score + the activation spreading carried) × sector factor; "
        "seed ranking: weight_present × shell factor × sector factor."
    )
    superseded = serializers.BooleanField(help_text="The knot's memory has changed since; this is an earlier version.")
    contradicted_by = serializers.IntegerField(
        allow_null=True,
        help_text="The newer knot of this answer that states this fact changed (a negation, another number, date, "
        "version or name); it ranks right above this one. Null when none does, or when the newer one is a memory "
        "not in the net yet (then `contradicted_by_memory_id` names it).",
    )
    contradicted_by_memory_id = serializers.CharField(
        allow_null=True,
        help_text="The memory of the newer item that contradicts this one (a knot's memory, or a memory not yet "
        "in the net). Null when none does.",
    )
    path = PathStepSerializer(many=True, help_text="How spreading reached the knot; empty for an anchor.")


class GravitySerializer(serializers.Serializer):
    factor = serializers.FloatField(help_text="The share of the search vector the goals took (0: raw query).")
    cosine_to_raw = serializers.FloatField()
    outcome = serializers.CharField(
        help_text="`shifted`, `instruction`, `factor_zero`, `no_active_goals` or `discarded_degenerate`."
    )


class ResonanceSerializer(serializers.Serializer):
    anchor_count = serializers.IntegerField()
    hop_depth = serializers.IntegerField()
    mode = serializers.CharField()
    mood = serializers.CharField(allow_blank=True)
    ranking = serializers.ChoiceField(
        ["relevance", "seed"], help_text="How the items were ranked (the server's SYNAPSE_RESONANCE_RANKING)."
    )
    gravity = GravitySerializer()
    items = ResonanceItemSerializer(many=True, help_text="Strongest first.")


class ModeSerializer(serializers.Serializer):
    name = serializers.CharField()
    hop_depth = serializers.IntegerField()
    gravity_factor = serializers.FloatField()
    source = serializers.ChoiceField(["default", "mind"], help_text="Built in, or set by the mind's settings.")


class ModesSerializer(serializers.Serializer):
    default = serializers.CharField(help_text="The mode a resonance uses when none is named.")
    modes = ModeSerializer(many=True)
    rejected = serializers.DictField(
        child=serializers.CharField(), help_text="Mode overrides of the mind's settings left out, with the reason."
    )


# The one field whose JSON form is not the value itself: DRF's own, so the time reads the same.
_CREATED_AT = serializers.DateTimeField()


def resonance_body(result: dict) -> dict:
    """The JSON body of a resonance (`resonance_of`'s result), the same as
    `ResonanceSerializer(result).data` (tests/synapses/test_resonance_api.py pins it), built
    directly: DRF's walk over the nested fields of 10 items took ~4,000 function calls and 6 ms
    per answer (load average 5), about as long as the anchors statement. ResonanceSerializer
    stays the schema of the answer."""
    gravity = result["gravity"]
    return {
        "anchor_count": int(result["anchor_count"]),
        "hop_depth": int(result["hop_depth"]),
        "mode": str(result["mode"]),
        "mood": str(result["mood"]),
        "ranking": result["ranking"],
        "gravity": {
            "factor": float(gravity["factor"]),
            "cosine_to_raw": float(gravity["cosine_to_raw"]),
            "outcome": str(gravity["outcome"]),
        },
        "items": [_item_body(item) for item in result["items"]],
    }


def _item_body(item: dict) -> dict:
    return {
        "rank": int(item["rank"]),
        "knot_id": None if item["knot_id"] is None else int(item["knot_id"]),
        "in_net": bool(item["in_net"]),
        "memory_id": str(item["memory_id"]),
        "memory_ids": [str(m) for m in item["memory_ids"]],
        "content": str(item["content"]),
        "themes": [str(t) for t in item["themes"]],
        "entities": [str(e) for e in item["entities"]],
        "emotion": str(item["emotion"]),
        "observer": str(item["observer"]),
        "created_at": _CREATED_AT.to_representation(item["created_at"]),
        "weight_present": float(item["weight_present"]),
        "shell": int(item["shell"]),
        "rank_weight": float(item["rank_weight"]),
        "superseded": bool(item["superseded"]),
        "contradicted_by": None if item["contradicted_by"] is None else int(item["contradicted_by"]),
        "contradicted_by_memory_id": (
            None if item["contradicted_by_memory_id"] is None else str(item["contradicted_by_memory_id"])
        ),
        "path": [
            {
                "from_knot_id": int(step["from_knot_id"]),
                "edge_id": int(step["edge_id"]),
                "layers": [str(layer) for layer in step["layers"]],
                "shared_entities": [str(e) for e in step["shared_entities"]],
                "shared_themes": [str(t) for t in step["shared_themes"]],
            }
            for step in item["path"]
        ],
    }
