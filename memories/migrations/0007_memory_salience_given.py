from django.db import migrations, models

# The starting salience of each priority when the client gives none (memories.services.memory).
_DEFAULT_SALIENCE = {"low": 0.5, "normal": 0.7, "high": 0.85, "critical": 1.0}


def _mark_given(apps, schema_editor):
    """Existing rows kept no record of who chose their salience: one that differs from its
    priority's default must have been given; one equal to it is taken as the default."""
    Memory = apps.get_model("memories", "Memory")
    for priority, salience in _DEFAULT_SALIENCE.items():
        Memory.objects.filter(priority=priority).exclude(salience=salience).update(salience_given=True)


class Migration(migrations.Migration):
    dependencies = [("memories", "0006_minds_move_out")]

    operations = [
        migrations.AddField(
            model_name="memory",
            name="salience_given",
            field=models.BooleanField(db_default=False, default=False),
        ),
        migrations.RunPython(_mark_given, migrations.RunPython.noop),
    ]
