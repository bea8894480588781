from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from minds.models import Mind
from synapses.models import Knot
from synapses.promotion.rebuild import mind_magnets_rebuild
from synapses.promotion.split import mind_joins_split


class Command(BaseCommand):
    help = (
        "Per mind: first split the memories the old match test joined to a knot stating another fact "
        "(each is promoted again, oldest join first), then find the magnets (entities) of the mind's knots again, "
        "oldest first, as promotion finds them today (entity discovery, the mind's known names), record them on "
        "each knot, and form the mind's edges again. Every mind when --mind is not given."
    )

    def add_arguments(self, parser):
        parser.add_argument("--mind", help="the mind's id (default: every mind)")
        parser.add_argument(
            "--no-split", action="store_true", help="leave the joins of memories stating another fact as they are"
        )

    def handle(self, *args, mind: str | None = None, no_split: bool = False, **options):
        if mind is not None and not Mind.objects.filter(pk=mind).exists():
            raise CommandError(f"No mind with id {mind!r}.")
        minds = [mind] if mind is not None else list(Mind.objects.order_by("created_at").values_list("pk", flat=True))
        for mind_id in minds:
            if not no_split:
                split = mind_joins_split(mind_id=mind_id)
                self.stdout.write(
                    f"split the joins of {mind_id}: {split.joins} joins read, {split.split} stating another fact "
                    f"promoted again ({split.created} new knots, {split.rejoined} joined a knot of their fact, "
                    f"{split.deactivated} reactivations taken back), {split.left} left joined"
                    + (f"; stopped: {split.stopped}" if split.stopped else "")
                )
            total = Knot.objects.filter(mind_id=mind_id).count()
            with tqdm(total=total, unit="knot", desc=mind_id, disable=options["verbosity"] == 0) as bar:
                result = mind_magnets_rebuild(mind_id=mind_id, progress=bar.update)
            self.stdout.write(
                f"rebuilt the magnets of {mind_id}: {result.knots} knots read, {result.knots_changed} changed, "
                f"{result.entities_created} entities created; edges: {result.edges.pairs_written} pairs written"
            )
