from django.core.management.base import BaseCommand, CommandError

from pipelinelog.constants import setting
from pipelinelog.services import prune_log


class Command(BaseCommand):
    help = "Delete pipeline-log rows older than LOG_RETENTION_DAYS (what the daily job does)."

    def add_arguments(self, parser):
        default = setting("LOG_RETENTION_DAYS")
        parser.add_argument("--days", type=int, default=None, help=f"Keep this many days instead (default {default}).")

    def handle(self, *args, days: int | None = None, **options):
        if days is not None and days < 0:
            raise CommandError("--days must be 0 or more.")
        deleted = prune_log(retention_days=days)
        self.stdout.write(f"deleted {deleted} log rows")
