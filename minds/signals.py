"""What minds announces to the apps above it.

`mind_resolved(mind=…)`: the current request or job now acts on `mind` — a Mind Key
authenticated (its own mind), or a human's access to a mind was checked and they can see it.
The pipeline log listens and stamps the mind on the current span (`pipelinelog.receivers`);
minds itself knows nothing of the log, which sits above it (docs/architecture.md).

`mind_deleting(mind_id=…)`: the mind is about to be deleted, inside the deleting transaction.
The memories app listens (`memories.receivers`) and reports the deletion to its lifecycle
module; minds knows nothing of memories either.
"""

from django.dispatch import Signal

mind_resolved = Signal()
mind_deleting = Signal()
