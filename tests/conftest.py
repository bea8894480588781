"""The shared cast: an owner with a mind and its key, a reader, a writer, an admin, an outsider.

Every test runs against the real PostgreSQL (the embedded server, or DATABASE_URL).
"""

from __future__ import annotations

import os
import shutil
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from django.test import Client
from rest_framework.test import APIClient
from rest_framework_simplejwt.tokens import RefreshToken

from minds.models import Mind, MindShare
from minds.services import mind_create, user_register
from tests.servers import RUN_ID_VARIABLE, template_path, var_dir_made, var_dir_removed

PASSWORD = "correct horse battery staple 42"


def jwt_for(user) -> str:
    return str(RefreshToken.for_user(user).access_token)


def client_with_token(token: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {token}")
    return client


@pytest.fixture
def staff(django_user_model) -> Client:
    """A superuser logged in to the Django admin (by session)."""
    user = django_user_model.objects.create_superuser(username="root@example.com", email="root@example.com",
                                                      password="x")  # fmt: skip
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def api():
    """An anonymous client."""
    return APIClient()


@dataclass
class Person:
    user: object
    client: APIClient  # authenticated with a JWT


def _person(email: str) -> Person:
    user = user_register(email=email, password=PASSWORD)
    return Person(user=user, client=client_with_token(jwt_for(user)))


@pytest.fixture
def owner(db) -> Person:
    return _person("owner@example.com")


@pytest.fixture
def outsider(db) -> Person:
    return _person("outsider@example.com")


@dataclass
class MindWithKey:
    mind: Mind
    key: str  # plaintext Mind Key
    agent: APIClient  # authenticated with the key


@pytest.fixture
def mind(owner) -> MindWithKey:
    created, issued = mind_create(owner=owner.user, name="Michael's Mind")
    return MindWithKey(mind=created, key=issued.plaintext, agent=client_with_token(issued.plaintext))


@pytest.fixture
def other_mind(outsider) -> MindWithKey:
    created, issued = mind_create(owner=outsider.user, name="Someone else's mind")
    return MindWithKey(mind=created, key=issued.plaintext, agent=client_with_token(issued.plaintext))


def _shared(mind: MindWithKey, email: str, acl: str) -> Person:
    person = _person(email)
    MindShare.objects.create(mind=mind.mind, user=person.user, acl=acl)
    return person


@pytest.fixture
def reader(mind) -> Person:
    return _shared(mind, "reader@example.com", "read")


@pytest.fixture
def writer(mind) -> Person:
    return _shared(mind, "writer@example.com", "write")


@pytest.fixture
def mind_admin(mind) -> Person:
    return _shared(mind, "admin@example.com", "admin")


# --- Data directories for the tests that start servers (tests/servers.py) -------------------


def pytest_configure(config) -> None:
    if not hasattr(config, "workerinput"):  # the controller (or a run without workers)
        os.environ.setdefault(RUN_ID_VARIABLE, uuid.uuid4().hex[:8])


def pytest_collection_modifyitems(config, items) -> None:
    # The tests that start processes or servers (marked slow) first, in their own order: xdist's
    # scheduler hands out work in collection order, so the long ones start while the other worker
    # runs the quick ones, instead of one of them holding up the end of the run alone. Every
    # worker collects the same order, as xdist requires.
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)


def pytest_unconfigure(config) -> None:
    if not hasattr(config, "workerinput"):
        template = template_path()
        shutil.rmtree(template, ignore_errors=True)
        for suffix in (".lock", ".ready"):
            template.with_name(template.name + suffix).unlink(missing_ok=True)


@pytest.fixture
def var_dir() -> Iterator[Path]:
    """A fresh var/ under the checkout: the first start initialises and migrates its database."""
    path = var_dir_made("serve", migrated=False)
    yield path
    var_dir_removed(path)


@pytest.fixture
def migrated_var_dir() -> Iterator[Path]:
    """A var/ under the checkout whose database is migrated and whose server is stopped."""
    path = var_dir_made("serve-migrated", migrated=True)
    yield path
    var_dir_removed(path)
