"""The net's endpoints: usage reinforcement, goals, entities, knots, the mind profile, and a
memory's related memories and the graph drawn from knots and edges (docs/api-synapses.md).

Thin views, in the project's order of checks: authorize (a mind or object the caller cannot see
is a 404), then validate the parameters and the body, call one service or query, serialize.
A Mind Key acts on its own mind with write access; a human names the mind (`?mind=`, `X-Mind`).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from memories.selectors.memory import memory_get_for
from memoryproject.core.api.negotiation import LenientNegotiationMixin
from memoryproject.core.api.params import PAGE_PARAMS, no_query_params, query_params
from memoryproject.core.domain import NotFound, PermissionDenied, ValidationFailed
from memoryproject.core.pagination import LimitOffsetPaging
from memoryproject.core.schema import error_responses
from minds.access import Access, mind_get_for
from minds.api.request_mind import mind_from_request, named_mind_id
from minds.permissions import IsHuman
from minds.principals import is_agent
from synapses.api.serializers import (
    DiscoveryInputSerializer,
    DiscoverySerializer,
    EntitiesQuerySerializer,
    EntityChangedSerializer,
    EntityDeletedSerializer,
    EntityInputSerializer,
    EntityMergeInputSerializer,
    EntitySerializer,
    GoalInputSerializer,
    GoalSerializer,
    GoalsQuerySerializer,
    GraphQuerySerializer,
    GraphSerializer,
    KnotDetailSerializer,
    KnotSerializer,
    KnotsQuerySerializer,
    NetRelatedMemorySerializer,
    ProfileQuerySerializer,
    ProfileSerializer,
    UsageReportSerializer,
    UsedInputSerializer,
)
from synapses.net.selectors import knots as queries
from synapses.resonance.goals import goal_create, goal_delete, goal_update
from synapses.upkeep.discovery import discovery_get, discovery_update
from synapses.upkeep.entities import entity_create, entity_delete, entity_merge, entity_update
from synapses.upkeep.reinforcement import knots_used_reinforce

SYNAPSES_TAG = ["synapses"]
TEXT_CONTENT_TYPE = "text/plain; charset=utf-8"
# Page sizes when the client gives no `limit`.
KNOTS_DEFAULT_LIMIT = 100
ENTITIES_DEFAULT_LIMIT = 100
GOALS_DEFAULT_LIMIT = 100
RELATED_DEFAULT_LIMIT = 20

DELETE_BY_A_PERSON = (
    "Deleting an entity cannot be undone and puts its names on the mind's ignore list, so a person decides it: "
    "log in (JWT) with write access to the mind."
)
MERGE_BY_A_PERSON = (
    "Merging entities cannot be undone, so a person decides it: log in (JWT) with write access to the mind. "
    "A Mind Key may create, rename and alias entities."
)


def _body(serializer_class, request: Request, *, partial: bool = False) -> dict:
    serializer = serializer_class(data=request.data, partial=partial)
    serializer.is_valid(raise_exception=True)
    return serializer.validated_data


def _paged_answer(view: APIView, items, serializer_class, context_of: Callable[[list], dict] | None = None) -> Response:
    """The answer of a list endpoint: one page of `items` (a queryset, or anything with count() and
    slices) by the view's paginator, serialized with the context `context_of` builds for that page
    (the extra rows a page needs are read for its items only)."""
    view.paginator = view.pagination_class()
    page = view.paginator.paginate_queryset(items, view.request, view=view)
    context = context_of(page) if context_of else {}
    return view.paginator.get_paginated_response(serializer_class(page, many=True, context=context).data)


# --- usage ----------------------------------------------------------------------------------------


class UsedView(APIView):
    @extend_schema(tags=SYNAPSES_TAG, request=UsedInputSerializer, responses={200: UsageReportSerializer})
    def post(self, request):
        """Reinforce the offered knots the answer really used (nearness ≥ threshold, at most the cap), and record
        the uses of offered memories not yet promoted, applied when they are; the report."""
        mind, _ = mind_from_request(request, need=Access.WRITE)
        no_query_params(request)
        body = _body(UsedInputSerializer, request)
        report = knots_used_reinforce(
            mind_id=mind.pk, answer=body["answer"], knot_ids=body["knot_ids"], memory_ids=body["memory_ids"]
        )
        return Response(UsageReportSerializer(report).data)


# --- goals ----------------------------------------------------------------------------------------


class GoalCollectionView(APIView):
    pagination_class = LimitOffsetPaging
    page_default_limit = GOALS_DEFAULT_LIMIT

    @extend_schema(tags=SYNAPSES_TAG, parameters=[GoalsQuerySerializer], responses=GoalSerializer(many=True))
    def get(self, request):
        """The mind's goals, most motivated first (`active` filters)."""
        mind, _ = mind_from_request(request, need=Access.READ)
        params = query_params(GoalsQuerySerializer, request, besides=PAGE_PARAMS)
        return _paged_answer(self, queries.goals_list(mind_id=mind.pk, **params), GoalSerializer)

    @extend_schema(tags=SYNAPSES_TAG, request=GoalInputSerializer, responses={201: GoalSerializer})
    def post(self, request):
        """A new goal `{statement, motivation 0..1, active}`; its statement is embedded."""
        mind, _ = mind_from_request(request, need=Access.WRITE)
        no_query_params(request)
        goal = goal_create(mind_id=mind.pk, **_body(GoalInputSerializer, request))
        return Response(GoalSerializer(goal).data, status=status.HTTP_201_CREATED)


class GoalDetailView(APIView):
    @extend_schema(tags=SYNAPSES_TAG, responses={200: GoalSerializer})
    def get(self, request, goal_id: int):
        """One goal."""
        mind, _ = mind_from_request(request, need=Access.READ)
        goal = queries.goal_get(mind_id=mind.pk, goal_id=goal_id)
        no_query_params(request)
        return Response(GoalSerializer(goal).data)

    @extend_schema(tags=SYNAPSES_TAG, request=GoalInputSerializer(partial=True), responses={200: GoalSerializer})
    def patch(self, request, goal_id: int):
        """Change any of statement (embedded again), motivation, active."""
        mind, _ = mind_from_request(request, need=Access.WRITE)
        goal = queries.goal_get(mind_id=mind.pk, goal_id=goal_id)
        no_query_params(request)
        goal = goal_update(goal=goal, **_body(GoalInputSerializer, request, partial=True))
        return Response(GoalSerializer(goal).data)

    @extend_schema(tags=SYNAPSES_TAG, responses={204: None})
    def delete(self, request, goal_id: int):
        """Delete the goal."""
        mind, _ = mind_from_request(request, need=Access.WRITE)
        goal = queries.goal_get(mind_id=mind.pk, goal_id=goal_id)
        no_query_params(request)
        goal_delete(goal=goal)
        return Response(status=status.HTTP_204_NO_CONTENT)


# --- entities -------------------------------------------------------------------------------------


def _entity_context(mind_id: str, entities) -> dict:
    return {"knot_counts": queries.entity_knot_counts(mind_id, [entity.pk for entity in entities])}


def _entity_changed(changed) -> dict:
    context = {**_entity_context(changed.entity.mind_id, [changed.entity]), "changed": changed}
    return EntityChangedSerializer(changed.entity, context=context).data


class EntityCollectionView(APIView):
    pagination_class = LimitOffsetPaging
    page_default_limit = ENTITIES_DEFAULT_LIMIT

    @extend_schema(tags=SYNAPSES_TAG, parameters=[EntitiesQuerySerializer], responses=EntitySerializer(many=True))
    def get(self, request):
        """The mind's entities by name, with the number of knots carrying each (`name` filters)."""
        mind, _ = mind_from_request(request, need=Access.READ)
        params = query_params(EntitiesQuerySerializer, request, besides=PAGE_PARAMS)
        entities = queries.entities_list(mind_id=mind.pk, **params)
        return _paged_answer(self, entities, EntitySerializer, partial(_entity_context, mind.pk))

    @extend_schema(tags=SYNAPSES_TAG, request=EntityInputSerializer, responses={201: EntityChangedSerializer})
    def post(self, request):
        """A new entity `{name, aliases}`; knots whose content names it gain it and their edges are recomputed."""
        mind, _ = mind_from_request(request, need=Access.WRITE)
        no_query_params(request)
        body = _body(EntityInputSerializer, request)
        changed = entity_create(mind_id=mind.pk, name=body["name"], aliases=body.get("aliases", ()))
        return Response(_entity_changed(changed), status=status.HTTP_201_CREATED)


class EntityDetailView(APIView):
    @extend_schema(tags=SYNAPSES_TAG, responses={200: EntitySerializer})
    def get(self, request, entity_id: int):
        """One entity."""
        mind, _ = mind_from_request(request, need=Access.READ)
        entity = queries.entity_get(mind_id=mind.pk, entity_id=entity_id)
        no_query_params(request)
        return Response(EntitySerializer(entity, context=_entity_context(mind.pk, [entity])).data)

    @extend_schema(
        tags=SYNAPSES_TAG, request=EntityInputSerializer(partial=True), responses={200: EntityChangedSerializer}
    )
    def patch(self, request, entity_id: int):
        """Rename and/or replace the aliases; knots naming a new name gain the entity (Trigger 3)."""
        mind, _ = mind_from_request(request, need=Access.WRITE)
        entity = queries.entity_get(mind_id=mind.pk, entity_id=entity_id)
        no_query_params(request)
        body = _body(EntityInputSerializer, request, partial=True)
        changed = entity_update(entity=entity, name=body.get("name"), aliases=body.get("aliases"))
        return Response(_entity_changed(changed))

    @extend_schema(tags=SYNAPSES_TAG, responses={200: EntityDeletedSerializer})
    def delete(self, request, entity_id: int):
        """Delete the entity (a person only): its knots lose it, their edges are recomputed, its names are ignored."""
        mind, _ = mind_from_request(request, need=Access.WRITE)
        entity = queries.entity_get(mind_id=mind.pk, entity_id=entity_id)
        if is_agent(request.user):
            raise PermissionDenied(DELETE_BY_A_PERSON)
        no_query_params(request)
        return Response(EntityDeletedSerializer(entity_delete(entity=entity)).data)


class DiscoveryView(APIView):
    @extend_schema(tags=SYNAPSES_TAG, responses={200: DiscoverySerializer})
    def get(self, request):
        """Whether entity discovery is on for the mind, and the names it ignores."""
        mind, _ = mind_from_request(request, need=Access.READ)
        no_query_params(request)
        return Response(DiscoverySerializer(discovery_get(mind)).data)

    @extend_schema(tags=SYNAPSES_TAG, request=DiscoveryInputSerializer, responses={200: DiscoverySerializer})
    def patch(self, request):
        """Switch entity discovery on or off, replace the ignore list (the mind's owner only)."""
        mind, _ = mind_from_request(request, need=Access.OWNER)
        no_query_params(request)
        body = _body(DiscoveryInputSerializer, request)
        setting = discovery_update(mind_id=mind.pk, enabled=body.get("enabled"), ignored=body.get("ignored"))
        return Response(DiscoverySerializer(setting).data)


class EntityMergeView(APIView):
    @extend_schema(tags=SYNAPSES_TAG, request=EntityMergeInputSerializer, responses={200: EntityChangedSerializer})
    def post(self, request, entity_id: int):
        """Fold this entity into `into` (a person only): its knots carry `into`, its names become aliases."""
        mind, _ = mind_from_request(request, need=Access.WRITE)
        entity = queries.entity_get(mind_id=mind.pk, entity_id=entity_id)
        if is_agent(request.user):
            raise PermissionDenied(MERGE_BY_A_PERSON)
        no_query_params(request)
        body = _body(EntityMergeInputSerializer, request)
        try:
            into = queries.entity_get(mind_id=mind.pk, entity_id=body["into"])
        except NotFound:
            raise ValidationFailed({"into": [f"No entity {body['into']} in this mind."]}) from None
        return Response(_entity_changed(entity_merge(entity=entity, into=into)))


# --- knots ----------------------------------------------------------------------------------------


def _knot_context(mind_id: str, knots, edges=()) -> dict:
    ids = {entity_id for knot in knots for entity_id in knot.entities}
    ids |= {entity_id for edge in edges for entity_id in edge.shared_entities}
    return {"entity_names": queries.entity_names(mind_id, ids)}


class KnotCollectionView(APIView):
    pagination_class = LimitOffsetPaging
    page_default_limit = KNOTS_DEFAULT_LIMIT

    @extend_schema(tags=SYNAPSES_TAG, parameters=[KnotsQuerySerializer], responses=KnotSerializer(many=True))
    def get(self, request):
        """The mind's knots, newest first; filters `active`, `observer`, `theme`, `entity` (name or alias)."""
        mind, _ = mind_from_request(request, need=Access.READ)
        params = query_params(KnotsQuerySerializer, request, besides=PAGE_PARAMS)
        knots = queries.knots_list(mind_id=mind.pk, **params)
        return _paged_answer(self, knots, KnotSerializer, partial(_knot_context, mind.pk))


class KnotDetailView(APIView):
    @extend_schema(tags=SYNAPSES_TAG, responses={200: KnotDetailSerializer})
    def get(self, request, knot_id: int):
        """One knot with its outgoing and incoming edges (the strongest 200 of each, with their counts)."""
        mind, _ = mind_from_request(request, need=Access.READ)
        knot = queries.knot_get(mind_id=mind.pk, knot_id=knot_id)
        no_query_params(request)
        edges = queries.knot_edges(knot)
        context = {**_knot_context(mind.pk, [knot], [*edges.outgoing, *edges.incoming]), "edges": edges}
        return Response(KnotDetailSerializer(knot, context=context).data)


# --- profile --------------------------------------------------------------------------------------


class MindProfileView(LenientNegotiationMixin, APIView):
    permission_classes = [IsHuman]

    @extend_schema(
        tags=["minds"],
        parameters=[ProfileQuerySerializer],
        responses={
            (200, "application/json"): ProfileSerializer,
            (200, "text/plain"): OpenApiResponse(OpenApiTypes.STR, description="The profile as text (`format=text`)."),
        },
    )
    def get(self, request, mind_id: str):
        """The mind's strongest durable memories of what the user said, by category (`format=text`: as text)."""
        mind, _ = mind_get_for(user=request.user, mind_id=mind_id, need=Access.READ)
        params = query_params(ProfileQuerySerializer, request)
        profile = queries.mind_profile(mind_id=mind.pk, mind_name=mind.name)
        if params["format"] == "text":
            return HttpResponse(queries.profile_text(profile), content_type=TEXT_CONTENT_TYPE)
        return Response(ProfileSerializer(profile).data)


# --- related and graph ----------------------------------------------------------------------------


class MemoryRelatedView(APIView):
    pagination_class = LimitOffsetPaging
    page_default_limit = RELATED_DEFAULT_LIMIT

    @extend_schema(responses={200: NetRelatedMemorySerializer(many=True), **error_responses(400, 401, 404)})
    def get(self, request, memory_id: str):
        """Memories whose knots are edge neighbours of this one's (`via: edge`, strongest first), then those
        sharing tags (`via: tags`, most shared first); `shared_tags` on every result."""
        memory = memory_get_for(
            user=request.user, memory_id=memory_id, need=Access.READ, named_mind_id=named_mind_id(request)
        )
        no_query_params(request, besides=PAGE_PARAMS)
        related = queries.memory_related(memory=memory)
        return _paged_answer(self, related, NetRelatedMemorySerializer, lambda _page: {"related": related})


class MemoryGraphView(APIView):
    @extend_schema(
        parameters=[GraphQuerySerializer], responses={200: GraphSerializer, **error_responses(400, 401, 404)}
    )
    def get(self, request):
        """The mind's net for drawing: active knots as nodes (most present first), the edges among them."""
        mind, _ = mind_from_request(request, need=Access.READ)
        params = query_params(GraphQuerySerializer, request)
        graph = queries.mind_net_graph(mind_id=mind.pk, **params)
        nodes = len(graph.nodes)
        possible = nodes * (nodes - 1) / 2
        body = {
            "nodes": graph.nodes,
            "edges": graph.edges,
            "stats": {
                "nodes": nodes,
                "edges": graph.edge_rows,
                "edges_returned": len(graph.edges),
                "pairs": graph.pairs,
                "density": round(graph.pairs / possible, 4) if possible else 0.0,
                "components": graph.components,
                "isolated": graph.isolated,
                "nodes_truncated": graph.truncated,
            },
        }
        context = _knot_context(mind.pk, (), graph.edges)
        return Response(GraphSerializer(body, context=context).data)
