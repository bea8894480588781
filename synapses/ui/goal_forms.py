"""The forms of the human UI's goal page: a goal to create or change.

The limits are the API's (`synapses.api.serializers`): a statement of at most
GOAL_STATEMENT_MAX_CHARS characters, a motivation from 0 to 1, so a page accepts exactly what
`POST /synapses/goals` and `PATCH /synapses/goals/{id}` accept.
"""

from __future__ import annotations

from django import forms

from synapses.api.serializers import GOAL_STATEMENT_MAX_CHARS

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
