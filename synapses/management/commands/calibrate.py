from pathlib import Path

import numpy as np
from django.core.management.base import BaseCommand, CommandError

from memories.embedders import get_embedder
from minds.models import Mind
from synapses.config import synapse_settings
from synapses.net.calibration import MAX_CALIBRATION_KNOTS, calibration_table, light_edits, pair_cosines, sample_indices
from synapses.net.selectors.candidates import knot_vectors_sample

# The thresholds the report shows (a build without one of them shows "-" as its current value).
SHOWN = ("EMBEDDING_THRESHOLD", "MATCH_THRESHOLD", "USAGE_THRESHOLD", "ANCHOR_FLOOR", "GRAVITY_THRESHOLD")


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
        parser.add_argument(
            "--no-duplicates",
            action="store_true",
            help="do not embed light edits of the texts (the match threshold then comes from the pairs' p99.99)",
        )

    def handle(self, *args, mind, texts, max_knots: int, seed: int, no_duplicates: bool, **options):
        if max_knots < 2:
            raise CommandError("--max-knots must be 2 or more.")
        rng = np.random.default_rng(seed)
        embedder = None
        if mind is not None:
            if not Mind.objects.filter(pk=mind).exists():
                raise CommandError(f"No mind with id {mind!r}.")
            sample = knot_vectors_sample(mind_id=mind, max_knots=max_knots, rng=rng)
            if len(sample.vectors) < 2:
                raise CommandError(f"Mind {mind} has {sample.knots} knots: a calibration needs at least two.")
            vectors, contents, total, model = sample.vectors, sample.contents, sample.knots, sample.embedding_model
            if not no_duplicates:
                embedder = get_embedder()
                if embedder.name != model:
                    self.stdout.write(f"(the configured embedder is {embedder.name}: no light-edit duplicates)")
                    embedder = None
        else:
            lines = _lines(texts)
            embedder = get_embedder()
            contents = tuple(lines[i] for i in sample_indices(len(lines), max_knots=max_knots, rng=rng))
            vectors, total, model = embedder.embed(list(contents)), len(lines), embedder.name
            embedder = None if no_duplicates else embedder
        duplicates = None if embedder is None else _duplicate_cosines(embedder, vectors, contents)
        self.stdout.write(f"embedding model: {model}")
        self.stdout.write(
            calibration_table(
                cosines=pair_cosines(vectors),
                current={name: getattr(synapse_settings, name) for name in SHOWN},
                knots=total,
                sampled=len(vectors),
                duplicates=duplicates,
            )
        )


def _lines(path: Path) -> list[str]:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise CommandError(f"Cannot read {path}: {error}") from None
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if len(lines) < 2:
        raise CommandError(f"{path} has {len(lines)} non-empty lines: a calibration needs at least two.")
    return lines


def _duplicate_cosines(embedder, vectors: np.ndarray, contents: tuple[str, ...]) -> np.ndarray:
    """The cosine of each text's vector to the vector of each of its light edits."""
    owners, edits = [], []
    for index, content in enumerate(contents):
        for edit in light_edits(content):
            owners.append(index)
            edits.append(edit)
    if not edits:
        return np.empty(0)
    edited = np.asarray(embedder.embed(edits), dtype=np.float64)
    originals = np.asarray(vectors, dtype=np.float64)[owners]
    norms = np.linalg.norm(originals, axis=1) * np.linalg.norm(edited, axis=1)
    return (originals * edited).sum(axis=1) / np.where(norms == 0, 1.0, norms)
