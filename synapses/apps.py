from functools import partial

from django.apps import AppConfig


class SynapsesConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "synapses"

    def ready(self) -> None:
        from memoryproject.core.contributions import AnswerContributor, answer_contributor_register
        from synapses.api.resonance_serializers import resonance_body
        from synapses.net.erasure import memory_net_erase
        from synapses.net.portability.export import net_export_sections
        from synapses.net.portability.fields import NET_SECTIONS
        from synapses.net.portability.importing import net_import_sections
        from synapses.net.selectors.counts import (
            memory_knot_ids,
            mind_net_health,
            mind_net_stats,
            minds_net_health,
            net_service_counts,
        )
        from synapses.promotion.selectors import mind_promotion_health
        from synapses.resonance.contribution import recall_resonance_section
        from synapses.ui.net import memory_page_section

        # What the memory answers show of the net (docs/architecture.md, "Answers the net contributes to").
        answer_contributor_register(
            AnswerContributor(
                name="synapses",
                service_counts=net_service_counts,
                mind_stats=mind_net_stats,
                mind_health=mind_net_health,
                minds_health=minds_net_health,
                memory_knot_ids=memory_knot_ids,
                export_sections=net_export_sections,
                section_names=NET_SECTIONS,
                import_sections=net_import_sections,
                recall_section=partial(recall_resonance_section, body=resonance_body),
                memory_page_section=memory_page_section,
                memory_erase=memory_net_erase,
            )
        )
        # /memory/health's promotion part (parked versions, the last promotion), merged after the counts.
        answer_contributor_register(AnswerContributor(name="synapses.promotion", mind_health=mind_promotion_health))
