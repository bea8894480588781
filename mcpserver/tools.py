"""The tools the MCP server offers: for each, when an agent should call it, its JSON schema, and
what it runs.

Each tool is its REST endpoint without HTTP: the endpoint's own serializer validates the
arguments (so a bad one is refused with the API's message naming the field) and the same service
or selector does the work; the answer is the endpoint's JSON body. Tools that stand for a GET
(recall, search, resonance, list_unverified) take what the endpoint's query string takes, by the
same rules: a whole number may come as a JSON integer, as it would be written in the URL, and a
parameter the endpoint does not take is refused, naming it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from django.http import QueryDict
from rest_framework import serializers
from rest_framework.renderers import JSONRenderer

from mcpserver.schemas import serializer_schema
from memories.api.overview_serializers import RecallQuerySerializer
from memories.api.search_serializers import SearchQuerySerializer, SearchResponseSerializer
from memories.api.serializers import MemoryDeletedSerializer, MemoryInputSerializer, MemorySerializer
from memories.selectors.memory import MEMORY_LIST_LIMIT, MEMORY_NOT_FOUND, memories_unverified, memory_get_for
from memories.selectors.recall import recall_build
from memories.selectors.search import memories_search
from memories.services.erasure import memory_delete
from memories.services.memory import memory_store
from memoryproject.core.api.fields import QueryIntegerField, StrictCharField
from memoryproject.core.api.params import PAGE_PARAMS, no_query_params, query_params
from memoryproject.core.api.strict import RejectUnknownFieldsMixin
from memoryproject.core.converters import MemoryIdConverter
from memoryproject.core.domain import NotFound
from memoryproject.core.page_limits import MAX_PAGE_LIMIT
from memoryproject.core.pagination import LimitOffsetPaging
from minds.access import Access, caller_of
from minds.principals import AgentPrincipal
from pipelinelog.spans import current_turn_id_or_blank
from synapses.api.resonance_serializers import ResonanceQuerySerializer, resonance_body
from synapses.api.serializers import UsageReportSerializer, UsedInputSerializer
from synapses.resonance.service import mind_modes, resonance_of
from synapses.upkeep.reinforcement import knots_used_reinforce


@dataclass(frozen=True)
class ToolAnswer:
    """What a tool returns: text for the model, and the JSON body when there is one."""

    text: str
    body: dict[str, Any] | None = None


@dataclass(frozen=True)
class Tool:
    name: str
    title: str
    description: str  # tells an agent WHEN to call it
    input_schema: dict[str, Any]
    run: Callable[[AgentPrincipal, Mapping[str, Any]], ToolAnswer]
    read_only: bool
    destructive: bool = False


class ToolQuery:
    """A tool's arguments where the API's helpers read a request's query string
    (`memoryproject.core.api.params.query_params`, the paginator). A JSON integer given for a whole-
    number parameter of `serializer_class` becomes its digits, as the URL would carry it; every
    other value stays as it is, so a field that expects a string names a number given instead."""

    def __init__(self, arguments: Mapping[str, Any], serializer_class: type[serializers.Serializer]) -> None:
        numbers = {name for name, field in serializer_class().fields.items() if isinstance(field, QueryIntegerField)}
        self.query_params = QueryDict(mutable=True)
        for name, value in arguments.items():
            is_integer = isinstance(value, int) and not isinstance(value, bool)
            self.query_params[name] = str(value) if is_integer and name in numbers else value


def _json(body: dict[str, Any]) -> ToolAnswer:
    """The body as the API renders it (same separators, UTF-8 as is), and as structured content."""
    return ToolAnswer(text=JSONRenderer().render(body).decode(), body=body)


# --- recall ----------------------------------------------------------------------------------


class RecallArgumentsSerializer(RecallQuerySerializer):
    """GET /memory/recall's parameters; the tool always answers the text (the prompt block)."""

    format = None


def recall(agent: AgentPrincipal, arguments: Mapping[str, Any]) -> ToolAnswer:
    params = query_params(RecallArgumentsSerializer, ToolQuery(arguments, RecallArgumentsSerializer))
    result = recall_build(
        mind=agent.mind,
        limit=params["limit"],
        max_chars=params.get("max_chars"),
        q=params.get("q", ""),
        options={name: params.get(name, "") for name in ("mode", "intent", "mood")},
    )
    return ToolAnswer(text=result.text)


# --- store -----------------------------------------------------------------------------------


def store(agent: AgentPrincipal, arguments: Mapping[str, Any]) -> ToolAnswer:
    serializer = MemoryInputSerializer(data=dict(arguments))
    serializer.is_valid(raise_exception=True)
    result = memory_store(
        mind=agent.mind, fields=serializer.validated_data, caller=caller_of(agent), turn_id=current_turn_id_or_blank()
    )
    return _json({**MemorySerializer(result.memory).data, "created": result.created})


# --- search ----------------------------------------------------------------------------------


def search(agent: AgentPrincipal, arguments: Mapping[str, Any]) -> ToolAnswer:
    query = query_params(SearchQuerySerializer, ToolQuery(arguments, SearchQuerySerializer))
    hits = memories_search(
        mind_id=agent.mind.pk,
        q=query["q"],
        limit=query["limit"],
        tag=query.get("tag"),
        category=query.get("category"),
        mind_embedder=agent.mind.embedding_model,
    )
    body = {"query": query["q"], "limit": query["limit"], "count": len(hits), "results": hits}
    return _json(SearchResponseSerializer(body).data)


# --- resonance -------------------------------------------------------------------------------


def resonance(agent: AgentPrincipal, arguments: Mapping[str, Any]) -> ToolAnswer:
    modes, _ = mind_modes(agent.mind)
    query = query_params(
        ResonanceQuerySerializer, ToolQuery(arguments, ResonanceQuerySerializer), context={"modes": modes}
    )
    return _json(resonance_body(resonance_of(mind=agent.mind, **query)))


# --- used ------------------------------------------------------------------------------------


def used(agent: AgentPrincipal, arguments: Mapping[str, Any]) -> ToolAnswer:
    serializer = UsedInputSerializer(data=dict(arguments))
    serializer.is_valid(raise_exception=True)
    body = serializer.validated_data
    report = knots_used_reinforce(
        mind_id=agent.mind.pk, answer=body["answer"], knot_ids=body["knot_ids"], memory_ids=body["memory_ids"]
    )
    return _json(UsageReportSerializer(report).data)


# --- forget ----------------------------------------------------------------------------------


class ForgetArgumentsSerializer(RejectUnknownFieldsMixin, serializers.Serializer):
    """DELETE /memory/{id}: the id the path would carry."""

    memory_id = StrictCharField(help_text="The memory's id (`mem_…`), as store, search or recall showed it.")


def forget(agent: AgentPrincipal, arguments: Mapping[str, Any]) -> ToolAnswer:
    serializer = ForgetArgumentsSerializer(data=dict(arguments))
    serializer.is_valid(raise_exception=True)
    memory_id = serializer.validated_data["memory_id"]
    # What the URL converter would not route (a NUL, 5,000 characters) is simply not found.
    if not re.fullmatch(MemoryIdConverter.regex, memory_id):
        raise NotFound(MEMORY_NOT_FOUND)
    memory = memory_get_for(user=agent, memory_id=memory_id, need=Access.WRITE)
    deleted_id = memory_delete(memory=memory, caller=caller_of(agent), turn_id=current_turn_id_or_blank())
    return _json(MemoryDeletedSerializer({"deleted": True, "id": deleted_id}).data)


# --- list_unverified -------------------------------------------------------------------------


class PageArgumentsSerializer(serializers.Serializer):
    """The paging of GET /memory/unverified (described here; LimitOffsetPaging checks it)."""

    limit = QueryIntegerField(required=False, min_value=1, max_value=MAX_PAGE_LIMIT, default=MEMORY_LIST_LIMIT)
    offset = QueryIntegerField(required=False, min_value=0, default=0)


class _UnverifiedPage:
    """The paginator asks its view for the page size only."""

    page_default_limit = MEMORY_LIST_LIMIT


def list_unverified(agent: AgentPrincipal, arguments: Mapping[str, Any]) -> ToolAnswer:
    request = ToolQuery(arguments, PageArgumentsSerializer)
    no_query_params(request, besides=PAGE_PARAMS)
    paginator = LimitOffsetPaging()
    page = paginator.paginate_queryset(memories_unverified(mind_id=agent.mind.pk), request, view=_UnverifiedPage())
    return _json(paginator.get_paginated_response(MemorySerializer(page, many=True).data).data)


# --- the list ----------------------------------------------------------------------------------

TOOLS: dict[str, Tool] = {
    tool.name: tool
    for tool in (
        Tool(
            name="recall",
            title="Recall the mind",
            description=(
                "Call at the START of every turn, before you answer: returns the mind's current memories as a text "
                "block for your context (identity, preferences, projects, by priority). Pass the user's message as "
                "`q` to add what resonates with it from long-term memory."
            ),
            input_schema=serializer_schema(RecallArgumentsSerializer()),
            run=recall,
            read_only=True,
        ),
        Tool(
            name="store",
            title="Store a memory",
            description=(
                "Call when you learn something that should outlast this conversation: a fact about the user, a "
                "preference, a decision, a mistake not to repeat. Give a stable `key` to update the same memory "
                "later (same category and key = update, not a duplicate). Not for small talk. Optional: `entities`, "
                "the names it is about (the server also finds names in the content), and `event_time`, when it "
                "happened if not now; both join related memories in the long-term net."
            ),
            input_schema=serializer_schema(MemoryInputSerializer()),
            run=store,
            read_only=False,
        ),
        Tool(
            name="search",
            title="Search memories",
            description=(
                "Call when you need a specific fact that recall did not show: full-text and meaning search over all "
                "stored memories, best matches first. `q` takes plain words, quotes for phrases, OR, -word."
            ),
            input_schema=serializer_schema(SearchQuerySerializer()),
            run=search,
            read_only=True,
        ),
        Tool(
            name="resonance",
            title="Associations",
            description=(
                "Call when you want associations rather than exact matches: the long-term memories that resonate "
                "with what is being talked about, found through shared people, themes, time and feeling, and what "
                "was stored moments ago (`in_net` false, `knot_id` null). Note the `knot_id` of each item (the "
                "`memory_id` of one not in the net yet): after answering, report the ones you used with `used`."
            ),
            input_schema=serializer_schema(ResonanceQuerySerializer()),
            run=resonance,
            read_only=True,
        ),
        Tool(
            name="used",
            title="Report what the answer used",
            description=(
                "Call AFTER you answered, with your answer and the `knot_id`s of the items resonance offered this "
                "turn (and in `memory_ids` the `memory_id`s of items with `in_net` false): the knots your answer "
                "really drew on are reinforced, so they come up more readily next time."
            ),
            input_schema=serializer_schema(UsedInputSerializer()),
            run=used,
            read_only=False,
        ),
        Tool(
            name="forget",
            title="Delete a memory",
            description=(
                "Call when the user tells you a stored memory is wrong or asks you to forget it: deletes the memory "
                "with this id for good, with its knots and their links. To correct a memory instead, store it "
                "again with the same category and key."
            ),
            input_schema=serializer_schema(ForgetArgumentsSerializer()),
            run=forget,
            read_only=False,
            destructive=True,
        ),
        Tool(
            name="list_unverified",
            title="Memories awaiting review",
            description=(
                "Call when the user wants to review what you stored: the memories no human has verified yet, most "
                "recently changed first, so a person can confirm or correct them."
            ),
            input_schema=serializer_schema(PageArgumentsSerializer()),
            run=list_unverified,
            read_only=True,
        ),
    )
}
