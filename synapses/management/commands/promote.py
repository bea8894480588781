from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone
from tqdm import tqdm

from minds.models import Mind
from synapses.config import synapse_settings
from synapses.promotion.select import pending_count
from synapses.promotion.service import PromotionSummary, memories_promote
from synapses.upkeep.pending_uses import pending_uses_apply


class Command(BaseCommand):
    help = (
        "Promote pending, mature memories into the long-term net, batch after batch until none is left "
        "(what the minute sweep does, without its batch limit)."
    )

    def add_arguments(self, parser):
        parser.add_argument("--mind", default=None, help="only this mind's memories (its id)")
        parser.add_argument(
            "--now",
            action="store_true",
            help="every pending, non-expired memory, mature or not (imports, benchmarks)",
        )
        batch = synapse_settings.PROMOTION_BATCH_SIZE
        parser.add_argument("--batch-size", type=int, default=None, help=f"memories per batch (default {batch})")

    def handle(self, *args, mind: str | None, now: bool, batch_size: int | None, **options):
        if mind is not None and not Mind.objects.filter(pk=mind).exists():
            raise CommandError(f"No mind with id {mind!r}.")
        if batch_size is not None and batch_size < 1:
            raise CommandError("--batch-size must be 1 or more.")
        limit = batch_size or synapse_settings.PROMOTION_BATCH_SIZE
        total = PromotionSummary()
        with tqdm(total=pending_count(now=timezone.now(), mind_id=mind, now_all=now), unit="memory") as bar:
            while True:
                summary = memories_promote(mind_id=mind, now_all=now, limit=limit, progress=lambda _: bar.update())
                _accumulate(total, summary)
                # Done when nothing is left, or a batch moved nothing (what is left is held by
                # another worker right now), or the embedder is down.
                progress = summary.selected - summary.skipped
                if summary.stopped or summary.selected < limit or progress == 0:
                    break
        # Uses an answer made of memories before they were promoted go to their knots now.
        applied = pending_uses_apply()
        self.stdout.write(_summary_line(total))
        if applied.uses:
            self.stdout.write(f"{applied.uses} earlier uses applied to {applied.knots} knots.")
        if total.stopped:
            raise CommandError(f"Stopped: {total.stopped} The rest stays pending.")


def _accumulate(total: PromotionSummary, summary: PromotionSummary) -> None:
    for name, value in summary.as_dict().items():
        if isinstance(value, int):
            setattr(total, name, getattr(total, name) + value)
    total.stopped = summary.stopped


def _summary_line(summary: PromotionSummary) -> str:
    return (
        f"promoted {summary.created + summary.duplicates + summary.reactivated} of {summary.selected} memories: "
        f"{summary.created} new knots, {summary.duplicates} duplicates, {summary.reactivated} reactivated, "
        f"{summary.skipped} skipped, {summary.failed} failed, {summary.parked} parked; "
        f"{summary.pairs_written} edge pairs written"
    )
