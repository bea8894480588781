"""Every fixed number of the synapse model, in one home (docs/synapse-model.md §11).

Pure: no Django imports, so `synapses.net.geometry` can take its defaults from here. The values an
operator may tune are the attributes of `synapses.config.synapse_settings`, which reads each from
Django settings (`SYNAPSE_<NAME>`) with these values as defaults.
"""

from __future__ import annotations

from typing import Final

# --- damping (knots and edges) ------------------------------------------------------------------
# Upper end of the weight scale (weight units): damp() never exceeds it.
WEIGHT_CAP: Final = 10.0
# Exponent of the damping sine (dimensionless): < 1 gives diminishing returns.
DAMPING_EXPONENT: Final = 0.5

# --- knot dynamics --------------------------------------------------------------------------------
# Added to a knot's weight_raw per reinforcement by use (raw weight units).
REINFORCEMENT_BOOST: Final = 0.1
# Fraction of presence lost per day since the last reinforcement (1/day): presence · e^(−rate·days).
DECAY_RATE: Final = 0.0015
# Presence below which a knot is deactivated; also the lower end of half-reactivation (weight units).
MIN_WEIGHT: Final = 0.1

# --- edge strength (§3) ---------------------------------------------------------------------------
# Share of the gap a weak knot is pulled up by (dimensionless): sin(0.25·π/2)^0.85 = 0.44199, used rounded.
PULL_UP: Final = 0.444
# Share of the gap a strong knot is pulled down by (dimensionless): 1 − sin(0.75·π/2)^4.5 = 0.29972, used rounded.
PULL_DOWN: Final = 0.297
# Added to both pre-weighted anchors per firing layer beyond the winner (weight units).
LAYER_BONUS: Final = 0.1
# Layer names in their canonical order (the order of Edge.layers).
LAYER_ENTITY: Final = "entity"
LAYER_EMBEDDING: Final = "embedding"
LAYER_THEMES: Final = "themes"
LAYER_TIMELINE: Final = "timeline"
LAYERS: Final = (LAYER_ENTITY, LAYER_EMBEDDING, LAYER_THEMES, LAYER_TIMELINE)
# Factor of each layer when it wins (dimensionless); all distinct, so the winner is never a tie.
LAYER_FACTORS: Final = {LAYER_ENTITY: 1.0, LAYER_EMBEDDING: 0.8, LAYER_THEMES: 0.5, LAYER_TIMELINE: 0.4}
# Cosine above which (strictly) the embedding layer fires (cosine). The original's value for its
# model; each embedder's calibrated value replaces it (docs/synapse-model.md §10).
EMBEDDING_THRESHOLD: Final = 0.55

# --- timeline --------------------------------------------------------------------------------------
# The seven time precisions, finest first.
PRECISIONS: Final = ("minute", "hour", "day", "week", "month", "quarter", "year")
# Unit in which each precision measures distance: sub-day precisions measure in days.
PRECISION_UNITS: Final = {
    "minute": "day",
    "hour": "day",
    "day": "day",
    "week": "week",
    "month": "month",
    "quarter": "quarter",
    "year": "year",
}
# Largest distance at which the timeline layer still fires, in each precision's own unit
# (PRECISION_UNITS): minute/hour 7 days, day 21 days, week 8 weeks, month 6 months, quarter 4, year 2.
TIMELINE_TOLERANCES: Final = {"minute": 7, "hour": 7, "day": 21, "week": 8, "month": 6, "quarter": 4, "year": 2}

# --- candidates ------------------------------------------------------------------------------------
# Nearest knots by cosine a new knot is compared with (knots).
EMBEDDING_CANDIDATES: Final = 200
# Most edge pairs (A→B and B→A count as one) written for one new knot (pairs).
MAX_EDGE_PAIRS_PER_KNOT: Final = 50

# --- usage (reinforcement by use, §6) --------------------------------------------------------------
# Cosine of the answer to an offered knot from which the answer counts as having used it (cosine).
# The original's value for its model (between its p99.9 and p99.99 answer-knot nearness).
USAGE_THRESHOLD: Final = 0.55
# Most knots one answer reinforces, the nearest first (knots per turn).
USAGE_MAX_PER_TURN: Final = 3
# Characters of the answer that are embedded (characters): the answer's opening carries what it used.
USAGE_ANSWER_CHARS: Final = 1200
# Most knot ids one report accepts (ids): an answer offers a handful; more is a client's mistake.
USAGE_MAX_KNOT_IDS: Final = 100

# --- promotion (§4) --------------------------------------------------------------------------------
# Salience at or above which a memory is mature at once (0..1, the memory's salience scale).
PROMOTION_SALIENCE: Final = 0.85
# Time without a write after which any memory is mature (seconds): 10 minutes to settle.
PROMOTION_AGE: Final = 600
# Failed promotions of one memory version before it is parked and shown in /memory/health (attempts).
PROMOTION_MAX_ATTEMPTS: Final = 3
# Cosine at or above which a new memory is the same as the nearest knot of another memory (cosine).
# The original's value for its model; each embedder's calibrated value replaces it (§10).
MATCH_THRESHOLD: Final = 0.82
# Pending memories one sweep (the minute schedule, one batch of `manage.py promote`) selects (memories).
PROMOTION_BATCH_SIZE: Final = 1000
# Pending memories one transaction claims and promotes together (memories): one claim, one lock
# statement and one commit for all of them; a memory that fails rolls back alone (its savepoint).
PROMOTION_CLAIM_SIZE: Final = 10
# Nearest knots the match test fetches before it picks the closest itself (knots): the HNSW scan of a
# large mind returns rows in relaxed order, so the first row alone might not be the nearest.
MATCH_CANDIDATES: Final = 10
# Smallest hnsw.ef_search of the net's own vector searches (rows): pgvector's default. Not
# memories' recall setting (1,000): with it PostgreSQL costs the HNSW scan above a sequential scan
# of the whole mind (synapses.net.selectors.candidates.net_hnsw_settings says what was measured).
NET_MIN_EF_SEARCH: Final = 40
# Longest entity name or alias, in words, found in a memory's content (words): the content's word
# n-grams up to this length are what one query matches against the mind's names.
ENTITY_NAME_MAX_WORDS: Final = 4
# Parked memory ids /memory/health lists at most (memories); the count is always complete.
PARKED_IDS_SHOWN: Final = 20

# --- decay -----------------------------------------------------------------------------------------
# Seconds in a day: decay counts fractional days since reinforced_at (seconds/day).
SECONDS_PER_DAY: Final = 86_400.0

# --- edges: candidate lists and per-embedder thresholds (docs/synapse-model.md §3, §10) -----------
# Most knots each of the entity, themes and timeline candidate lists contributes (knots): a magnet
# most of a mind's knots carry (a conversation's speaker) cannot make one edge formation read the
# whole mind.
LAYER_CANDIDATES: Final = 200
# Rarity weight (cap / carriers, dimensionless) below which a shared entity makes no entity layer at
# all: at the default cap, an entity more than 200 knots of the mind carry (a conversation's
# speaker, a user's own name) tells nothing about the pair; in a net smaller than 4 × the cap every
# entity counts, weighted as before. Carriers are therefore counted only up to cap / this + 1
# (synapses.net.edges.entity_carriers_probe): any more and the entity is common.
ENTITY_COMMON_RARITY: Final = 0.25
# Similarity thresholds calibrated for each embedder (cosine), by SYNAPSE_EMBEDDER: the knot-pair
# cosine distribution of the LoCoMo development split at the percentiles of synapses.net.calibration
# (docs/synapse-model.md §10). An embedder not listed uses the original's values above; a
# SYNAPSE_<NAME> setting overrides either.
# all-MiniLM-L6-v2's calibration (torch, sentence-transformers).
_MINILM_THRESHOLDS: Final = {
    "EMBEDDING_THRESHOLD": 0.71,
    "MATCH_THRESHOLD": 0.89,
    "ANCHOR_FLOOR": 0.56,
    "GRAVITY_THRESHOLD": 0.56,
}
EMBEDDER_THRESHOLDS: Final = {
    # hashing's anchor floor is not its calibrated p90 (0.39) but 0.50, near its p99: below that a
    # question's cosine to a turn is shared trigrams, and LoCoMo recall@10 of the relevance
    # ranking rose from 0.567 to 0.592 with it (docs/benchmarks.md → LoCoMo).
    "hashing": {"EMBEDDING_THRESHOLD": 0.52, "MATCH_THRESHOLD": 0.83, "ANCHOR_FLOOR": 0.50, "GRAVITY_THRESHOLD": 0.39},
    "sentence-transformers": _MINILM_THRESHOLDS,
    # The same model in int8 through onnxruntime: its vectors are within cosine 0.999 of the fp32
    # model's on the same text (docs/embeddings.md), so it takes that calibration; not yet
    # calibrated on its own knot pairs.
    "minilm-onnx": _MINILM_THRESHOLDS,
}

# --- read path (§5, §8) ----------------------------------------------------------------------------
# Anchors (shell 0) a resonance starts spreading from (knots).
ANCHOR_COUNT: Final = 3
# Cosine to the search vector at or above which a knot may be an anchor without a full-text
# match (cosine). The original's value for its model (calibrated on 100 prompts against 302 knots);
# each embedder's calibrated value (EMBEDDER_THRESHOLDS, the pair cosines' p90) replaces it.
ANCHOR_FLOOR: Final = 0.40
# Outgoing edges each frontier knot follows, by shell (edges per knot); the anchors' shell 0 follows none.
FAN_OUT: Final = {1: 3, 2: 2, 3: 2}
# Deepest shell any mode may ask for (hops): FAN_OUT has no entry beyond it.
MAX_HOP_DEPTH: Final = 3
# Rank penalty of a knot reached in shell s (dimensionless); shells beyond the table count 0.
SHELL_FACTOR: Final = {0: 1.0, 1: 0.75, 2: 0.5, 3: 0.25}
# Rank factor by the ring distance between the mood's sector and the knot's (dimensionless).
SECTOR_FACTOR: Final = {0: 1.0, 1: 0.9, 2: 0.8, 3: 0.7, 4: 0.6}
# Knots a resonance returns when the caller gives no `limit`, and the most it returns (knots).
RESONANCE_DEFAULT_LIMIT: Final = 3
RESONANCE_MAX_LIMIT: Final = 50
# Pending memories (stored, not yet promoted: the short-term layer) a resonance searches beside
# the net, the mind's most recently waiting first (memories). In normal use a mind holds the last
# PROMOTION_AGE of writes there, a few dozen; the bound keeps a backlog (a stopped worker, a large
# import) from making every resonance read it all. The pending lists' database time (EXPLAIN
# ANALYZE, planning + execution, 2 shared cores at load 10–12; docs/synapse-model.md §5): none
# waiting 1.2 ms (0.85 of it planning), 30 waiting 1.8 ms, 200 waiting 11 ms, 1,000 waiting 11.6 ms
# (only the newest 200 are read; reading all 1,000 cost 29 ms).
PENDING_RESONANCE_MAX: Final = 200
# Knots ranked below the `limit` that the contradiction step still reads (knots): a newer fact just
# below the cut takes the place of the older one it contradicts (synapses.resonance.contradiction).
CONTRADICTION_LOOKAHEAD: Final = 3
# The mode used when the caller names none (the original's default conversation cluster).
DEFAULT_MODE: Final = "paradox"
# Modes as data: name → (hop depth in hops, gravity factor, the share 0..1 of the search vector
# the active goals may take). The original's conversation clusters; a mind may override or add.
MODES: Final = {
    "werkstatt": (0, 0.05),
    "foyer": (0, 0.05),
    "schlachtfeld": (0, 0.05),
    "wartezimmer": (1, 0.10),
    "beichte": (1, 0.10),
    "regen": (1, 0.10),
    "schmollen": (1, 0.10),
    "nebel": (1, 0.10),
    "gewitter": (1, 0.10),
    "paradox": (1, 0.10),
    "bier": (2, 0.20),
    "kissenschlacht": (2, 0.25),
    "glut": (3, 0.30),
    "feuerwerk": (3, 0.30),
}
# The key of a mind's settings (Mind.settings) that holds its mode overrides and additions:
# {name: {"hop_depth": 0–3, "gravity_factor": 0–1}}, read with MODES as the defaults.
MIND_MODES_SETTING: Final = "modes"
# The key of a mind's settings that holds entity discovery's switch and ignore list:
# {"enabled": bool (true when absent), "ignored": [names discovery must not propose, lower-cased]}
# (docs/synapse-model.md, "Magnets found in the content").
MIND_DISCOVERY_SETTING: Final = "entity_discovery"
# The mind's newest knots whose content a promotion run reads as discovery's evidence, once per
# mind and run (knots): a word the mind used as a name before counts as one (recurrence).
DISCOVERY_EVIDENCE_KNOTS: Final = 200
# Most names a mind's ignore list holds (names): each deleted entity adds its name and aliases.
DISCOVERY_IGNORED_MAX: Final = 5_000
# Goal activation (cosine to the raw query × motivation) at or above which a goal bends the
# search vector (dimensionless). The original's value for its model; each embedder's calibrated
# value (EMBEDDER_THRESHOLDS, with the anchor floor) replaces it.
GRAVITY_THRESHOLD: Final = 0.40
# How resonance ranks what it found (SYNAPSE_RESONANCE_RANKING, "relevance" unless set): "relevance"
# scores every knot by the query — its fused full-text and cosine rank — plus the activation spreading
# brings it along edges (each step × the shell factor × the target's cosine to the query);
# "seed" is the original's rule, weight_present × shell factor × sector factor over the anchors
# and their spread, further anchors only filling up to `limit` (docs/synapse-model.md §5).
RANKING_RELEVANCE: Final = "relevance"
RANKING_SEED: Final = "seed"
RANKINGS: Final = (RANKING_RELEVANCE, RANKING_SEED)
# Share of its activation a knot passes along each hop in the relevance ranking (dimensionless).
# LoCoMo development split, hashing, recall@10: 3.0 → 0.536, 1.0 → 0.592, 0.5 → 0.595, 0.25 →
# 0.597 (docs/benchmarks.md → LoCoMo): an association confirms, it does not outvote the query.
SPREAD_GAIN: Final = 0.25
# Anchor candidates the relevance ranking weighs, at least, from each list (text, vector) (knots).
RELEVANCE_MIN_CANDIDATES: Final = 30
# Anchor candidates each list (text, vector) brings before fusion under the seed ranking, at
# least (knots): the anchors plus enough further ones to fill a `limit` spreading could not.
ANCHOR_MIN_CANDIDATES: Final = 20
# Matches of one query term the anchors' text list reads at most (knots): a term a large share
# of the mind holds (a speaker's name, "like") would make every match of the mind be read and
# ranked (23,000 of 100,000 knots, 1.2 s); its first matches stand in for the rest, while every
# match of a rarer term is ranked. In a large mind (the HNSW plan) it is also the estimated
# matches above which a term counts as common and is not read at all (docs/synapse-model.md §5).
TEXT_TERM_MATCHES: Final = 300
# Seconds one process keeps what it read of a mind's net for the anchors statement (its common
# lexemes, and that the mind is above the exact-scan bound) before reading it again (seconds).
# Both change only by ANALYZE or by the mind's knots crossing the bound: a stale fact changes
# for that long which common terms are read or which vector plan runs, both plans and both term
# sets still returning matches of the query.
NET_FACTS_SECONDS: Final = 60.0
# The intents that search with the raw vector (gravity factor forced to 0): a direct instruction
# is answered as asked, not as the mind would like ("anweisung" is the original's label).
RAW_SEARCH_INTENTS: Final = ("instruction", "anweisung")
