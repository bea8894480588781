from django.core.management.base import BaseCommand
from django.db import transaction
from django_q.models import Schedule

from memoryproject.schedules import SCHEDULE_NAME_PREFIX, SCHEDULES


class Command(BaseCommand):
    help = "Create or update the django-q2 schedules declared in memoryproject/schedules.py; remove our stale ones."

    @transaction.atomic
    def handle(self, *args, **options):
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
