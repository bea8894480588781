"""GET /synapses/resonance and GET /synapses/modes (docs/api-synapses.md)."""

from __future__ import annotations

from collections.abc import Mapping

from drf_spectacular.utils import extend_schema
from rest_framework.response import Response
from rest_framework.views import APIView

from memories.emotions import emotion_canonical
from memoryproject.api.params import no_query_params, query_params
from memoryproject.contributions import RecallSection
from memoryproject.domain import ValidationFailed
from memoryproject.schema import error_responses
from minds.access import Access
from minds.api.request_mind import mind_from_request
from minds.models import Mind
from synapses import constants
from synapses.api.resonance_serializers import (
    ModesSerializer,
    ResonanceQuerySerializer,
    ResonanceSerializer,
    resonance_body,
)
from synapses.resonance.arithmetic import default_modes, mood_problem, resonance_text
from synapses.resonance.service import mind_modes, resonance_lines, resonance_of

# recall's key for the section (its JSON form: {"resonance": {...}}).
RECALL_SECTION_NAME = "resonance"


def resonance_answer(mind, request) -> dict:
    """The body of GET /synapses/resonance for an authorized `mind`: `request`'s query (a DRF
    request, or anything with `query_params`, as the MCP tool passes) checked against the mind's
    modes, then resonated and serialized. One home for the API and the MCP tool."""
    modes, _ = mind_modes(mind)
    params = query_params(ResonanceQuerySerializer, request, context={"modes": modes})
    result = resonance_of(
        mind=mind,
        q=params["q"],
        mode=params.get("mode", ""),
        intent=params.get("intent", ""),
        mood=params.get("mood", ""),
        limit=params["limit"],
    )
    return resonance_body(result)


class ResonanceView(APIView):
    @extend_schema(
        parameters=[ResonanceQuerySerializer],
        responses={200: ResonanceSerializer, **error_responses(400, 401, 404, 503)},
    )
    def get(self, request):
        """The mind's knots that resonate with `q`: anchors found by the query (vector and full
        text), their associations by spreading activation, ranked by presence, shell and mood."""
        mind, _ = mind_from_request(request, need=Access.READ)
        return Response(resonance_answer(mind, request))


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


def recall_resonance_section(mind_id: str, q: str, options: Mapping[str, str]) -> RecallSection:
    """GET /memory/recall?q=: the resonance of `q` (RESONANCE_DEFAULT_LIMIT knots) as the recall
    text's section and as JSON; `options` are recall's mode, intent and mood (ValidationFailed
    naming an unknown mood or mode). Registered in SynapsesConfig.ready()."""
    mood = options.get("mood", "")
    problem = mood_problem(mood)
    if problem:
        raise ValidationFailed({"mood": [problem]})
    result = resonance_of(
        mind=Mind.objects.get(pk=mind_id),
        q=q,
        mode=options.get("mode", ""),
        intent=options.get("intent", ""),
        mood=emotion_canonical(mood) or "",
        limit=constants.RESONANCE_DEFAULT_LIMIT,
    )
    return RecallSection(
        name=RECALL_SECTION_NAME,
        text=resonance_text(q, resonance_lines(result["items"])),
        data=resonance_body(result),
    )
