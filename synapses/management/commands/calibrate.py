from pathlib import Path

import numpy as np
from django.core.management.base import BaseCommand, CommandError

from memories.embedders import get_embedder
from minds.models import Mind
from synapses.calibration import MAX_CALIBRATION_KNOTS, calibration_table, pair_cosines, sample_indices
from synapses.config import threshold_current
from synapses.selectors import knot_vectors_sample


class Command(BaseCommand):
    help = (
        "Measure the knot-to-knot cosine distribution of a mind (or of a file of texts, one per line, "
        "embedded with the configured embedder) and print suggested thresholds (docs/synapse-model.md §10)."
    )

    def add_arguments(self, parser):
        source = parser.add_mutually_exclusive_group(required=True)
        source.add_argument("--mind", help="the mind's id: its knots' vectors")
        source.add_argument("--texts", type=Path, help="a UTF-8 file, one text per line, embedded here")
        parser.add_argument(
            "--max-knots",
            type=int,
            default=MAX_CALIBRATION_KNOTS,
            help=f"all pairs of at most this many knots, of a uniform sample of more (default {MAX_CALIBRATION_KNOTS})",
        )
        parser.add_argument("--seed", type=int, default=0, help="of the sample (default 0)")

    def handle(self, *args, mind: str | None, texts: Path | None, max_knots: int, seed: int, **options):
        if max_knots < 2:
            raise CommandError("--max-knots must be 2 or more.")
        rng = np.random.default_rng(seed)
        if mind is not None:
            if not Mind.objects.filter(pk=mind).exists():
                raise CommandError(f"No mind with id {mind!r}.")
            sample = knot_vectors_sample(mind_id=mind, max_knots=max_knots, rng=rng)
            if len(sample.vectors) < 2:
                raise CommandError(f"Mind {mind} has {sample.knots} knots: a calibration needs at least two.")
            vectors, total, model = sample.vectors, sample.knots, sample.embedding_model
        else:
            try:
                lines = [line.strip() for line in texts.read_text(encoding="utf-8").splitlines()]
            except (OSError, UnicodeDecodeError) as error:
                raise CommandError(f"Cannot read {texts}: {error}") from None
            lines = [line for line in lines if line]
            if len(lines) < 2:
                raise CommandError(f"{texts} has {len(lines)} non-empty lines: a calibration needs at least two.")
            embedder = get_embedder()
            chosen = [lines[i] for i in sample_indices(len(lines), max_knots=max_knots, rng=rng)]
            vectors, total, model = embedder.embed(chosen), len(lines), embedder.name
        self.stdout.write(f"embedding model: {model}")
        current = {name: threshold_current(name) for name in _SHOWN}
        self.stdout.write(
            calibration_table(cosines=pair_cosines(vectors), current=current, knots=total, sampled=len(vectors))
        )


_SHOWN = ("EMBEDDING_THRESHOLD", "MATCH_THRESHOLD", "USAGE_THRESHOLD", "ANCHOR_FLOOR", "GRAVITY_THRESHOLD")
