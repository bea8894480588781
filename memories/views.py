"""The human UI of memories: the dashboard, a mind's memories (filters, search, paging, create,
bulk verify), the review queue, one memory with its history, edit / verify / delete, export and
import, and compaction (docs/ui.md).

Every view authorizes as the API does — `minds.access.mind_get_for` for a mind,
`memories.selectors.memory.memory_get_for` for a memory: read access to look, write access to
change or verify — and then calls the service or selector the API calls. A refused write is
shown on its form; every action ends with a message.
"""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.core.paginator import Paginator
from django.db import transaction
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from memories.forms import (
    UI_PAGE_SIZE,
    UI_SEARCH_LIMIT,
    BulkVerifyForm,
    CompactForm,
    ImportFileForm,
    MemoryFilterForm,
    MemoryForm,
)
from memories.models import Memory
from memories.selectors.knots import memories_knot_ids_attach
from memories.selectors.memory import (
    MemoryListFilters,
    memories_unverified,
    memory_audit_of,
    memory_get_for,
    memory_list,
)
from memories.selectors.overview import memories_related, minds_overview, shared_tags_of
from memories.selectors.search import memories_search
from memories.selectors.system import worker_alive
from memories.services.compact import memories_compact
from memories.services.erasure import memory_delete, memory_versions_purge
from memories.services.memory import memory_store, memory_unverify, memory_update, memory_verify
from memories.services.transfer import mind_import
from memories.services.validation import import_items_clean
from memoryproject.core.contributions import contributed_memory_page_sections
from memoryproject.core.domain import Conflict, Unavailable, ValidationFailed
from memoryproject.core.ui_pages import form_add_domain_error, next_url, ui_view
from minds.access import Access, caller_of, mind_get_for
from minds.forms import MindForm
from minds.selectors import minds_list
from pipelinelog.spans import current_turn_id_or_blank

# Related memories the memory page lists (rows).
RELATED_SHOWN = 10
# Domain errors a memory write can end in, shown on the memory form.
MEMORY_WRITE_ERRORS = (Conflict, ValidationFailed, ValidationError, Unavailable)


def _can_write(level: Access) -> bool:
    """Write access or more may create, change, delete and verify (the API's matrix)."""
    return level >= Access.WRITE


# --- Dashboard --------------------------------------------------------------------------------


@ui_view
@require_GET
def dashboard(request: HttpRequest) -> HttpResponse:
    """My minds and the minds shared with me, with their counts and health."""
    minds = list(minds_list(user=request.user))
    # Every mind's numbers at once: the page costs the same few queries for one mind or fifty.
    numbers = minds_overview(mind_ids=[mind.pk for mind in minds])
    rows = [{"mind": mind, "numbers": numbers[mind.pk]} for mind in minds]
    context = {
        "own": [row for row in rows if row["mind"].access == Access.OWNER.label],
        "shared": [row for row in rows if row["mind"].access != Access.OWNER.label],
        "worker_alive": worker_alive(),
        "mind_form": MindForm(),
    }
    return render(request, "memories/dashboard.html", context)


# --- A mind's memories ------------------------------------------------------------------------


def _search_hits(*, mind_id: str, filters: MemoryListFilters, q: str) -> list[Memory]:
    """The search of the mind page: the hybrid search (category and tag applied in it), then the
    filters search does not take applied to its hits; each memory carries `score` and `matched`."""
    hits = memories_search(mind_id=mind_id, q=q, limit=UI_SEARCH_LIMIT, tag=filters.tag, category=filters.category)
    kept = []
    for hit in hits:
        memory = hit.memory
        if filters.verified is not None and memory.verified != filters.verified:
            continue
        if filters.source is not None and memory.source != filters.source:
            continue
        if filters.priority is not None and memory.priority != filters.priority:
            continue
        memory.score, memory.matched = hit.score, hit.matched
        kept.append(memory)
    return kept


@ui_view
@require_GET
def mind_memories(request: HttpRequest, mind_id: str) -> HttpResponse:
    """The mind's memories, filtered (category, tag, verified, source, priority, expired),
    searched or paged, with bulk verify for those who may verify."""
    mind, level = mind_get_for(user=request.user, mind_id=mind_id, need=Access.READ)
    form = MemoryFilterForm(request.GET or None)
    valid = form.is_bound and form.is_valid()
    filters = form.list_filters() if valid else MemoryListFilters()
    q = form.cleaned_data["q"].strip() if valid else ""
    page = None
    if q:
        memories = _search_hits(mind_id=mind.pk, filters=filters, q=q)
    else:
        page_number = (form.cleaned_data["page"] if valid else None) or 1
        page = Paginator(memory_list(mind_id=mind.pk, filters=filters), UI_PAGE_SIZE).get_page(page_number)
        memories = page.object_list
    query = request.GET.copy()
    query.pop("page", None)
    context = {
        "mind": mind,
        "form": form,
        "memories": memories,
        "page": page,
        "q": q,
        "query": query.urlencode(),
        "can_write": _can_write(level),
    }
    return render(request, "memories/mind.html", context, status=400 if form.is_bound and not valid else 200)


@ui_view
def memory_new(request: HttpRequest, mind_id: str) -> HttpResponse:
    """Store a memory as a human (source `user`, so verified); the same (category, key) again
    updates that memory, as `POST /memory` does."""
    mind, _ = mind_get_for(user=request.user, mind_id=mind_id, need=Access.WRITE)
    form = MemoryForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            result = memory_store(
                mind=mind, fields=form.memory_fields, caller=caller_of(request.user), turn_id=current_turn_id_or_blank()
            )
        except MEMORY_WRITE_ERRORS as error:
            form_add_domain_error(form, error)
        else:
            verb = "stored" if result.created else "updated (same category and key)"
            messages.success(request, f"Memory {result.memory.key} {verb}.")
            return redirect("ui-memory", memory_id=result.memory.pk)
    status = 400 if form.is_bound and form.errors else 200
    return render(request, "memories/memory_form.html", {"mind": mind, "form": form, "memory": None}, status=status)


@ui_view
@require_POST
def mind_verify_bulk(request: HttpRequest, mind_id: str) -> HttpResponse:
    """Verify every ticked memory of the mind, all or none (write access, as for one)."""
    mind, _ = mind_get_for(user=request.user, mind_id=mind_id, need=Access.WRITE)
    form = BulkVerifyForm(request.POST)
    back = next_url(request, reverse("ui-mind", kwargs={"mind_id": mind.pk}))
    if not form.is_valid():
        for error in form.non_field_errors():
            messages.error(request, error)
        return redirect(back)
    caller, turn_id = caller_of(request.user), current_turn_id_or_blank()
    with transaction.atomic():
        for memory_id in form.memory_ids:
            memory = memory_get_for(user=request.user, memory_id=memory_id, need=Access.WRITE, named_mind_id=mind.pk)
            memory_verify(memory=memory, caller=caller, turn_id=turn_id)
    count = len(form.memory_ids)
    messages.success(request, f"{count} {'memory' if count == 1 else 'memories'} verified.")
    return redirect(back)


@ui_view
@require_GET
def mind_unverified(request: HttpRequest, mind_id: str) -> HttpResponse:
    """The review queue: what no human confirmed yet, most recently changed first."""
    mind, level = mind_get_for(user=request.user, mind_id=mind_id, need=Access.READ)
    page = Paginator(memories_unverified(mind_id=mind.pk), UI_PAGE_SIZE).get_page(request.GET.get("page"))
    context = {"mind": mind, "page": page, "memories": page.object_list, "can_write": _can_write(level)}
    return render(request, "memories/unverified.html", context)


# --- One memory -------------------------------------------------------------------------------


@ui_view
@require_GET
def memory_detail(request: HttpRequest, memory_id: str) -> HttpResponse:
    """The memory, its audit history and the memories sharing its tags."""
    memory = memory_get_for(user=request.user, memory_id=memory_id, need=Access.READ)
    memories_knot_ids_attach([memory])  # its `promoted_at`
    mind, level = mind_get_for(user=request.user, mind_id=memory.mind_id, need=Access.READ)
    related = list(memories_related(memory=memory)[:RELATED_SHOWN])
    for other in related:
        other.shared_tags = shared_tags_of(memory, other)
    context = {
        "mind": mind,
        "memory": memory,
        "audit": memory_audit_of(memory=memory),
        "related": related,
        "sections": contributed_memory_page_sections(mind.pk, memory.pk),
        "can_write": _can_write(level),
    }
    return render(request, "memories/memory_detail.html", context)


@ui_view
def memory_edit(request: HttpRequest, memory_id: str) -> HttpResponse:
    """Change what the person changed (`PATCH /memory/{id}`). As in the API, a human who
    rewrites the content makes the memory theirs (source `user`, verified); retagging does not."""
    memory = memory_get_for(user=request.user, memory_id=memory_id, need=Access.WRITE)
    mind = memory.mind
    initial = MemoryForm.initial_of(memory)
    if request.method == "POST":
        form = MemoryForm(request.POST, initial=initial, partial=True)
        if form.is_valid():
            try:
                result = memory_update(
                    memory=memory,
                    fields=form.memory_fields,
                    caller=caller_of(request.user),
                    turn_id=current_turn_id_or_blank(),
                )
            except MEMORY_WRITE_ERRORS as error:
                form_add_domain_error(form, error)
            else:
                changed = ", ".join(result.changed_fields) or "nothing (every value was already so)"
                messages.success(request, f"Memory {result.memory.key} saved; changed: {changed}.")
                return redirect(next_url(request, reverse("ui-memory", kwargs={"memory_id": memory.pk})))
    else:
        form = MemoryForm(initial=initial, partial=True)
    status = 400 if form.is_bound and form.errors else 200
    context = {"mind": mind, "form": form, "memory": memory, "next": request.GET.get("next", "")}
    return render(request, "memories/memory_form.html", context, status=status)


def _verification(request: HttpRequest, memory_id: str, *, verified: bool) -> HttpResponse:
    memory = memory_get_for(user=request.user, memory_id=memory_id, need=Access.WRITE)
    service = memory_verify if verified else memory_unverify
    memory = service(memory=memory, caller=caller_of(request.user), turn_id=current_turn_id_or_blank())
    messages.success(request, f"Memory {memory.key} {'verified' if verified else 'marked unverified'}.")
    return redirect(next_url(request, reverse("ui-memory", kwargs={"memory_id": memory.pk})))


@ui_view
@require_POST
def memory_verify_view(request: HttpRequest, memory_id: str) -> HttpResponse:
    return _verification(request, memory_id, verified=True)


@ui_view
@require_POST
def memory_unverify_view(request: HttpRequest, memory_id: str) -> HttpResponse:
    return _verification(request, memory_id, verified=False)


@ui_view
@require_POST
def memory_delete_view(request: HttpRequest, memory_id: str) -> HttpResponse:
    """Delete for good (its knots and edges go with it); back to where the button was."""
    memory = memory_get_for(user=request.user, memory_id=memory_id, need=Access.WRITE)
    key, mind_id = memory.key, memory.mind_id
    memory_delete(memory=memory, caller=caller_of(request.user), turn_id=current_turn_id_or_blank())
    messages.success(request, f"Memory {key} deleted.")
    default = reverse("ui-mind", kwargs={"mind_id": mind_id})
    target = next_url(request, default)
    # Back to the memory's own page would be a 404 now.
    return redirect(default if target.startswith(reverse("ui-memory", kwargs={"memory_id": memory_id})) else target)


@ui_view
@require_POST
def memory_versions_purge_view(request: HttpRequest, memory_id: str) -> HttpResponse:
    """Erase the memory's earlier versions (after an edit took out something pasted by mistake)."""
    memory = memory_get_for(user=request.user, memory_id=memory_id, need=Access.WRITE)
    result = memory_versions_purge(memory=memory, caller=caller_of(request.user), turn_id=current_turn_id_or_blank())
    messages.success(
        request,
        f"Earlier versions of {memory.key} erased ({result.versions_purged} held by the net); "
        "the log's copies go within a minute.",
    )
    return redirect(reverse("ui-memory", kwargs={"memory_id": memory_id}))


# --- Export, import, compaction ---------------------------------------------------------------


def _import_problems(error: ValidationFailed) -> list[str]:
    """A refused import's fields (`memories.3.content`, `knots.0.memory_id`) as lines to read."""

    def lines(detail, prefix: str) -> list[str]:
        if isinstance(detail, dict):
            return [line for name, inner in detail.items() for line in lines(inner, f"{prefix}{name}.")]
        if isinstance(detail, list | tuple):
            return [line for inner in detail for line in lines(inner, prefix)]
        return [f"{prefix.rstrip('.')}: {detail}" if prefix else str(detail)]

    return lines(error.fields, "") or [error.message]


def _import_items(rows) -> list[dict]:
    """The file's memories checked by the import's field rules; a refusal names `memories.<index>`."""
    try:
        return import_items_clean([row.data for row in rows])
    except ValidationFailed as error:
        raise ValidationFailed({"memories": error.fields}) from None


@ui_view
def mind_transfer(request: HttpRequest, mind_id: str) -> HttpResponse:
    """Export links (read access) and the import of a file (write access), as `GET /mind/export`
    and `POST /mind/import`: all or none, idempotent, the file's knots and edges after its memories."""
    need = Access.WRITE if request.method == "POST" else Access.READ
    mind, level = mind_get_for(user=request.user, mind_id=mind_id, need=need)
    form = ImportFileForm(request.POST or None, request.FILES or None)
    if request.method == "POST" and form.is_valid():
        rows = form.read.rows
        try:
            result = mind_import(
                mind=mind,
                items=_import_items(rows),
                caller=caller_of(request.user),
                turn_id=current_turn_id_or_blank(),
                source_ids=[row.source_id for row in rows],
                net_sections=form.read.net_sections,
            )
        except ValidationFailed as error:
            form.add_error("file", ["Nothing was imported:", *_import_problems(error)])
        except (Conflict, Unavailable) as error:
            form.add_error("file", error.message)
        else:
            counts = ", ".join(f"{result.count(status)} {status}" for status in ("created", "updated", "skipped"))
            net = ", ".join(f"{name} {part.created} created" for name, part in result.net.items() if part.created)
            messages.success(
                request, f"Imported {form.cleaned_data['file'].name}: {counts}{'; ' + net if net else ''}."
            )
            return redirect("ui-mind-transfer", mind_id=mind.pk)
    status = 400 if form.is_bound and form.errors else 200
    context = {"mind": mind, "form": form, "can_write": _can_write(level)}
    return render(request, "memories/transfer.html", context, status=status)


@ui_view
def mind_compact(request: HttpRequest, mind_id: str) -> HttpResponse:
    """`POST /memory/compact` as a form (write access): preview the groups, or write their summaries
    and expire the originals. The answer lists each group with its members and summary."""
    mind, _ = mind_get_for(user=request.user, mind_id=mind_id, need=Access.WRITE)
    form = CompactForm(request.POST or None)
    result = None
    if request.method == "POST" and form.is_valid():
        dry_run = request.POST.get("action") != "compact"
        result = memories_compact(
            mind=mind, caller=caller_of(request.user), turn_id=current_turn_id_or_blank(), dry_run=dry_run,
            **form.cleaned_data,
        )  # fmt: skip
        groups = f"{result.clusters_processed} group{'s' if result.clusters_processed != 1 else ''}"
        if dry_run:
            messages.info(request, f"Preview: {groups} of {result.memories_compacted} memories would be compacted.")
        else:
            messages.success(request, f"Compacted {result.memories_compacted} memories into {groups}.")
    status = 400 if form.is_bound and form.errors else 200
    return render(request, "memories/compact.html", {"mind": mind, "form": form, "result": result}, status=status)
