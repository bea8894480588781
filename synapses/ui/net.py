"""The human UI of the long-term net: the net as a picture (and its data), the entities (rename,
aliases, merge), the recall preview with every resonance path explained, and the memory page's
section of knots (docs/ui.md).

Every view authorizes as the API's endpoint for the same action does (`minds.access.mind_get_for`:
read access to look, write access to change or merge entities; a person is always behind a page,
so the API's "merges need a person" holds by construction) and then calls the service or query
the API calls. A refused change is shown on its form; every action ends with a message.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from django.contrib import messages
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from memories.limits import RECALL_DEFAULT_LIMIT
from memories.models import Category, Memory
from memories.selectors.recall import recall_build
from memoryproject.core.contributions import PageSection
from memoryproject.core.domain import Conflict, NotFound, PermissionDenied, ValidationFailed
from memoryproject.core.ui_pages import form_add_domain_error, next_url, ui_view
from minds.access import Access, mind_get_for
from synapses.net.selectors import knots as queries
from synapses.net.selectors.pages import memory_net, net_picture
from synapses.resonance.arithmetic import sector_factor, shell_factor, step_phrase
from synapses.resonance.contribution import RECALL_SECTION_NAME
from synapses.resonance.service import mood_resolve
from synapses.ui.forms import (
    ENTITIES_PAGE_SIZE,
    DiscoveryForm,
    EntityForm,
    EntityMergeForm,
    EntitySearchForm,
    NetFilterForm,
    RecallForm,
)
from synapses.upkeep.discovery import discovery_get, discovery_update
from synapses.upkeep.entities import EntityChanged, entity_create, entity_delete, entity_merge, entity_update
from synapses.upkeep.entity_edges import EdgeRowsChanged

# Refusals of an entity change, shown on the form that was sent.
ENTITY_CHANGE_ERRORS = (Conflict, ValidationFailed)


def _net_filters(mind_id: str, form: NetFilterForm) -> dict[str, Any]:
    """The valid filters as net_picture takes them (call after is_valid)."""
    data = form.cleaned_data
    return {
        "mind_id": mind_id,
        "max_nodes": data.get("max_nodes") or NetFilterForm.base_fields["max_nodes"].initial,
        "category": data.get("category") or None,
        "theme": data.get("theme") or None,
        "entity_id": data.get("entity"),
    }


# --- the net as a picture -------------------------------------------------------------------------


@ui_view
@require_GET
def net_page(request: HttpRequest, mind_id: str) -> HttpResponse:
    """The page that draws the net (static/ui/net.js fetches the data below and draws it with
    cytoscape.js). Without JavaScript it says so and lists the strongest knots as links."""
    mind, _ = mind_get_for(user=request.user, mind_id=mind_id, need=Access.READ)
    form = NetFilterForm(request.GET or None)
    valid = not form.is_bound or form.is_valid()
    query = request.GET.urlencode() if form.is_bound and valid else ""
    context = {
        "mind": mind,
        "active": "net",
        "form": form,
        "data_url": reverse("ui-mind-net-data", kwargs={"mind_id": mind.pk}) + (f"?{query}" if query else ""),
        "entities": queries.entities_list(mind_id=mind.pk)[: ENTITIES_PAGE_SIZE * 10],
        "categories": Category.values,
    }
    return render(request, "synapses/net.html", context, status=200 if valid else 400)


def _node(node: dict, names: dict[int, str], memory_url: str) -> dict[str, Any]:
    return {
        **node,
        "key": node.pop("memory_key"),
        "verified": node.pop("memory_verified"),
        "memory_url": memory_url.format(memory_id=node["memory_id"]),
        "entities": [names[entity] for entity in node["entities"] if entity in names],
    }


def _edge(edge: dict, names: dict[int, str]) -> dict[str, Any]:
    return {**edge, "shared_entities": [names[entity] for entity in edge["shared_entities"] if entity in names]}


def _memory_url_pattern(memory_id: str) -> str:
    """The memory page's path with `{memory_id}` in place of the id (one reverse, not one per node)."""
    return reverse("ui-memory", kwargs={"memory_id": memory_id}).replace(memory_id, "{memory_id}")


def json_view(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """A JSON view of the UI: the session's person, and every refusal as JSON (401 without a
    session, 404 / 403 as the access matrix says), never the login page or an HTML error."""

    @functools.wraps(view)
    def wrapped(request: HttpRequest, *args, **kwargs) -> HttpResponse:
        if not request.user.is_authenticated:
            return JsonResponse({"detail": "Log in first: this data belongs to a logged-in person's page."}, status=401)
        if request.method not in ("GET", "HEAD"):
            return JsonResponse({"detail": f"{request.method} is not allowed here; only GET."}, status=405)
        try:
            return view(request, *args, **kwargs)
        except NotFound as error:
            return JsonResponse({"detail": error.message}, status=404)
        except PermissionDenied as error:
            return JsonResponse({"detail": error.message}, status=403)

    return wrapped


@json_view
def net_data(request: HttpRequest, mind_id: str) -> HttpResponse:
    """The picture's nodes and edges as JSON, for the session of the page that fetches it.
    Bad filters answer 400 with the field and what it allows, as the API answers."""
    mind, _ = mind_get_for(user=request.user, mind_id=mind_id, need=Access.READ)
    form = NetFilterForm(request.GET)
    if not form.is_valid():
        fields = {name: [str(message) for message in errors] for name, errors in form.errors.items()}
        return JsonResponse({"detail": "Invalid filters.", "fields": fields}, status=400)
    picture = net_picture(**_net_filters(mind.pk, form))
    names = picture.entity_names
    memory_url = _memory_url_pattern(picture.nodes[0]["memory_id"]) if picture.nodes else ""
    return JsonResponse(
        {
            "nodes": [_node(node, names, memory_url) for node in picture.nodes],
            "edges": [_edge(edge, names) for edge in picture.edges],
            "truncated": picture.truncated,
        }
    )


# --- entities -------------------------------------------------------------------------------------


def _entities_context(request: HttpRequest, mind, level: Access, **forms) -> dict[str, Any]:
    search = EntitySearchForm(request.GET or None, auto_id="id_search_%s")
    valid = search.is_bound and search.is_valid()
    name = search.cleaned_data["name"].strip() if valid else ""
    page_number = (search.cleaned_data.get("page") if valid else None) or 1
    entities = queries.entities_list(mind_id=mind.pk, name=name or None)
    page = Paginator(entities, ENTITIES_PAGE_SIZE).get_page(page_number)
    rows = list(page.object_list)
    counts = queries.entity_knot_counts(mind.pk, [entity.pk for entity in rows])
    for entity in rows:
        entity.knot_count = counts.get(entity.pk, 0)
        entity.form = EntityForm(
            initial={"name": entity.name, "aliases": ", ".join(entity.aliases)}, auto_id=f"id_entity{entity.pk}_%s"
        )
    query = request.GET.copy()
    query.pop("page", None)
    return {
        "mind": mind,
        "active": "entities",
        "search": search,
        "entities": rows,
        "page": page,
        "query": query.urlencode(),
        "can_write": level >= Access.WRITE,
        "all_entities": queries.entities_list(mind_id=mind.pk).only("id", "name") if level >= Access.WRITE else [],
        "create_form": forms.get("create_form") or EntityForm(auto_id="id_new_%s"),
        "merge_form": forms.get("merge_form") or EntityMergeForm(),
        "edit_errors": forms.get("edit_errors"),
        "is_owner": level >= Access.OWNER,
        "discovery": (setting := discovery_get(mind)),
        "discovery_form": forms.get("discovery_form")
        or DiscoveryForm(initial={"enabled": setting.enabled, "ignored": "\n".join(setting.ignored)}),
    }


def _edge_rows_phrase(rows: EdgeRowsChanged) -> str:
    """ "edges: 4 created, 2 updated, 0 deleted" — the rows Trigger 3 changed, counted in the table."""
    return f"edges: {rows.created} created, {rows.updated} updated, {rows.deleted} deleted"


def _changed_message(changed: EntityChanged, done: str) -> str:
    message = f"Entity {changed.entity.name} {done}."
    if changed.knots_gained:
        message += f" {changed.knots_gained} knot{'s' if changed.knots_gained != 1 else ''} changed; "
        message += _edge_rows_phrase(changed.edge_rows) + "."
    return message


@ui_view
def entities_page(request: HttpRequest, mind_id: str) -> HttpResponse:
    """The mind's entities with their aliases and knot counts; write access adds create, rename,
    aliases and merge (the forms below post to their own addresses)."""
    mind, level = mind_get_for(user=request.user, mind_id=mind_id, need=Access.READ)
    if request.method == "POST":  # create
        mind, level = mind_get_for(user=request.user, mind_id=mind_id, need=Access.WRITE)
        form = EntityForm(request.POST, auto_id="id_new_%s")
        if form.is_valid():
            try:
                changed = entity_create(
                    mind_id=mind.pk, name=form.cleaned_data["name"], aliases=form.cleaned_data["aliases"]
                )
            except ENTITY_CHANGE_ERRORS as error:
                form_add_domain_error(form, error)
            else:
                messages.success(request, _changed_message(changed, "created"))
                return redirect("ui-mind-entities", mind_id=mind.pk)
        context = _entities_context(request, mind, level, create_form=form)
        return render(request, "synapses/entities.html", context, status=400)
    return render(request, "synapses/entities.html", _entities_context(request, mind, level))


@ui_view
@require_POST
def entity_edit(request: HttpRequest, mind_id: str, entity_id: int) -> HttpResponse:
    """Rename and/or replace the aliases (`PATCH /synapses/entities/{id}`): knots naming a new
    name gain the entity and their edges are recomputed (Trigger 3)."""
    mind, level = mind_get_for(user=request.user, mind_id=mind_id, need=Access.WRITE)
    entity = queries.entity_get(mind_id=mind.pk, entity_id=entity_id)
    form = EntityForm(request.POST)
    if form.is_valid():
        try:
            changed = entity_update(entity=entity, name=form.cleaned_data["name"], aliases=form.cleaned_data["aliases"])
        except ENTITY_CHANGE_ERRORS as error:
            form_add_domain_error(form, error)
        else:
            messages.success(request, _changed_message(changed, "saved"))
            return redirect(next_url(request, reverse("ui-mind-entities", kwargs={"mind_id": mind.pk})))
    errors = [
        f"{name}: {' '.join(texts)}" if name != "__all__" else " ".join(texts) for name, texts in form.errors.items()
    ]
    context = _entities_context(request, mind, level, edit_errors={"entity": entity, "errors": errors})
    return render(request, "synapses/entities.html", context, status=400)


@ui_view
@require_POST
def entity_merge_view(request: HttpRequest, mind_id: str) -> HttpResponse:
    """Fold one entity into another (`POST /synapses/entities/{id}/merge`): its knots carry the
    kept one, its names become aliases, the edges carrying either are recomputed. Cannot be undone."""
    mind, level = mind_get_for(user=request.user, mind_id=mind_id, need=Access.WRITE)
    form = EntityMergeForm(request.POST)
    if form.is_valid():
        try:
            entity = _entity_or_field_error(mind.pk, form.cleaned_data["entity"], "entity")
            into = _entity_or_field_error(mind.pk, form.cleaned_data["into"], "into")
            gone = entity.name
            changed = entity_merge(entity=entity, into=into)
        except ENTITY_CHANGE_ERRORS as error:
            form_add_domain_error(form, error)
        else:
            message = f"Entity {gone} merged into {changed.entity.name}: {changed.knots_gained} knot"
            message += f"{'s' if changed.knots_gained != 1 else ''} now carry {changed.entity.name}"
            message += f"; {_edge_rows_phrase(changed.edge_rows)}."
            messages.success(request, message)
            return redirect("ui-mind-entities", mind_id=mind.pk)
    context = _entities_context(request, mind, level, merge_form=form)
    return render(request, "synapses/entities.html", context, status=400)


@ui_view
@require_POST
def entity_delete_view(request: HttpRequest, mind_id: str, entity_id: int) -> HttpResponse:
    """Delete the entity (`DELETE /synapses/entities/{id}`): its knots lose it, their edges are
    recomputed, and its names go on the ignore list so discovery does not bring it back."""
    mind, _ = mind_get_for(user=request.user, mind_id=mind_id, need=Access.WRITE)
    entity = queries.entity_get(mind_id=mind.pk, entity_id=entity_id)
    try:
        deleted = entity_delete(entity=entity)
    except ValidationFailed as error:
        messages.error(request, " ".join(str(text) for texts in error.fields.values() for text in texts))
    else:
        count = deleted.knots_changed
        message = f"Entity {deleted.name} deleted: {count} knot{'s' if count != 1 else ''} no longer carry it"
        message += f"; {_edge_rows_phrase(deleted.edge_rows)}."
        messages.success(request, message + " Discovery will not propose its names again (Ignored names).")
    return redirect("ui-mind-entities", mind_id=mind.pk)


@ui_view
@require_POST
def discovery_view(request: HttpRequest, mind_id: str) -> HttpResponse:
    """The owner switches entity discovery on or off and edits the ignore list (`PATCH /synapses/discovery`)."""
    mind, level = mind_get_for(user=request.user, mind_id=mind_id, need=Access.OWNER)
    form = DiscoveryForm(request.POST)
    if form.is_valid():
        setting = discovery_update(mind_id=mind.pk, enabled=form.cleaned_data["enabled"],
                                   ignored=form.cleaned_data["ignored"])  # fmt: skip
        state = "on" if setting.enabled else "off"
        messages.success(request, f"Entity discovery is {state}; {len(setting.ignored)} names ignored.")
        return redirect("ui-mind-entities", mind_id=mind.pk)
    context = _entities_context(request, mind, level, discovery_form=form)
    return render(request, "synapses/entities.html", context, status=400)


def _entity_or_field_error(mind_id: str, entity_id: int, field: str):
    try:
        return queries.entity_get(mind_id=mind_id, entity_id=entity_id)
    except NotFound:
        raise ValidationFailed({field: [f"No entity {entity_id} in this mind."]}) from None


# --- recall with its resonance explained ----------------------------------------------------------


def _explained(items: list[dict[str, Any]], mood: str, contents: dict[int, str]) -> list[dict[str, Any]]:
    """Each resonating knot with its rank weight taken apart (presence × shell factor × mood
    factor) and each hop of its path in words, from the knot it came from."""
    explained = []
    for item in items:
        steps = [
            {
                **step,
                "from_content": contents.get(step["from_knot_id"], ""),
                "phrase": step_phrase(step["layers"], step["shared_entities"], step["shared_themes"]),
            }
            for step in item["path"]
        ]
        explained.append(
            {
                **item,
                "anchor": item["shell"] == 0,
                "shell_factor": shell_factor(item["shell"]),
                "mood_factor": sector_factor(mood or None, item["emotion"] or None),
                "steps": steps,
            }
        )
    return explained


@ui_view
@require_GET
def recall_page(request: HttpRequest, mind_id: str) -> HttpResponse:
    """What the agent would see for `q` (`GET /memory/recall?q=`): the recall text with its
    resonance section, then every resonating knot with how it was reached and ranked."""
    mind, _ = mind_get_for(user=request.user, mind_id=mind_id, need=Access.READ)
    form = RecallForm(request.GET or None)
    context: dict[str, Any] = {"mind": mind, "active": "recall", "form": form, "text": "", "items": []}
    if not form.is_bound:
        return render(request, "synapses/recall.html", context)
    if not form.is_valid():
        return render(request, "synapses/recall.html", context, status=400)
    data = form.cleaned_data
    options = {name: data[name] for name in ("mode", "intent", "mood")}
    try:
        mood = mood_resolve(data["mood"])
        recall = recall_build(mind=mind, limit=RECALL_DEFAULT_LIMIT, q=data["q"], options=options)
    except ValidationFailed as error:  # an unknown mood or mode
        form_add_domain_error(form, error)
        return render(request, "synapses/recall.html", context, status=400)
    resonance = next((section.data for section in recall.sections if section.name == RECALL_SECTION_NAME), None)
    items = list(resonance["items"]) if resonance else []
    from_ids = {step["from_knot_id"] for item in items for step in item["path"]}
    contents = {**{item["knot_id"]: item["content"] for item in items}}
    missing = from_ids - set(contents)
    if missing:
        contents.update(queries.knots_of(mind.pk).filter(pk__in=missing).values_list("pk", "content"))
    context.update(
        {
            "q": data["q"],
            "text": recall.text,
            "resonance": resonance,
            "items": _explained(items, mood, contents),
        }
    )
    return render(request, "synapses/recall.html", context)


# --- the memory page's section ----------------------------------------------------------------------


def memory_page_section(mind_id: str, memory_id: str) -> PageSection:
    """The knots of the memory (current and superseded) with weights, edges and layers, and the
    memories the net relates to it, for templates/memories/memory_detail.html. Registered in
    SynapsesConfig.ready()."""
    memory = Memory.objects.defer("embedding", "search_vector").get(mind_id=mind_id, pk=memory_id)
    net = memory_net(memory=memory)
    return PageSection(template="synapses/_memory_net.html", context={"net": net, "memory": memory})
