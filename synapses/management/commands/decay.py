from django.core.management.base import BaseCommand, CommandError

from synapses.config import synapse_settings
from synapses.upkeep.decay import knots_decay


class Command(BaseCommand):
    help = "Decay every active knot's presence and prune the pipeline log (what the daily job does)."

    def add_arguments(self, parser):
        parser.add_argument("--rate", type=float, default=None, help=f"per day (default {synapse_settings.DECAY_RATE})")
        parser.add_argument(
            "--min-weight",
            type=float,
            default=None,
            help=f"deactivate below this (default {synapse_settings.MIN_WEIGHT})",
        )

    def handle(self, *args, rate: float | None, min_weight: float | None, **options):
        if (rate is not None and rate < 0) or (min_weight is not None and min_weight < 0):
            raise CommandError("--rate and --min-weight must be 0 or more.")
        result = knots_decay(rate=rate, min_weight=min_weight)
        self.stdout.write(
            f"decayed {result.knots_decayed} knots, deactivated {result.knots_deactivated}, "
            f"deleted {result.log_rows_deleted} log rows"
        )
