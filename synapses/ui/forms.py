"""The forms of the net's pages in the human UI (docs/ui.md): the picture's filters, an entity's
names, a merge, the recall preview's question, and a goal to create or change.

They parse what a browser sends (aliases as comma-separated text, ids as numbers) within the
limits the API's serializers apply; the services then check what only the net knows (a name
another entity holds, too many aliases) and their refusals are shown under the field they name.
"""

from __future__ import annotations

from django import forms

from memories.limits import MAX_TAG_CHARS, RECALL_MAX_LABEL_CHARS, RECALL_MAX_QUERY_CHARS
from memories.models import Category
from synapses.api.serializers import GOAL_STATEMENT_MAX_CHARS, GRAPH_MAX_NODES
from synapses.constants import DISCOVERY_IGNORED_MAX
from synapses.upkeep.entities import ENTITY_MAX_ALIASES, ENTITY_NAME_MAX_CHARS

# The largest id a row of the net can have (PostgreSQL's bigint); a larger number is no entity.
ROW_ID_MAX = 2**63 - 1
# Entities one page of the entities list shows (rows).
ENTITIES_PAGE_SIZE = 100
# Longest aliases box (characters): every alias at its longest, with a comma and a space between.
ALIASES_MAX_CHARS = ENTITY_MAX_ALIASES * (ENTITY_NAME_MAX_CHARS + 2)


def comma_list(text: str) -> list[str]:
    """ "Anna, Annie ,, A." → ["Anna", "Annie", "A."]."""
    return [item.strip() for item in text.split(",") if item.strip()]


class NetFilterForm(forms.Form):
    """The net page's query string (and its data's): which knots to draw."""

    category = forms.ChoiceField(label="Category", choices=[("", "any"), *Category.choices], required=False)
    theme = forms.CharField(label="Theme (tag)", required=False, max_length=MAX_TAG_CHARS)
    entity = forms.IntegerField(label="Entity", required=False, min_value=1, max_value=ROW_ID_MAX)
    max_nodes = forms.IntegerField(
        label="At most", required=False, min_value=1, max_value=GRAPH_MAX_NODES, initial=GRAPH_MAX_NODES
    )

    def clean_theme(self) -> str:
        return self.cleaned_data["theme"].strip().lower()


class EntityForm(forms.Form):
    """A new entity, or an entity's name and aliases (the aliases replace the list, as PATCH does)."""

    name = forms.CharField(max_length=ENTITY_NAME_MAX_CHARS)
    aliases = forms.CharField(
        required=False,
        max_length=ALIASES_MAX_CHARS,
        help_text="Other names, comma-separated, e.g. “Annie, A. Schmidt”.",
    )

    def clean_aliases(self) -> list[str]:
        aliases = comma_list(self.cleaned_data["aliases"])
        too_long = [alias for alias in aliases if len(alias) > ENTITY_NAME_MAX_CHARS]
        if too_long:
            first = too_long[0]
            raise forms.ValidationError(
                f"An alias has at most {ENTITY_NAME_MAX_CHARS} characters; “{first[:40]}…” has {len(first)}."
            )
        if len(aliases) > ENTITY_MAX_ALIASES:
            raise forms.ValidationError(f"At most {ENTITY_MAX_ALIASES} aliases; {len(aliases)} given.")
        return aliases


class EntityMergeForm(forms.Form):
    """Fold one entity into another: the first is deleted, its names become the second's aliases."""

    entity = forms.IntegerField(label="Merge", min_value=1, max_value=ROW_ID_MAX)
    into = forms.IntegerField(label="into", min_value=1, max_value=ROW_ID_MAX)

    def clean(self) -> dict:
        cleaned = super().clean()
        if cleaned.get("entity") and cleaned.get("entity") == cleaned.get("into"):
            self.add_error("into", "An entity cannot be merged into itself; name another entity.")
        return cleaned


class EntitySearchForm(forms.Form):
    name = forms.CharField(label="Name or alias contains", required=False, max_length=ENTITY_NAME_MAX_CHARS)
    page = forms.IntegerField(required=False, min_value=1, widget=forms.HiddenInput)


class RecallForm(forms.Form):
    """What `GET /memory/recall?q=` takes to shape the resonance: the query, a mode, an intent, a mood."""

    q = forms.CharField(label="Query", required=False, max_length=RECALL_MAX_QUERY_CHARS)
    mode = forms.CharField(required=False, max_length=RECALL_MAX_LABEL_CHARS, help_text="Empty: the default mode.")
    intent = forms.CharField(required=False, max_length=RECALL_MAX_LABEL_CHARS)
    mood = forms.CharField(required=False, max_length=RECALL_MAX_LABEL_CHARS, help_text="An emotion, e.g. “joy”.")

    def clean_q(self) -> str:
        return self.cleaned_data["q"].strip()


# A goal: the limits are the API's (a statement of at most GOAL_STATEMENT_MAX_CHARS characters, a
# motivation from 0 to 1), so the goal page accepts exactly what POST /synapses/goals and
# PATCH /synapses/goals/{id} accept.
# What a new goal's motivation box starts at (0..1): halfway, for the person to move.
GOAL_MOTIVATION_INITIAL = 0.5


class GoalForm(forms.Form):
    """A whole goal: the page sends every field (an unticked box is an inactive goal)."""

    statement = forms.CharField(
        max_length=GOAL_STATEMENT_MAX_CHARS,
        widget=forms.Textarea(attrs={"rows": 2}),
        help_text="What the mind strives for, e.g. “finish the house move by March”.",
    )
    motivation = forms.FloatField(
        min_value=0.0,
        max_value=1.0,
        initial=GOAL_MOTIVATION_INITIAL,
        widget=forms.NumberInput(attrs={"step": "0.05", "min": "0", "max": "1"}),
        help_text="How strongly the mind pursues it, from 0 to 1; recall notices more of what strong goals touch.",
    )
    active = forms.BooleanField(required=False, initial=True, help_text="Only active goals bend recall.")

    def clean_statement(self) -> str:
        return self.cleaned_data["statement"].strip()


class DiscoveryForm(forms.Form):
    """The owner's entity discovery: on or off, and the names it ignores (one a line)."""

    enabled = forms.BooleanField(required=False, label="Find names in the content")
    ignored = forms.CharField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 4}),
        max_length=DISCOVERY_IGNORED_MAX * (ENTITY_NAME_MAX_CHARS + 1),
        label="Ignored names",
        help_text="One a line; discovery does not propose them. Deleting an entity adds its names.",
    )

    def clean_ignored(self) -> list[str]:
        names = [line.strip() for line in self.cleaned_data["ignored"].splitlines() if line.strip()]
        too_long = [name for name in names if len(name) > ENTITY_NAME_MAX_CHARS]
        if too_long:
            raise forms.ValidationError(
                f"A name has at most {ENTITY_NAME_MAX_CHARS} characters; “{too_long[0][:40]}…”."
            )
        if len(names) > DISCOVERY_IGNORED_MAX:
            raise forms.ValidationError(f"At most {DISCOVERY_IGNORED_MAX} names; {len(names)} given.")
        return names
