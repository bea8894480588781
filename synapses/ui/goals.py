"""The human UI of a mind's goals and profile (docs/ui.md).

Goals: the list for anyone with read access; create, change and delete for write access, as
`/synapses/goals` allows them, through the same services (`synapses.resonance.goals`). Profile:
what `GET /minds/{id}/profile` answers, from the same query, as a page.
"""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_POST

from memoryproject.core.domain import Unavailable
from memoryproject.core.ui_pages import form_add_domain_error, ui_view
from minds.access import Access, mind_get_for
from minds.models import Mind
from synapses.net.selectors import knots as queries
from synapses.resonance.goals import goal_create, goal_delete, goal_update
from synapses.ui.forms import GoalForm

GOALS_PAGE = "ui-mind-goals"


def _goals_page(request: HttpRequest, mind: Mind, level: Access, *, new_form=None, failed=None) -> HttpResponse:
    """The goals, each with its own form; a form sent with a mistake is shown again with it."""
    goals = list(queries.goals_list(mind_id=mind.pk))
    for goal in goals:
        sent = failed if failed is not None and failed[0] == goal.pk else None
        goal.form = (
            sent[1]
            if sent
            else GoalForm(
                initial={"statement": goal.statement, "motivation": goal.motivation, "active": goal.active},
                prefix=f"goal-{goal.pk}",
            )
        )
    context = {
        "mind": mind,
        "goals": goals,
        "new_form": new_form or GoalForm(prefix="new"),
        "can_write": level >= Access.WRITE,
    }
    return render(request, "synapses/goals.html", context, status=400 if new_form or failed else 200)


@ui_view
@require_GET
def mind_goals(request: HttpRequest, mind_id: str) -> HttpResponse:
    """The mind's goals, most motivated first."""
    mind, level = mind_get_for(user=request.user, mind_id=mind_id, need=Access.READ)
    return _goals_page(request, mind, level)


@ui_view
@require_POST
def goal_new(request: HttpRequest, mind_id: str) -> HttpResponse:
    mind, level = mind_get_for(user=request.user, mind_id=mind_id, need=Access.WRITE)
    form = GoalForm(request.POST, prefix="new")
    if form.is_valid():
        try:
            goal = goal_create(mind_id=mind.pk, **form.cleaned_data)
        except Unavailable as error:  # the embedder its statement needs is down
            form_add_domain_error(form, error)
        else:
            messages.success(request, f"Goal “{goal.statement[:60]}” added.")
            return redirect(GOALS_PAGE, mind_id=mind.pk)
    return _goals_page(request, mind, level, new_form=form)


@ui_view
@require_POST
def goal_change(request: HttpRequest, mind_id: str, goal_id: int) -> HttpResponse:
    mind, level = mind_get_for(user=request.user, mind_id=mind_id, need=Access.WRITE)
    goal = queries.goal_get(mind_id=mind.pk, goal_id=goal_id)
    form = GoalForm(request.POST, prefix=f"goal-{goal.pk}")
    if form.is_valid():
        try:
            goal = goal_update(goal=goal, **form.cleaned_data)
        except Unavailable as error:
            form_add_domain_error(form, error)
        else:
            state = "active" if goal.active else "inactive"
            messages.success(request, f"Goal “{goal.statement[:60]}” saved: motivation {goal.motivation:g}, {state}.")
            return redirect(GOALS_PAGE, mind_id=mind.pk)
    return _goals_page(request, mind, level, failed=(goal.pk, form))


@ui_view
@require_POST
def goal_remove(request: HttpRequest, mind_id: str, goal_id: int) -> HttpResponse:
    mind, _ = mind_get_for(user=request.user, mind_id=mind_id, need=Access.WRITE)
    goal = queries.goal_get(mind_id=mind.pk, goal_id=goal_id)
    statement = goal.statement
    goal_delete(goal=goal)
    messages.success(request, f"Goal “{statement[:60]}” deleted.")
    return redirect(GOALS_PAGE, mind_id=mind.pk)


@ui_view
@require_GET
def mind_profile_page(request: HttpRequest, mind_id: str) -> HttpResponse:
    """The mind's strongest durable memories of what the user said, by category (read access)."""
    mind, _ = mind_get_for(user=request.user, mind_id=mind_id, need=Access.READ)
    profile = queries.mind_profile(mind_id=mind.pk, mind_name=mind.name)
    return render(request, "synapses/profile.html", {"mind": mind, "profile": profile})
