"""Routes of the net's API (docs/api-synapses.md), included from memoryproject/urls.py.

GET /memory/{id}/related and GET /memory/graph answer from knots and edges, so the net serves
them (memories cannot import the net); GET /minds/{id}/profile likewise.
"""

from django.urls import register_converter

from memoryproject.core.routing import route
from synapses.api import resonance_views, views


class RowIdConverter:
    """A knot, entity or goal id in a path: 1–18 digits, so it always fits PostgreSQL's bigint
    (a longer number is simply not found, never a database error)."""

    regex = r"[0-9]{1,18}"

    def to_python(self, value: str) -> int:
        return int(value)

    def to_url(self, value: int) -> str:
        return str(value)


register_converter(RowIdConverter, "row_id")

urlpatterns = [
    *route("synapses/used", views.UsedView.as_view(), name="synapses-used"),
    *route("synapses/goals", views.GoalCollectionView.as_view(), name="synapses-goals"),
    *route("synapses/goals/<row_id:goal_id>", views.GoalDetailView.as_view(), name="synapses-goal"),
    *route("synapses/entities", views.EntityCollectionView.as_view(), name="synapses-entities"),
    *route("synapses/discovery", views.DiscoveryView.as_view(), name="synapses-discovery"),
    *route("synapses/entities/<row_id:entity_id>", views.EntityDetailView.as_view(), name="synapses-entity"),
    *route("synapses/entities/<row_id:entity_id>/merge", views.EntityMergeView.as_view(), name="synapses-entity-merge"),
    *route("synapses/knots", views.KnotCollectionView.as_view(), name="synapses-knots"),
    *route("synapses/knots/<row_id:knot_id>", views.KnotDetailView.as_view(), name="synapses-knot"),
    *route("minds/<mind_id:mind_id>/profile", views.MindProfileView.as_view(), name="mind-profile"),
    *route("memory/<memory_id:memory_id>/related", views.MemoryRelatedView.as_view(), name="memory-related"),
    *route("memory/graph", views.MemoryGraphView.as_view(), name="memory-graph"),
    *route("synapses/resonance", resonance_views.ResonanceView.as_view(), name="synapses-resonance"),
    *route("synapses/modes", resonance_views.ModesView.as_view(), name="synapses-modes"),
]
