"""Routes of the net's API (docs/api-synapses.md), included from memoryproject/urls.py."""

from memoryproject.routing import route
from synapses.api import resonance_views

urlpatterns = [
    *route("synapses/resonance", resonance_views.ResonanceView.as_view(), name="synapses-resonance"),
    *route("synapses/modes", resonance_views.ModesView.as_view(), name="synapses-modes"),
]
