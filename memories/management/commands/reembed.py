"""`manage.py reembed --mind <id> | --all [--batch 256] [--force]`: new vectors after an embedder switch."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError, CommandParser

from memories.embedders import EmbedderUnavailable, embedder_backend, get_embedder
from memories.embedders.installation import installation_backend_record
from memories.embedders.reembed import REEMBED_BATCH_SIZE, memories_reembed
from minds.models import Mind

# Characters of the textual progress bar.
PROGRESS_BAR_WIDTH = 30


def progress_bar(done: int, total: int, width: int = PROGRESS_BAR_WIDTH) -> str:
    """`[##########--------------------]  33% 100/300`."""
    share = done / total if total else 1.0
    filled = round(share * width)
    return f"[{'#' * filled}{'-' * (width - filled)}] {share:4.0%} {done}/{total}"


class Command(BaseCommand):
    help = (
        "Re-embed memories with the configured embedder (SYNAPSE_EMBEDDER). Only memories whose "
        "embedding_model differs from the current embedder are touched, unless --force."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        target = parser.add_mutually_exclusive_group(required=True)
        target.add_argument("--mind", help="id of the mind to re-embed (m_…)")
        target.add_argument("--all", action="store_true", help="every mind, one after the other")
        parser.add_argument(
            "--batch", type=int, default=REEMBED_BATCH_SIZE, help=f"memories per batch (default {REEMBED_BATCH_SIZE})"
        )
        parser.add_argument("--force", action="store_true", help="re-embed even memories of the current embedder")

    def handle(self, *args, **options) -> None:
        batch = options["batch"]
        if batch < 1:
            raise CommandError("--batch must be at least 1.")
        if options["all"]:
            mind_ids = list(Mind.objects.order_by("created_at", "pk").values_list("pk", flat=True))
        else:
            if not Mind.objects.filter(pk=options["mind"]).exists():
                raise CommandError(f"No mind with id {options['mind']!r}. `--all` re-embeds every mind.")
            mind_ids = [options["mind"]]
        try:
            name = get_embedder().name
            settled = [
                self._reembed(mind_id, batch=batch, force=options["force"], embedder_name=name) for mind_id in mind_ids
            ]
        except EmbedderUnavailable as error:
            raise CommandError(error.message) from None
        if options["all"] and all(settled):
            # Every mind moved over: a start without SYNAPSE_EMBEDDER now runs this embedder.
            backend = embedder_backend()
            installation_backend_record(backend)
            self.stdout.write(f"This installation now runs {backend} ({name}) when SYNAPSE_EMBEDDER is unset.")

    def _reembed(self, mind_id: str, *, batch: int, force: bool, embedder_name: str) -> bool:
        interactive = self.stdout.isatty()

        def report(done: int, total: int) -> None:
            # On a terminal the bar redraws in place; in a log file each batch is a line.
            self.stdout.write(f"{mind_id} {progress_bar(done, total)}", ending="\r" if interactive else "\n")

        result = memories_reembed(mind_id=mind_id, batch_size=batch, force=force, on_progress=report)
        if interactive and result.total:
            self.stdout.write("")
        summary = f"{mind_id}: re-embedded {result.reembedded} of {result.total} memories with {embedder_name}"
        if result.skipped_changed:
            summary += f"; {result.skipped_changed} changed meanwhile and already carry a fresh vector"
        self.stdout.write(self.style.SUCCESS(summary + "."))
        if not result.settled:
            self.stdout.write(
                f"{mind_id} still holds vectors of another embedder (written meanwhile by a server running it); "
                "run this command again once every server runs the new embedder."
            )
        return result.settled
