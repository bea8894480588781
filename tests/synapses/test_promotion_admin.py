"""The admin shows the net read-only; a parked attempt can be deleted, which un-parks its memory."""

import pytest

from synapses.models import PromotionAttempt
from synapses.promotion.service import memories_promote
from tests.factories import memory_make

pytestmark = pytest.mark.django_db


def test_the_pages_of_knots_entities_and_attempts_load_and_offer_no_add(staff, mind):
    memory_make(
        mind=mind.mind, key="a", content="Mira planted apple trees.", entities=["Mira"], embedded=True, salience=0.9
    )
    memory_make(mind=mind.mind, key="blank", content=" ", embedded=True, salience=0.9)
    memories_promote()
    for page in ("knot", "entity", "promotionattempt"):
        response = staff.get(f"/admin/synapses/{page}/")
        assert response.status_code == 200
        assert staff.get(f"/admin/synapses/{page}/add/").status_code == 403
    assert "no content" in staff.get("/admin/synapses/promotionattempt/").content.decode()


def test_deleting_a_parked_attempt_sends_the_memory_back_to_the_sweep(staff, mind):
    memory = memory_make(mind=mind.mind, key="blank", content=" ", embedded=True, salience=0.9)
    for _ in range(3):
        memories_promote()
    attempt = PromotionAttempt.objects.get(memory=memory)
    assert attempt.parked_at is not None
    assert memories_promote().selected == 0
    response = staff.post(f"/admin/synapses/promotionattempt/{attempt.pk}/delete/", {"post": "yes"})
    assert response.status_code == 302
    assert memories_promote().selected == 1
