from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from minds.models import Mind
from synapses.models import KnotPresence
from synapses.net.edges import mind_edges_rebuild


class Command(BaseCommand):
    help = (
        "Drop a mind's edges and form them again, its active knots replayed oldest first (after a "
        "re-embedding or new thresholds). One transaction: the old edges stay until the new ones are complete."
    )

    def add_arguments(self, parser):
        parser.add_argument("--mind", required=True, help="the mind's id")

    def handle(self, *args, mind: str, **options):
        if not Mind.objects.filter(pk=mind).exists():
            raise CommandError(f"No mind with id {mind!r}.")
        active = KnotPresence.objects.filter(mind_id=mind, is_active=True).count()
        with tqdm(total=active, unit="knot", disable=options["verbosity"] == 0) as bar:
            result = mind_edges_rebuild(mind_id=mind, progress=lambda _: bar.update())
        layers = ", ".join(f"{name} {count}" for name, count in result.layer_counts.items()) or "none"
        self.stdout.write(
            f"rebuilt the edges of {mind}: {result.knots} active knots replayed, "
            f"{result.edges_deleted} edge rows dropped, {result.pairs_written} pairs written "
            f"({2 * result.pairs_written} rows); pairs per layer: {layers}"
        )
