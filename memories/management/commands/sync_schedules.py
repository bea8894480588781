from django.core.management.base import BaseCommand, CommandError
from django.db import ProgrammingError, transaction
from django_q.models import Schedule

from memoryproject.schedules import SCHEDULE_NAME_PREFIX, SCHEDULES


class Command(BaseCommand):
    help = "Create or update the django-q2 schedules declared in memoryproject/schedules.py; remove our stale ones."

    def handle(self, *args, **options):
        try:
            self._sync()
        except ProgrammingError as error:
            if Schedule._meta.db_table not in str(error):
                raise
            # A checkout that was never migrated: one line saying what to do, not a traceback.
            raise CommandError(
                "The worker's tables do not exist yet: run `make run` (or `.venv/bin/python manage.py migrate`) first."
            ) from None

    @transaction.atomic
    def _sync(self) -> None:
        wanted = {spec.full_name for spec in SCHEDULES}
        for spec in SCHEDULES:
            _, created = Schedule.objects.update_or_create(
                name=spec.full_name,
                defaults={"func": spec.func, "schedule_type": spec.schedule_type, "minutes": spec.minutes},
            )
            self.stdout.write(f"{'created' if created else 'kept'} {spec.full_name} → {spec.func}")
        stale = Schedule.objects.filter(name__startswith=SCHEDULE_NAME_PREFIX).exclude(name__in=wanted)
        for name in stale.values_list("name", flat=True):
            self.stdout.write(f"removed {name}")
        stale.delete()
