"""GET /synapses/resonance and GET /synapses/modes (docs/api-synapses.md)."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework.response import Response
from rest_framework.views import APIView

from memoryproject.core.api.params import no_query_params, query_params
from memoryproject.core.schema import error_responses
from minds.access import Access
from minds.api.request_mind import mind_from_request
from synapses import constants
from synapses.api.resonance_serializers import (
    ModesSerializer,
    ResonanceQuerySerializer,
    ResonanceSerializer,
    resonance_body,
)
from synapses.resonance.arithmetic import default_modes
from synapses.resonance.service import mind_modes, resonance_of


class ResonanceView(APIView):
    @extend_schema(
        parameters=[ResonanceQuerySerializer],
        responses={200: ResonanceSerializer, **error_responses(400, 401, 404, 503)},
    )
    def get(self, request):
        """The mind's knots that resonate with `q`: anchors found by the query (vector and full
        text), their associations by spreading activation, ranked by presence, shell and mood."""
        mind, _ = mind_from_request(request, need=Access.READ)
        modes, _ = mind_modes(mind)
        params = query_params(ResonanceQuerySerializer, request, context={"modes": modes})
        return Response(resonance_body(resonance_of(mind=mind, **params)))


class ModesView(APIView):
    @extend_schema(responses={200: ModesSerializer, **error_responses(400, 401, 404)})
    def get(self, request):
        """The modes this mind knows, with hop depth and gravity factor: the built-in ones and the
        mind's own (its settings may override or add modes)."""
        mind, _ = mind_from_request(request, need=Access.READ)
        no_query_params(request)
        modes, rejected = mind_modes(mind)
        builtin = default_modes()
        body = {
            "default": constants.DEFAULT_MODE,
            "modes": [
                {
                    "name": mode.name,
                    "hop_depth": mode.hop_depth,
                    "gravity_factor": mode.gravity_factor,
                    "source": "default" if builtin.get(name) == mode else "mind",
                }
                for name, mode in sorted(modes.items())
            ],
            "rejected": rejected,
        }
        return Response(ModesSerializer(body).data)
