"""Realistic, varied memories and search queries from a seeded random generator.

Nothing here touches Django: the same seed gives the same corpus on every machine.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

# Distinct inputs (queries, store bodies) whose SQL a latency run captures; requests rotate over them.
CAPTURE_INPUTS = 40
PEOPLE = ["Anna", "Michael", "Lena", "Jonas", "Priya", "Tom", "Sofia", "Karim", "Mei", "Lukas", "Emma", "David"]
SURNAMES = [
    "Becker",
    "Novak",
    "Okafor",
    "Lindqvist",
    "Tanaka",
    "Moreau",
    "Schulz",
    "Costa",
    "Haddad",
    "Kowalski",
    "Brennan",
    "Weber",
    "Ivanova",
    "Singh",
    "Yilmaz",
    "Fischer",
    "Almeida",
    "Park",
    "Dubois",
    "Meyer",
]
MONTHS = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
]
PLACES = ["Berlin", "Hamburg", "Munich", "Vienna", "Lisbon", "Zurich", "Cologne", "Amsterdam", "Leipzig", "Oslo"]
PROJECTS = ["Synapse", "Atlas", "Nightjar", "Kestrel", "Orbit", "Lumen", "Harbor", "Quill"]
TOOLS = ["PostgreSQL", "Docker", "Kubernetes", "Redis", "Django", "React", "Terraform", "nginx", "pgvector", "Grafana"]
FOODS = ["sushi", "pasta", "ramen", "falafel", "curry", "dark chocolate", "espresso", "green tea", "pizza"]
HOBBIES = ["climbing", "chess", "running", "gardening", "photography", "cycling", "piano", "baking"]
WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"]

# (category, template) pairs; {p} person, {c} city, {j} project, {t} tool, {f} food, {h} hobby,
# {d} weekday, {n} a number, {v} a version; details add {s} surname, {date}, {ticket}, {hours}, {amount},
# {count}, {hour}, {minute}.
TEMPLATES = [
    ("identity", "The user's name is {p}; they live in {c}."),
    ("identity", "{p} works as a backend engineer at a small company in {c}."),
    ("identity", "Der Nutzer heißt {p} und wohnt in {c}."),
    ("preference", "Prefers concise technical answers without small talk."),
    ("preference", "{p} likes {f} and dislikes long meetings on {d}."),
    ("preference", "Bevorzugt Antworten auf Deutsch, wenn es um Verträge geht."),
    ("preference", "Wants code examples in Python with type hints, formatted by ruff."),
    ("fact", "{p} is the user's sister; her birthday is on the {n}th of May."),
    ("fact", "The office moved to {c} in 20{n}."),
    ("fact", "Die Rechnung Nummer {n} für {j} ist noch offen."),
    ("fact", "{p} has a cat called Miso and goes {h} every {d}."),
    ("fact", "Insolvenz der Firma {p} GmbH wurde im {c}er Amtsgericht angemeldet."),
    ("project", "{j} uses {t} for storage; the deploy runs every {d} at {n}:00."),
    ("project", "Release {v} of {j} was deployed to production after the {t} upgrade."),
    ("project", "{j}: migrate the search from Elasticsearch to {t} full-text search."),
    ("project", "Projekt {j}: die Migration auf {t} ist für {d} geplant."),
    ("skill", "The user is fluent in {t} and learning Rust on weekends."),
    ("skill", "Knows how to tune {t}: shared_buffers, work_mem and connection pooling."),
    ("mistake", "Deploying {j} on a {d} without a backup broke the {t} cluster; always snapshot first."),
    ("mistake", "Forgot to pin the {t} version in {j}; the build failed after release {v}."),
    ("context", "Currently preparing a talk about {t} for the meetup in {c}."),
    ("context", "Heute Abend Treffen mit {p} in {c} zum {h}."),
    ("note", "Remember to ask {p} about the {j} budget before {d}."),
    ("note", "Idea: a {h} app that suggests {f} recipes based on the weather in {c}."),
    ("note", "Meeting notes {d}: {p} will review the {t} dashboards; follow up on release {v}."),
]
# Sentences appended to memories, so contents vary in length like real ones and carry the
# details real memories have (who said it, when, how much, which ticket): every memory gets one
# dated detail, some get more. Without them 100,000 memories held only ~54 % distinct texts, and
# an HNSW graph over tens of thousands of exact duplicates cannot reach recall 0.98 at any
# ef_search (docs/benchmarks.md → The corpus).
DETAILS = [
    "{p} {s} mentioned it on {date}.",
    "Noted on {date} during the {j} sync with {p} {s}.",
    "Ticket {j}-{ticket} tracks it; the estimate is {hours} hours.",
    "The budget is {amount} EUR, approved by {p} {s} on {date}.",
    "Am {date} mit {p} {s} besprochen; Aufwand etwa {hours} Stunden.",
    "{p} {s} asked to revisit it before the {c} offsite on {date}.",
    "It came up {count} times since {date}.",
    "Follow-up call with {p} {s} scheduled for {date} at {hour}:{minute}.",
]
ELABORATIONS = [
    "The user mentioned it while talking about the roadmap for the next {count} weeks.",
    "Double-check with {p} {s} before acting on it.",
    "Siehe auch die Notizen vom {date} zum Projekt {j}.",
    "It matters for planning sprint {count} and the on-call rotation in {c}.",
    "Source: a long conversation about priorities, deadlines and the capacity of the {j} team.",
    "Related: release {v} of {j} and the {t} migration.",
]
TAGS = ["work", "family", "health", "travel", "food", "ops", "release", "finance", "learning", "ideas", "urgent"]
PRIORITIES = ["low", "normal", "normal", "normal", "high", "critical"]

# Queries an agent might send: single words, names, German words, phrases, websearch operators.
QUERY_TEMPLATES = [
    "{t}",
    "{p}",
    "{c}",
    "{j} release",
    "deploy {j}",
    "insolvenz",
    "rechnung",
    "birthday {p}",
    "what does {p} like to eat",
    '"release {v}"',
    "{t} OR {t2}",
    "{h} -{d}",
    "migration {t}",
    "where does the user live",
    "meeting notes {d}",
]


@dataclass(frozen=True)
class MemorySpec:
    category: str
    key: str
    content: str
    tags: list[str]
    priority: str


def _fill(template: str, rng: random.Random) -> str:
    tools = rng.sample(TOOLS, 2)
    return template.format(
        s=rng.choice(SURNAMES),
        date=f"{rng.randint(1, 28)} {rng.choice(MONTHS)} {rng.randint(2019, 2026)}",
        ticket=rng.randint(100, 9999),
        hours=rng.randint(1, 120),
        amount=f"{rng.randint(2, 900) * 50:,}",
        count=rng.randint(2, 40),
        hour=rng.randint(7, 19),
        minute=f"{rng.choice(range(0, 60, 5)):02d}",
        p=rng.choice(PEOPLE),
        c=rng.choice(PLACES),
        j=rng.choice(PROJECTS),
        t=tools[0],
        t2=tools[1],
        f=rng.choice(FOODS),
        h=rng.choice(HOBBIES),
        d=rng.choice(WEEKDAYS),
        n=rng.randint(1, 28),
        v=f"{rng.randint(1, 4)}.{rng.randint(0, 12)}.{rng.randint(0, 9)}",
    )


def memory_specs(count: int, *, seed: int) -> list[MemorySpec]:
    """`count` memories with unique keys; the same seed gives the same list."""
    rng = random.Random(seed)
    specs = []
    for index in range(count):
        category, template = rng.choice(TEMPLATES)
        content = _fill(template, rng) + " " + _fill(rng.choice(DETAILS), rng)
        for _ in range(rng.choice([0, 0, 1, 1, 2, 3])):
            content += " " + _fill(rng.choice(ELABORATIONS), rng)
        tags = sorted(set(rng.sample(TAGS, rng.randint(0, 3))))
        specs.append(
            MemorySpec(
                category=category,
                key=f"{category}_{index:05d}",
                content=content,
                tags=tags,
                priority=rng.choice(PRIORITIES),
            )
        )
    return specs


def search_queries(count: int, *, seed: int) -> list[str]:
    rng = random.Random(seed + 1)
    return [_fill(rng.choice(QUERY_TEMPLATES), rng) for _ in range(count)]


def new_memory_bodies(count: int, *, seed: int) -> list[dict]:
    """Bodies for POST /memory with keys that the fixture does not use (so every store creates)."""
    rng = random.Random(seed + 2)
    bodies = []
    for index in range(count):
        category, template = rng.choice(TEMPLATES)
        bodies.append(
            {
                "category": category,
                "key": f"bench_new_{index:06d}",
                "content": _fill(template, rng) + " " + _fill(rng.choice(DETAILS), rng),
                "tags": sorted(set(rng.sample(TAGS, rng.randint(0, 3)))),
                "priority": rng.choice(PRIORITIES),
            }
        )
    return bodies
