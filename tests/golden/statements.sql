-- synapses.net.sql.EDGES_INSERT_SQL
INSERT INTO synapses_edge (mind_id, source_id, target_id, weight_raw, weight_anchor, layers, shared_entities,
                    shared_themes, time_distance, cosine_initial, layer_count, created_at)
SELECT %(mind_id)s, r.source_id, r.target_id, r.weight_raw, r.weight_anchor, r.layers, r.shared_entities,
       r.shared_themes, r.time_distance, r.cosine_initial, r.layer_count, %(now)s
  FROM jsonb_to_recordset(%(rows)s::jsonb) AS r(
       source_id bigint, target_id bigint, weight_raw double precision, weight_anchor double precision,
       layers varchar(16)[], shared_entities bigint[], shared_themes varchar(64)[],
       time_distance double precision, cosine_initial double precision, layer_count smallint)
ON CONFLICT DO NOTHING

-- synapses.net.sql.EDGE_CANDIDATES_SQL[CandidateLists(plan=<VectorPlan.EXACT: 'exact'>, formed_before=False, entity=False, themes=False, timeline=False)]
SELECT d.id, d.weight_anchor, d.entities, d.themes, (extract(epoch FROM d.event_time) * 1000000)::bigint,
       d.event_precision, 1 - (d.embedding <=> %(vector)s::vector) AS cosine
  FROM (SELECT DISTINCT ON (c.id) c.*
          FROM ((SELECT k.id, k.weight_anchor,
       CASE WHEN k.entities && %(own_entities)s::bigint[] THEN k.entities END AS entities,
       CASE WHEN k.themes && %(own_themes)s::varchar[] THEN k.themes END AS themes,
       CASE WHEN k.event_precision = %(own_precision)s THEN k.event_time END AS event_time,
       k.event_precision, k.embedding FROM synapses_knot k JOIN synapses_knotpresence p ON p.knot_id = k.id
    WHERE k.mind_id = %(mind_id)s AND p.is_active AND k.id <> %(knot_id)s  ORDER BY (k.embedding <=> %(vector)s::vector) + 0 LIMIT %(embedding_candidates)s)) AS c
         WHERE NOT EXISTS (SELECT 1 FROM synapses_edge e
                            WHERE e.mind_id = %(mind_id)s AND e.source_id = %(knot_id)s AND e.target_id = c.id)
         ORDER BY c.id) AS d
 ORDER BY d.id

-- synapses.net.sql.EDGE_CANDIDATES_SQL[CandidateLists(plan=<VectorPlan.EXACT: 'exact'>, formed_before=False, entity=False, themes=False, timeline=True)]
SELECT d.id, d.weight_anchor, d.entities, d.themes, (extract(epoch FROM d.event_time) * 1000000)::bigint,
       d.event_precision, 1 - (d.embedding <=> %(vector)s::vector) AS cosine
  FROM (SELECT DISTINCT ON (c.id) c.*
          FROM ((SELECT k.id, k.weight_anchor,
       CASE WHEN k.entities && %(own_entities)s::bigint[] THEN k.entities END AS entities,
       CASE WHEN k.themes && %(own_themes)s::varchar[] THEN k.themes END AS themes,
       CASE WHEN k.event_precision = %(own_precision)s THEN k.event_time END AS event_time,
       k.event_precision, k.embedding FROM synapses_knot k JOIN synapses_knotpresence p ON p.knot_id = k.id
    WHERE k.mind_id = %(mind_id)s AND p.is_active AND k.id <> %(knot_id)s  ORDER BY (k.embedding <=> %(vector)s::vector) + 0 LIMIT %(embedding_candidates)s) UNION ALL (SELECT around.* FROM ((SELECT k.id, k.weight_anchor,
       CASE WHEN k.entities && %(own_entities)s::bigint[] THEN k.entities END AS entities,
       CASE WHEN k.themes && %(own_themes)s::varchar[] THEN k.themes END AS themes,
       CASE WHEN k.event_precision = %(own_precision)s THEN k.event_time END AS event_time,
       k.event_precision, k.embedding FROM synapses_knot k
    WHERE k.mind_id = %(mind_id)s AND k.id <> %(knot_id)s 
      AND (SELECT p.is_active FROM synapses_knotpresence p WHERE p.knot_id = k.id) AND k.event_precision = %(precision)s AND k.event_time >= %(event_time)s AND k.event_time <= %(time_to)s ORDER BY k.event_time LIMIT %(layer_candidates)s) UNION ALL (SELECT k.id, k.weight_anchor,
       CASE WHEN k.entities && %(own_entities)s::bigint[] THEN k.entities END AS entities,
       CASE WHEN k.themes && %(own_themes)s::varchar[] THEN k.themes END AS themes,
       CASE WHEN k.event_precision = %(own_precision)s THEN k.event_time END AS event_time,
       k.event_precision, k.embedding FROM synapses_knot k
    WHERE k.mind_id = %(mind_id)s AND k.id <> %(knot_id)s 
      AND (SELECT p.is_active FROM synapses_knotpresence p WHERE p.knot_id = k.id) AND k.event_precision = %(precision)s AND k.event_time < %(event_time)s AND k.event_time >= %(time_from)s ORDER BY k.event_time DESC LIMIT %(layer_candidates)s)) AS around ORDER BY abs(extract(epoch FROM around.event_time - %(event_time)s)) LIMIT %(layer_candidates)s)) AS c
         WHERE NOT EXISTS (SELECT 1 FROM synapses_edge e
                            WHERE e.mind_id = %(mind_id)s AND e.source_id = %(knot_id)s AND e.target_id = c.id)
         ORDER BY c.id) AS d
 ORDER BY d.id

-- synapses.net.sql.EDGE_CANDIDATES_SQL[CandidateLists(plan=<VectorPlan.EXACT: 'exact'>, formed_before=False, entity=False, themes=True, timeline=False)]
SELECT d.id, d.weight_anchor, d.entities, d.themes, (extract(epoch FROM d.event_time) * 1000000)::bigint,
       d.event_precision, 1 - (d.embedding <=> %(vector)s::vector) AS cosine
  FROM (SELECT DISTINCT ON (c.id) c.*
          FROM ((SELECT k.id, k.weight_anchor,
       CASE WHEN k.entities && %(own_entities)s::bigint[] THEN k.entities END AS entities,
       CASE WHEN k.themes && %(own_themes)s::varchar[] THEN k.themes END AS themes,
       CASE WHEN k.event_precision = %(own_precision)s THEN k.event_time END AS event_time,
       k.event_precision, k.embedding FROM synapses_knot k JOIN synapses_knotpresence p ON p.knot_id = k.id
    WHERE k.mind_id = %(mind_id)s AND p.is_active AND k.id <> %(knot_id)s  ORDER BY (k.embedding <=> %(vector)s::vector) + 0 LIMIT %(embedding_candidates)s) UNION ALL (SELECT k.id, k.weight_anchor,
       CASE WHEN k.entities && %(own_entities)s::bigint[] THEN k.entities END AS entities,
       CASE WHEN k.themes && %(own_themes)s::varchar[] THEN k.themes END AS themes,
       CASE WHEN k.event_precision = %(own_precision)s THEN k.event_time END AS event_time,
       k.event_precision, k.embedding FROM synapses_knot k
    WHERE k.mind_id = %(mind_id)s AND k.id <> %(knot_id)s 
      AND (SELECT p.is_active FROM synapses_knotpresence p WHERE p.knot_id = k.id) AND k.themes && %(themes)s::varchar[] ORDER BY k.id DESC LIMIT %(layer_candidates)s)) AS c
         WHERE NOT EXISTS (SELECT 1 FROM synapses_edge e
                            WHERE e.mind_id = %(mind_id)s AND e.source_id = %(knot_id)s AND e.target_id = c.id)
         ORDER BY c.id) AS d
 ORDER BY d.id

-- synapses.net.sql.EDGE_CANDIDATES_SQL[CandidateLists(plan=<VectorPlan.EXACT: 'exact'>, formed_before=False, entity=False, themes=True, timeline=True)]
SELECT d.id, d.weight_anchor, d.entities, d.themes, (extract(epoch FROM d.event_time) * 1000000)::bigint,
       d.event_precision, 1 - (d.embedding <=> %(vector)s::vector) AS cosine
  FROM (SELECT DISTINCT ON (c.id) c.*
          FROM ((SELECT k.id, k.weight_anchor,
       CASE WHEN k.entities && %(own_entities)s::bigint[] THEN k.entities END AS entities,
       CASE WHEN k.themes && %(own_themes)s::varchar[] THEN k.themes END AS themes,
       CASE WHEN k.event_precision = %(own_precision)s THEN k.event_time END AS event_time,
       k.event_precision, k.embedding FROM synapses_knot k JOIN synapses_knotpresence p ON p.knot_id = k.id
    WHERE k.mind_id = %(mind_id)s AND p.is_active AND k.id <> %(knot_id)s  ORDER BY (k.embedding <=> %(vector)s::vector) + 0 LIMIT %(embedding_candidates)s) UNION ALL (SELECT k.id, k.weight_anchor,
       CASE WHEN k.entities && %(own_entities)s::bigint[] THEN k.entities END AS entities,
       CASE WHEN k.themes && %(own_themes)s::varchar[] THEN k.themes END AS themes,
       CASE WHEN k.event_precision = %(own_precision)s THEN k.event_time END AS event_time,
       k.event_precision, k.embedding FROM synapses_knot k
    WHERE k.mind_id = %(mind_id)s AND k.id <> %(knot_id)s 
      AND (SELECT p.is_active FROM synapses_knotpresence p WHERE p.knot_id = k.id) AND k.themes && %(themes)s::varchar[] ORDER BY k.id DESC LIMIT %(layer_candidates)s) UNION ALL (SELECT around.* FROM ((SELECT k.id, k.weight_anchor,
       CASE WHEN k.entities && %(own_entities)s::bigint[] THEN k.entities END AS entities,
       CASE WHEN k.themes && %(own_themes)s::varchar[] THEN k.themes END AS themes,
       CASE WHEN k.event_precision = %(own_precision)s THEN k.event_time END AS event_time,
       k.event_precision, k.embedding FROM synapses_knot k
    WHERE k.mind_id = %(mind_id)s AND k.id <> %(knot_id)s 
      AND (SELECT p.is_active FROM synapses_knotpresence p WHERE p.knot_id = k.id) AND k.event_precision = %(precision)s AND k.event_time >= %(event_time)s AND k.event_time <= %(time_to)s ORDER BY k.event_time LIMIT %(layer_candidates)s) UNION ALL (SELECT k.id, k.weight_anchor,
       CASE WHEN k.entities && %(own_entities)s::bigint[] THEN k.entities END AS entities,
       CASE WHEN k.themes && %(own_themes)s::varchar[] THEN k.themes END AS themes,
       CASE WHEN k.event_precision = %(own_precision)s THEN k.event_time END AS event_time,
       k.event_precision, k.embedding FROM synapses_knot k
    WHERE k.mind_id = %(mind_id)s AND k.id <> %(knot_id)s 
      AND (SELECT p.is_active FROM synapses_knotpresence p WHERE p.knot_id = k.id) AND k.event_precision = %(precision)s AND k.event_time < %(event_time)s AND k.event_time >= %(time_from)s ORDER BY k.event_time DESC LIMIT %(layer_candidates)s)) AS around ORDER BY abs(extract(epoch FROM around.event_time - %(event_time)s)) LIMIT %(layer_candidates)s)) AS c
         WHERE NOT EXISTS (SELECT 1 FROM synapses_edge e
                            WHERE e.mind_id = %(mind_id)s AND e.source_id = %(knot_id)s AND e.target_id = c.id)
         ORDER BY c.id) AS d
 ORDER BY d.id

-- synapses.net.sql.EDGE_CANDIDATES_SQL[CandidateLists(plan=<VectorPlan.EXACT: 'exact'>, formed_before=False, entity=True, themes=False, timeline=False)]
SELECT d.id, d.weight_anchor, d.entities, d.themes, (extract(epoch FROM d.event_time) * 1000000)::bigint,
       d.event_precision, 1 - (d.embedding <=> %(vector)s::vector) AS cosine
  FROM (SELECT DISTINCT ON (c.id) c.*
          FROM ((SELECT k.id, k.weight_anchor,
       CASE WHEN k.entities && %(own_entities)s::bigint[] THEN k.entities END AS entities,
       CASE WHEN k.themes && %(own_themes)s::varchar[] THEN k.themes END AS themes,
       CASE WHEN k.event_precision = %(own_precision)s THEN k.event_time END AS event_time,
       k.event_precision, k.embedding FROM synapses_knot k JOIN synapses_knotpresence p ON p.knot_id = k.id
    WHERE k.mind_id = %(mind_id)s AND p.is_active AND k.id <> %(knot_id)s  ORDER BY (k.embedding <=> %(vector)s::vector) + 0 LIMIT %(embedding_candidates)s) UNION ALL (SELECT k.id, k.weight_anchor,
       CASE WHEN k.entities && %(own_entities)s::bigint[] THEN k.entities END AS entities,
       CASE WHEN k.themes && %(own_themes)s::varchar[] THEN k.themes END AS themes,
       CASE WHEN k.event_precision = %(own_precision)s THEN k.event_time END AS event_time,
       k.event_precision, k.embedding FROM synapses_knot k
    WHERE k.mind_id = %(mind_id)s AND k.id <> %(knot_id)s 
      AND (SELECT p.is_active FROM synapses_knotpresence p WHERE p.knot_id = k.id) AND k.entities && %(entities)s::bigint[] ORDER BY k.id DESC LIMIT %(layer_candidates)s)) AS c
         WHERE NOT EXISTS (SELECT 1 FROM synapses_edge e
                            WHERE e.mind_id = %(mind_id)s AND e.source_id = %(knot_id)s AND e.target_id = c.id)
         ORDER BY c.id) AS d
 ORDER BY d.id

-- synapses.net.sql.EDGE_CANDIDATES_SQL[CandidateLists(plan=<VectorPlan.EXACT: 'exact'>, formed_before=False, entity=True, themes=False, timeline=True)]
SELECT d.id, d.weight_anchor, d.entities, d.themes, (extract(epoch FROM d.event_time) * 1000000)::bigint,
       d.event_precision, 1 - (d.embedding <=> %(vector)s::vector) AS cosine
  FROM (SELECT DISTINCT ON (c.id) c.*
          FROM ((SELECT k.id, k.weight_anchor,
       CASE WHEN k.entities && %(own_entities)s::bigint[] THEN k.entities END AS entities,
       CASE WHEN k.themes && %(own_themes)s::varchar[] THEN k.themes END AS themes,
       CASE WHEN k.event_precision = %(own_precision)s THEN k.event_time END AS event_time,
       k.event_precision, k.embedding FROM synapses_knot k JOIN synapses_knotpresence p ON p.knot_id = k.id
    WHERE k.mind_id = %(mind_id)s AND p.is_active AND k.id <> %(knot_id)s  ORDER BY (k.embedding <=> %(vector)s::vector) + 0 LIMIT %(embedding_candidates)s) UNION ALL (SELECT k.id, k.weight_anchor,
       CASE WHEN k.entities && %(own_entities)s::bigint[] THEN k.entities END AS entities,
       CASE WHEN k.themes && %(own_themes)s::varchar[] THEN k.themes END AS themes,
       CASE WHEN k.event_precision = %(own_precision)s THEN k.event_time END AS event_time,
       k.event_precision, k.embedding FROM synapses_knot k
    WHERE k.mind_id = %(mind_id)s AND k.id <> %(knot_id)s 
      AND (SELECT p.is_active FROM synapses_knotpresence p WHERE p.knot_id = k.id) AND k.entities && %(entities)s::bigint[] ORDER BY k.id DESC LIMIT %(layer_candidates)s) UNION ALL (SELECT around.* FROM ((SELECT k.id, k.weight_anchor,
       CASE WHEN k.entities && %(own_entities)s::bigint[] THEN k.entities END AS entities,
       CASE WHEN k.themes && %(own_themes)s::varchar[] THEN k.themes END AS themes,
       CASE WHEN k.event_precision = %(own_precision)s THEN k.event_time END AS event_time,
       k.event_precision, k.embedding FROM synapses_knot k
    WHERE k.mind_id = %(mind_id)s AND k.id <> %(knot_id)s 
      AND (SELECT p.is_active FROM synapses_knotpresence p WHERE p.knot_id = k.id) AND k.event_precision = %(precision)s AND k.event_time >= %(event_time)s AND k.event_time <= %(time_to)s ORDER BY k.event_time LIMIT %(layer_candidates)s) UNION ALL (SELECT k.id, k.weight_anchor,
       CASE WHEN k.entities && %(own_entities)s::bigint[] THEN k.entities END AS entities,
       CASE WHEN k.themes && %(own_themes)s::varchar[] THEN k.themes END AS themes,
       CASE WHEN k.event_precision = %(own_precision)s THEN k.event_time END AS event_time,
       k.event_precision, k.embedding FROM synapses_knot k
    WHERE k.mind_id = %(mind_id)s AND k.id <> %(knot_id)s 
      AND (SELECT p.is_active FROM synapses_knotpresence p WHERE p.knot_id = k.id) AND k.event_precision = %(precision)s AND k.event_time < %(event_time)s AND k.event_time >= %(time_from)s ORDER BY k.event_time DESC LIMIT %(layer_candidates)s)) AS around ORDER BY abs(extract(epoch FROM around.event_time - %(event_time)s)) LIMIT %(layer_candidates)s)) AS c
         WHERE NOT EXISTS (SELECT 1 FROM synapses_edge e
                            WHERE e.mind_id = %(mind_id)s AND e.source_id = %(knot_id)s AND e.target_id = c.id)
         ORDER BY c.id) AS d
 ORDER BY d.id

-- synapses.net.sql.EDGE_CANDIDATES_SQL[CandidateLists(plan=<VectorPlan.EXACT: 'exact'>, formed_before=False, entity=True, themes=True, timeline=False)]
SELECT d.id, d.weight_anchor, d.entities, d.themes, (extract(epoch FROM d.event_time) * 1000000)::bigint,
       d.event_precision, 1 - (d.embedding <=> %(vector)s::vector) AS cosine
  FROM (SELECT DISTINCT ON (c.id) c.*
          FROM ((SELECT k.id, k.weight_anchor,
       CASE WHEN k.entities && %(own_entities)s::bigint[] THEN k.entities END AS entities,
       CASE WHEN k.themes && %(own_themes)s::varchar[] THEN k.themes END AS themes,
       CASE WHEN k.event_precision = %(own_precision)s THEN k.event_time END AS event_time,
       k.event_precision, k.embedding FROM synapses_knot k JOIN synapses_knotpresence p ON p.knot_id = k.id
    WHERE k.mind_id = %(mind_id)s AND p.is_active AND k.id <> %(knot_id)s  ORDER BY (k.embedding <=> %(vector)s::vector) + 0 LIMIT %(embedding_candidates)s) UNION ALL (SELECT k.id, k.weight_anchor,
       CASE WHEN k.entities && %(own_entities)s::bigint[] THEN k.entities END AS entities,
       CASE WHEN k.themes && %(own_themes)s::varchar[] THEN k.themes END AS themes,
       CASE WHEN k.event_precision = %(own_precision)s THEN k.event_time END AS event_time,
       k.event_precision, k.embedding FROM synapses_knot k
    WHERE k.mind_id = %(mind_id)s AND k.id <> %(knot_id)s 
      AND (SELECT p.is_active FROM synapses_knotpresence p WHERE p.knot_id = k.id) AND k.entities && %(entities)s::bigint[] ORDER BY k.id DESC LIMIT %(layer_candidates)s) UNION ALL (SELECT k.id, k.weight_anchor,
       CASE WHEN k.entities && %(own_entities)s::bigint[] THEN k.entities END AS entities,
       CASE WHEN k.themes && %(own_themes)s::varchar[] THEN k.themes END AS themes,
       CASE WHEN k.event_precision = %(own_precision)s THEN k.event_time END AS event_time,
       k.event_precision, k.embedding FROM synapses_knot k
    WHERE k.mind_id = %(mind_id)s AND k.id <> %(knot_id)s 
      AND (SELECT p.is_active FROM synapses_knotpresence p WHERE p.knot_id = k.id) AND k.themes && %(themes)s::varchar[] ORDER BY k.id DESC LIMIT %(layer_candidates)s)) AS c
         WHERE NOT EXISTS (SELECT 1 FROM synapses_edge e
                            WHERE e.mind_id = %(mind_id)s AND e.source_id = %(knot_id)s AND e.target_id = c.id)
         ORDER BY c.id) AS d
 ORDER BY d.id

-- synapses.net.sql.EDGE_CANDIDATES_SQL[CandidateLists(plan=<VectorPlan.EXACT: 'exact'>, formed_before=False, entity=True, themes=True, timeline=True)]
SELECT d.id, d.weight_anchor, d.entities, d.themes, (extract(epoch FROM d.event_time) * 1000000)::bigint,
       d.event_precision, 1 - (d.embedding <=> %(vector)s::vector) AS cosine
  FROM (SELECT DISTINCT ON (c.id) c.*
          FROM ((SELECT k.id, k.weight_anchor,
       CASE WHEN k.entities && %(own_entities)s::bigint[] THEN k.entities END AS entities,
       CASE WHEN k.themes && %(own_themes)s::varchar[] THEN k.themes END AS themes,
       CASE WHEN k.event_precision = %(own_precision)s THEN k.event_time END AS event_time,
       k.event_precision, k.embedding FROM synapses_knot k JOIN synapses_knotpresence p ON p.knot_id = k.id
    WHERE k.mind_id = %(mind_id)s AND p.is_active AND k.id <> %(knot_id)s  ORDER BY (k.embedding <=> %(vector)s::vector) + 0 LIMIT %(embedding_candidates)s) UNION ALL (SELECT k.id, k.weight_anchor,
       CASE WHEN k.entities && %(own_entities)s::bigint[] THEN k.entities END AS entities,
       CASE WHEN k.themes && %(own_themes)s::varchar[] THEN k.themes END AS themes,
       CASE WHEN k.event_precision = %(own_precision)s THEN k.event_time END AS event_time,
       k.event_precision, k.embedding FROM synapses_knot k
    WHERE k.mind_id = %(mind_id)s AND k.id <> %(knot_id)s 
      AND (SELECT p.is_active FROM synapses_knotpresence p WHERE p.knot_id = k.id) AND k.entities && %(entities)s::bigint[] ORDER BY k.id DESC LIMIT %(layer_candidates)s) UNION ALL (SELECT k.id, k.weight_anchor,
       CASE WHEN k.entities && %(own_entities)s::bigint[] THEN k.entities END AS entities,
       CASE WHEN k.themes && %(own_themes)s::varchar[] THEN k.themes END AS themes,
       CASE WHEN k.event_precision = %(own_precision)s THEN k.event_time END AS event_time,
       k.event_precision, k.embedding FROM synapses_knot k
    WHERE k.mind_id = %(mind_id)s AND k.id <> %(knot_id)s 
      AND (SELECT p.is_active FROM synapses_knotpresence p WHERE p.knot_id = k.id) AND k.themes && %(themes)s::varchar[] ORDER BY k.id DESC LIMIT %(layer_candidates)s) UNION ALL (SELECT around.* FROM ((SELECT k.id, k.weight_anchor,
       CASE WHEN k.entities && %(own_entities)s::bigint[] THEN k.entities END AS entities,
       CASE WHEN k.themes && %(own_themes)s::varchar[] THEN k.themes END AS themes,
       CASE WHEN k.event_precision = %(own_precision)s THEN k.event_time END AS event_time,
       k.event_precision, k.embedding FROM synapses_knot k
    WHERE k.mind_id = %(mind_id)s AND k.id <> %(knot_id)s 
      AND (SELECT p.is_active FROM synapses_knotpresence p WHERE p.knot_id = k.id) AND k.event_precision = %(precision)s AND k.event_time >= %(event_time)s AND k.event_time <= %(time_to)s ORDER BY k.event_time LIMIT %(layer_candidates)s) UNION ALL (SELECT k.id, k.weight_anchor,
       CASE WHEN k.entities && %(own_entities)s::bigint[] THEN k.entities END AS entities,
       CASE WHEN k.themes && %(own_themes)s::varchar[] THEN k.themes END AS themes,
       CASE WHEN k.event_precision = %(own_precision)s THEN k.event_time END AS event_time,
       k.event_precision, k.embedding FROM synapses_knot k
    WHERE k.mind_id = %(mind_id)s AND k.id <> %(knot_id)s 
      AND (SELECT p.is_active FROM synapses_knotpresence p WHERE p.knot_id = k.id) AND k.event_precision = %(precision)s AND k.event_time < %(event_time)s AND k.event_time >= %(time_from)s ORDER BY k.event_time DESC LIMIT %(layer_candidates)s)) AS around ORDER BY abs(extract(epoch FROM around.event_time - %(event_time)s)) LIMIT %(layer_candidates)s)) AS c
         WHERE NOT EXISTS (SELECT 1 FROM synapses_edge e
                            WHERE e.mind_id = %(mind_id)s AND e.source_id = %(knot_id)s AND e.target_id = c.id)
         ORDER BY c.id) AS d
 ORDER BY d.id

-- synapses.net.sql.EDGE_CANDIDATES_SQL[CandidateLists(plan=<VectorPlan.EXACT: 'exact'>, formed_before=True, entity=False, themes=False, timeline=False)]
SELECT d.id, d.weight_anchor, d.entities, d.themes, (extract(epoch FROM d.event_time) * 1000000)::bigint,
       d.event_precision, 1 - (d.embedding <=> %(vector)s::vector) AS cosine
  FROM (SELECT DISTINCT ON (c.id) c.*
          FROM ((SELECT k.id, k.weight_anchor,
       CASE WHEN k.entities && %(own_entities)s::bigint[] THEN k.entities END AS entities,
       CASE WHEN k.themes && %(own_themes)s::varchar[] THEN k.themes END AS themes,
       CASE WHEN k.event_precision = %(own_precision)s THEN k.event_time END AS event_time,
       k.event_precision, k.embedding FROM synapses_knot k JOIN synapses_knotpresence p ON p.knot_id = k.id
    WHERE k.mind_id = %(mind_id)s AND p.is_active AND k.id <> %(knot_id)s AND (k.source_created_at, k.id) < (%(before_at)s, %(before_id)s) ORDER BY (k.embedding <=> %(vector)s::vector) + 0 LIMIT %(embedding_candidates)s)) AS c
         WHERE NOT EXISTS (SELECT 1 FROM synapses_edge e
                            WHERE e.mind_id = %(mind_id)s AND e.source_id = %(knot_id)s AND e.target_id = c.id)
         ORDER BY c.id) AS d
 ORDER BY d.id

-- synapses.net.sql.EDGE_CANDIDATES_SQL[CandidateLists(plan=<VectorPlan.EXACT: 'exact'>, formed_before=True, entity=False, themes=False, timeline=True)]
SELECT d.id, d.weight_anchor, d.entities, d.themes, (extract(epoch FROM d.event_time) * 1000000)::bigint,
       d.event_precision, 1 - (d.embedding <=> %(vector)s::vector) AS cosine
  FROM (SELECT DISTINCT ON (c.id) c.*
          FROM ((SELECT k.id, k.weight_anchor,
       CASE WHEN k.entities && %(own_entities)s::bigint[] THEN k.entities END AS entities,
       CASE WHEN k.themes && %(own_themes)s::varchar[] THEN k.themes END AS themes,
       CASE WHEN k.event_precision = %(own_precision)s THEN k.event_time END AS event_time,
       k.event_precision, k.embedding FROM synapses_knot k JOIN synapses_knotpresence p ON p.knot_id = k.id
    WHERE k.mind_id = %(mind_id)s AND p.is_active AND k.id <> %(knot_id)s AND (k.source_created_at, k.id) < (%(before_at)s, %(before_id)s) ORDER BY (k.embedding <=> %(vector)s::vector) + 0 LIMIT %(embedding_candidates)s) UNION ALL (SELECT around.* FROM ((SELECT k.id, k.weight_anchor,
       CASE WHEN k.entities && %(own_entities)s::bigint[] THEN k.entities END AS entities,
       CASE WHEN k.themes && %(own_themes)s::varchar[] THEN k.themes END AS themes,
       CASE WHEN k.event_precision = %(own_precision)s THEN k.event_time END AS event_time,
       k.event_precision, k.embedding FROM synapses_knot k
    WHERE k.mind_id = %(mind_id)s AND k.id <> %(knot_id)s AND (k.source_created_at, k.id) < (%(before_at)s, %(before_id)s)
      AND (SELECT p.is_active FROM synapses_knotpresence p WHERE p.knot_id = k.id) AND k.event_precision = %(precision)s AND k.event_time >= %(event_time)s AND k.event_time <= %(time_to)s ORDER BY k.event_time LIMIT %(layer_candidates)s) UNION ALL (SELECT k.id, k.weight_anchor,
       CASE WHEN k.entities && %(own_entities)s::bigint[] THEN k.entities END AS entities,
       CASE WHEN k.themes && %(own_themes)s::varchar[] THEN k.themes END AS themes,
       CASE WHEN k.event_precision = %(own_precision)s THEN k.event_time END AS event_time,
       k.event_precision, k.embedding FROM synapses_knot k
    WHERE k.mind_id = %(mind_id)s AND k.id <> %(knot_id)s AND (k.source_created_at, k.id) < (%(before_at)s, %(before_id)s)
      AND (SELECT p.is_active FROM synapses_knotpresence p WHERE p.knot_id = k.id) AND k.event_precision = %(precision)s AND k.event_time < %(event_time)s AND k.event_time >= %(time_from)s ORDER BY k.event_time DESC LIMIT %(layer_candidates)s)) AS around ORDER BY abs(extract(epoch FROM around.event_time - %(event_time)s)) LIMIT %(layer_candidates)s)) AS c
         WHERE NOT EXISTS (SELECT 1 FROM synapses_edge e
                            WHERE e.mind_id = %(mind_id)s AND e.source_id = %(knot_id)s AND e.target_id = c.id)
         ORDER BY c.id) AS d
 ORDER BY d.id

-- synapses.net.sql.EDGE_CANDIDATES_SQL[CandidateLists(plan=<VectorPlan.EXACT: 'exact'>, formed_before=True, entity=False, themes=True, timeline=False)]
SELECT d.id, d.weight_anchor, d.entities, d.themes, (extract(epoch FROM d.event_time) * 1000000)::bigint,
       d.event_precision, 1 - (d.embedding <=> %(vector)s::vector) AS cosine
  FROM (SELECT DISTINCT ON (c.id) c.*
          FROM ((SELECT k.id, k.weight_anchor,
       CASE WHEN k.entities && %(own_entities)s::bigint[] THEN k.entities END AS entities,
       CASE WHEN k.themes && %(own_themes)s::varchar[] THEN k.themes END AS themes,
       CASE WHEN k.event_precision = %(own_precision)s THEN k.event_time END AS event_time,
       k.event_precision, k.embedding FROM synapses_knot k JOIN synapses_knotpresence p ON p.knot_id = k.id
    WHERE k.mind_id = %(mind_id)s AND p.is_active AND k.id <> %(knot_id)s AND (k.source_created_at, k.id) < (%(before_at)s, %(before_id)s) ORDER BY (k.embedding <=> %(vector)s::vector) + 0 LIMIT %(embedding_candidates)s) UNION ALL (SELECT k.id, k.weight_anchor,
       CASE WHEN k.entities && %(own_entities)s::bigint[] THEN k.entities END AS entities,
       CASE WHEN k.themes && %(own_themes)s::varchar[] THEN k.themes END AS themes,
       CASE WHEN k.event_precision = %(own_precision)s THEN k.event_time END AS event_time,
       k.event_precision, k.embedding FROM synapses_knot k
    WHERE k.mind_id = %(mind_id)s AND k.id <> %(knot_id)s AND (k.source_created_at, k.id) < (%(before_at)s, %(before_id)s)
      AND (SELECT p.is_active FROM synapses_knotpresence p WHERE p.knot_id = k.id) AND k.themes && %(themes)s::varchar[] ORDER BY k.id DESC LIMIT %(layer_candidates)s)) AS c
         WHERE NOT EXISTS (SELECT 1 FROM synapses_edge e
                            WHERE e.mind_id = %(mind_id)s AND e.source_id = %(knot_id)s AND e.target_id = c.id)
         ORDER BY c.id) AS d
 ORDER BY d.id

-- synapses.net.sql.EDGE_CANDIDATES_SQL[CandidateLists(plan=<VectorPlan.EXACT: 'exact'>, formed_before=True, entity=False, themes=True, timeline=True)]
SELECT d.id, d.weight_anchor, d.entities, d.themes, (extract(epoch FROM d.event_time) * 1000000)::bigint,
       d.event_precision, 1 - (d.embedding <=> %(vector)s::vector) AS cosine
  FROM (SELECT DISTINCT ON (c.id) c.*
          FROM ((SELECT k.id, k.weight_anchor,
       CASE WHEN k.entities && %(own_entities)s::bigint[] THEN k.entities END AS entities,
       CASE WHEN k.themes && %(own_themes)s::varchar[] THEN k.themes END AS themes,
       CASE WHEN k.event_precision = %(own_precision)s THEN k.event_time END AS event_time,
       k.event_precision, k.embedding FROM synapses_knot k JOIN synapses_knotpresence p ON p.knot_id = k.id
    WHERE k.mind_id = %(mind_id)s AND p.is_active AND k.id <> %(knot_id)s AND (k.source_created_at, k.id) < (%(before_at)s, %(before_id)s) ORDER BY (k.embedding <=> %(vector)s::vector) + 0 LIMIT %(embedding_candidates)s) UNION ALL (SELECT k.id, k.weight_anchor,
       CASE WHEN k.entities && %(own_entities)s::bigint[] THEN k.entities END AS entities,
       CASE WHEN k.themes && %(own_themes)s::varchar[] THEN k.themes END AS themes,
       CASE WHEN k.event_precision = %(own_precision)s THEN k.event_time END AS event_time,
       k.event_precision, k.embedding FROM synapses_knot k
    WHERE k.mind_id = %(mind_id)s AND k.id <> %(knot_id)s AND (k.source_created_at, k.id) < (%(before_at)s, %(before_id)s)
      AND (SELECT p.is_active FROM synapses_knotpresence p WHERE p.knot_id = k.id) AND k.themes && %(themes)s::varchar[] ORDER BY k.id DESC LIMIT %(layer_candidates)s) UNION ALL (SELECT around.* FROM ((SELECT k.id, k.weight_anchor,
       CASE WHEN k.entities && %(own_entities)s::bigint[] THEN k.entities END AS entities,
       CASE WHEN k.themes && %(own_themes)s::varchar[] THEN k.themes END AS themes,
       CASE WHEN k.event_precision = %(own_precision)s THEN k.event_time END AS event_time,
       k.event_precision, k.embedding FROM synapses_knot k
    WHERE k.mind_id = %(mind_id)s AND k.id <> %(knot_id)s AND (k.source_created_at, k.id) < (%(before_at)s, %(before_id)s)
      AND (SELECT p.is_active FROM synapses_knotpresence p WHERE p.knot_id = k.id) AND k.event_precision = %(precision)s AND k.event_time >= %(event_time)s AND k.event_time <= %(time_to)s ORDER BY k.event_time LIMIT %(layer_candidates)s) UNION ALL (SELECT k.id, k.weight_anchor,
       CASE WHEN k.entities && %(own_entities)s::bigint[] THEN k.entities END AS entities,
       CASE WHEN k.themes && %(own_themes)s::varchar[] THEN k.themes END AS themes,
       CASE WHEN k.event_precision = %(own_precision)s THEN k.event_time END AS event_time,
       k.event_precision, k.embedding FROM synapses_knot k
    WHERE k.mind_id = %(mind_id)s AND k.id <> %(knot_id)s AND (k.source_created_at, k.id) < (%(before_at)s, %(before_id)s)
      AND (SELECT p.is_active FROM synapses_knotpresence p WHERE p.knot_id = k.id) AND k.event_precision = %(precision)s AND k.event_time < %(event_time)s AND k.event_time >= %(time_from)s ORDER BY k.event_time DESC LIMIT %(layer_candidates)s)) AS around ORDER BY abs(extract(epoch FROM around.event_time - %(event_time)s)) LIMIT %(layer_candidates)s)) AS c
         WHERE NOT EXISTS (SELECT 1 FROM synapses_edge e
                            WHERE e.mind_id = %(mind_id)s AND e.source_id = %(knot_id)s AND e.target_id = c.id)
         ORDER BY c.id) AS d
 ORDER BY d.id

-- synapses.net.sql.EDGE_CANDIDATES_SQL[CandidateLists(plan=<VectorPlan.EXACT: 'exact'>, formed_before=True, entity=True, themes=False, timeline=False)]
SELECT d.id, d.weight_anchor, d.entities, d.themes, (extract(epoch FROM d.event_time) * 1000000)::bigint,
       d.event_precision, 1 - (d.embedding <=> %(vector)s::vector) AS cosine
  FROM (SELECT DISTINCT ON (c.id) c.*
          FROM ((SELECT k.id, k.weight_anchor,
       CASE WHEN k.entities && %(own_entities)s::bigint[] THEN k.entities END AS entities,
       CASE WHEN k.themes && %(own_themes)s::varchar[] THEN k.themes END AS themes,
       CASE WHEN k.event_precision = %(own_precision)s THEN k.event_time END AS event_time,
       k.event_precision, k.embedding FROM synapses_knot k JOIN synapses_knotpresence p ON p.knot_id = k.id
    WHERE k.mind_id = %(mind_id)s AND p.is_active AND k.id <> %(knot_id)s AND (k.source_created_at, k.id) < (%(before_at)s, %(before_id)s) ORDER BY (k.embedding <=> %(vector)s::vector) + 0 LIMIT %(embedding_candidates)s) UNION ALL (SELECT k.id, k.weight_anchor,
       CASE WHEN k.entities && %(own_entities)s::bigint[] THEN k.entities END AS entities,
       CASE WHEN k.themes && %(own_themes)s::varchar[] THEN k.themes END AS themes,
       CASE WHEN k.event_precision = %(own_precision)s THEN k.event_time END AS event_time,
       k.event_precision, k.embedding FROM synapses_knot k
    WHERE k.mind_id = %(mind_id)s AND k.id <> %(knot_id)s AND (k.source_created_at, k.id) < (%(before_at)s, %(before_id)s)
      AND (SELECT p.is_active FROM synapses_knotpresence p WHERE p.knot_id = k.id) AND k.entities && %(entities)s::bigint[] ORDER BY k.id DESC LIMIT %(layer_candidates)s)) AS c
         WHERE NOT EXISTS (SELECT 1 FROM synapses_edge e
                            WHERE e.mind_id = %(mind_id)s AND e.source_id = %(knot_id)s AND e.target_id = c.id)
         ORDER BY c.id) AS d
 ORDER BY d.id

-- synapses.net.sql.EDGE_CANDIDATES_SQL[CandidateLists(plan=<VectorPlan.EXACT: 'exact'>, formed_before=True, entity=True, themes=False, timeline=True)]
SELECT d.id, d.weight_anchor, d.entities, d.themes, (extract(epoch FROM d.event_time) * 1000000)::bigint,
       d.event_precision, 1 - (d.embedding <=> %(vector)s::vector) AS cosine
  FROM (SELECT DISTINCT ON (c.id) c.*
          FROM ((SELECT k.id, k.weight_anchor,
       CASE WHEN k.entities && %(own_entities)s::bigint[] THEN k.entities END AS entities,
       CASE WHEN k.themes && %(own_themes)s::varchar[] THEN k.themes END AS themes,
       CASE WHEN k.event_precision = %(own_precision)s THEN k.event_time END AS event_time,
       k.event_precision, k.embedding FROM synapses_knot k JOIN synapses_knotpresence p ON p.knot_id = k.id
    WHERE k.mind_id = %(mind_id)s AND p.is_active AND k.id <> %(knot_id)s AND (k.source_created_at, k.id) < (%(before_at)s, %(before_id)s) ORDER BY (k.embedding <=> %(vector)s::vector) + 0 LIMIT %(embedding_candidates)s) UNION ALL (SELECT k.id, k.weight_anchor,
       CASE WHEN k.entities && %(own_entities)s::bigint[] THEN k.entities END AS entities,
       CASE WHEN k.themes && %(own_themes)s::varchar[] THEN k.themes END AS themes,
       CASE WHEN k.event_precision = %(own_precision)s THEN k.event_time END AS event_time,
       k.event_precision, k.embedding FROM synapses_knot k
    WHERE k.mind_id = %(mind_id)s AND k.id <> %(knot_id)s AND (k.source_created_at, k.id) < (%(before_at)s, %(before_id)s)
      AND (SELECT p.is_active FROM synapses_knotpresence p WHERE p.knot_id = k.id) AND k.entities && %(entities)s::bigint[] ORDER BY k.id DESC LIMIT %(layer_candidates)s) UNION ALL (SELECT around.* FROM ((SELECT k.id, k.weight_anchor,
       CASE WHEN k.entities && %(own_entities)s::bigint[] THEN k.entities END AS entities,
       CASE WHEN k.themes && %(own_themes)s::varchar[] THEN k.themes END AS themes,
       CASE WHEN k.event_precision = %(own_precision)s THEN k.event_time END AS event_time,
       k.event_precision, k.embedding FROM synapses_knot k
    WHERE k.mind_id = %(mind_id)s AND k.id <> %(knot_id)s AND (k.source_created_at, k.id) < (%(before_at)s, %(before_id)s)
      AND (SELECT p.is_active FROM synapses_knotpresence p WHERE p.knot_id = k.id) AND k.event_precision = %(precision)s AND k.event_time >= %(event_time)s AND k.event_time <= %(time_to)s ORDER BY k.event_time LIMIT %(layer_candidates)s) UNION ALL (SELECT k.id, k.weight_anchor,
       CASE WHEN k.entities && %(own_entities)s::bigint[] THEN k.entities END AS entities,
       CASE WHEN k.themes && %(own_themes)s::varchar[] THEN k.themes END AS themes,
       CASE WHEN k.event_precision = %(own_precision)s THEN k.event_time END AS event_time,
       k.event_precision, k.embedding FROM synapses_knot k
    WHERE k.mind_id = %(mind_id)s AND k.id <> %(knot_id)s AND (k.source_created_at, k.id) < (%(before_at)s, %(before_id)s)
      AND (SELECT p.is_active FROM synapses_knotpresence p WHERE p.knot_id = k.id) AND k.event_precision = %(precision)s AND k.event_time < %(event_time)s AND k.event_time >= %(time_from)s ORDER BY k.event_time DESC LIMIT %(layer_candidates)s)) AS around ORDER BY abs(extract(epoch FROM around.event_time - %(event_time)s)) LIMIT %(layer_candidates)s)) AS c
         WHERE NOT EXISTS (SELECT 1 FROM synapses_edge e
                            WHERE e.mind_id = %(mind_id)s AND e.source_id = %(knot_id)s AND e.target_id = c.id)
         ORDER BY c.id) AS d
 ORDER BY d.id

-- synapses.net.sql.EDGE_CANDIDATES_SQL[CandidateLists(plan=<VectorPlan.EXACT: 'exact'>, formed_before=True, entity=True, themes=True, timeline=False)]
SELECT d.id, d.weight_anchor, d.entities, d.themes, (extract(epoch FROM d.event_time) * 1000000)::bigint,
       d.event_precision, 1 - (d.embedding <=> %(vector)s::vector) AS cosine
  FROM (SELECT DISTINCT ON (c.id) c.*
          FROM ((SELECT k.id, k.weight_anchor,
       CASE WHEN k.entities && %(own_entities)s::bigint[] THEN k.entities END AS entities,
       CASE WHEN k.themes && %(own_themes)s::varchar[] THEN k.themes END AS themes,
       CASE WHEN k.event_precision = %(own_precision)s THEN k.event_time END AS event_time,
       k.event_precision, k.embedding FROM synapses_knot k JOIN synapses_knotpresence p ON p.knot_id = k.id
    WHERE k.mind_id = %(mind_id)s AND p.is_active AND k.id <> %(knot_id)s AND (k.source_created_at, k.id) < (%(before_at)s, %(before_id)s) ORDER BY (k.embedding <=> %(vector)s::vector) + 0 LIMIT %(embedding_candidates)s) UNION ALL (SELECT k.id, k.weight_anchor,
       CASE WHEN k.entities && %(own_entities)s::bigint[] THEN k.entities END AS entities,
       CASE WHEN k.themes && %(own_themes)s::varchar[] THEN k.themes END AS themes,
       CASE WHEN k.event_precision = %(own_precision)s THEN k.event_time END AS event_time,
       k.event_precision, k.embedding FROM synapses_knot k
    WHERE k.mind_id = %(mind_id)s AND k.id <> %(knot_id)s AND (k.source_created_at, k.id) < (%(before_at)s, %(before_id)s)
      AND (SELECT p.is_active FROM synapses_knotpresence p WHERE p.knot_id = k.id) AND k.entities && %(entities)s::bigint[] ORDER BY k.id DESC LIMIT %(layer_candidates)s) UNION ALL (SELECT k.id, k.weight_anchor,
       CASE WHEN k.entities && %(own_entities)s::bigint[] THEN k.entities END AS entities,
       CASE WHEN k.themes && %(own_themes)s::varchar[] THEN k.themes END AS themes,
       CASE WHEN k.event_precision = %(own_precision)s THEN k.event_time END AS event_time,
       k.event_precision, k.embedding FROM synapses_knot k
    WHERE k.mind_id = %(mind_id)s AND k.id <> %(knot_id)s AND (k.source_created_at, k.id) < (%(before_at)s, %(before_id)s)
      AND (SELECT p.is_active FROM synapses_knotpresence p WHERE p.knot_id = k.id) AND k.themes && %(themes)s::varchar[] ORDER BY k.id DESC LIMIT %(layer_candidates)s)) AS c
         WHERE NOT EXISTS (SELECT 1 FROM synapses_edge e
                            WHERE e.mind_id = %(mind_id)s AND e.source_id = %(knot_id)s AND e.target_id = c.id)
         ORDER BY c.id) AS d
 ORDER BY d.id

-- synapses.net.sql.EDGE_CANDIDATES_SQL[CandidateLists(plan=<VectorPlan.EXACT: 'exact'>, formed_before=True, entity=True, themes=True, timeline=True)]
SELECT d.id, d.weight_anchor, d.entities, d.themes, (extract(epoch FROM d.event_time) * 1000000)::bigint,
       d.event_precision, 1 - (d.embedding <=> %(vector)s::vector) AS cosine
  FROM (SELECT DISTINCT ON (c.id) c.*
          FROM ((SELECT k.id, k.weight_anchor,
       CASE WHEN k.entities && %(own_entities)s::bigint[] THEN k.entities END AS entities,
       CASE WHEN k.themes && %(own_themes)s::varchar[] THEN k.themes END AS themes,
       CASE WHEN k.event_precision = %(own_precision)s THEN k.event_time END AS event_time,
       k.event_precision, k.embedding FROM synapses_knot k JOIN synapses_knotpresence p ON p.knot_id = k.id
    WHERE k.mind_id = %(mind_id)s AND p.is_active AND k.id <> %(knot_id)s AND (k.source_created_at, k.id) < (%(before_at)s, %(before_id)s) ORDER BY (k.embedding <=> %(vector)s::vector) + 0 LIMIT %(embedding_candidates)s) UNION ALL (SELECT k.id, k.weight_anchor,
       CASE WHEN k.entities && %(own_entities)s::bigint[] THEN k.entities END AS entities,
       CASE WHEN k.themes && %(own_themes)s::varchar[] THEN k.themes END AS themes,
       CASE WHEN k.event_precision = %(own_precision)s THEN k.event_time END AS event_time,
       k.event_precision, k.embedding FROM synapses_knot k
    WHERE k.mind_id = %(mind_id)s AND k.id <> %(knot_id)s AND (k.source_created_at, k.id) < (%(before_at)s, %(before_id)s)
      AND (SELECT p.is_active FROM synapses_knotpresence p WHERE p.knot_id = k.id) AND k.entities && %(entities)s::bigint[] ORDER BY k.id DESC LIMIT %(layer_candidates)s) UNION ALL (SELECT k.id, k.weight_anchor,
       CASE WHEN k.entities && %(own_entities)s::bigint[] THEN k.entities END AS entities,
       CASE WHEN k.themes && %(own_themes)s::varchar[] THEN k.themes END AS themes,
       CASE WHEN k.event_precision = %(own_precision)s THEN k.event_time END AS event_time,
       k.event_precision, k.embedding FROM synapses_knot k
    WHERE k.mind_id = %(mind_id)s AND k.id <> %(knot_id)s AND (k.source_created_at, k.id) < (%(before_at)s, %(before_id)s)
      AND (SELECT p.is_active FROM synapses_knotpresence p WHERE p.knot_id = k.id) AND k.themes && %(themes)s::varchar[] ORDER BY k.id DESC LIMIT %(layer_candidates)s) UNION ALL (SELECT around.* FROM ((SELECT k.id, k.weight_anchor,
       CASE WHEN k.entities && %(own_entities)s::bigint[] THEN k.entities END AS entities,
       CASE WHEN k.themes && %(own_themes)s::varchar[] THEN k.themes END AS themes,
       CASE WHEN k.event_precision = %(own_precision)s THEN k.event_time END AS event_time,
       k.event_precision, k.embedding FROM synapses_knot k
    WHERE k.mind_id = %(mind_id)s AND k.id <> %(knot_id)s AND (k.source_created_at, k.id) < (%(before_at)s, %(before_id)s)
      AND (SELECT p.is_active FROM synapses_knotpresence p WHERE p.knot_id = k.id) AND k.event_precision = %(precision)s AND k.event_time >= %(event_time)s AND k.event_time <= %(time_to)s ORDER BY k.event_time LIMIT %(layer_candidates)s) UNION ALL (SELECT k.id, k.weight_anchor,
       CASE WHEN k.entities && %(own_entities)s::bigint[] THEN k.entities END AS entities,
       CASE WHEN k.themes && %(own_themes)s::varchar[] THEN k.themes END AS themes,
       CASE WHEN k.event_precision = %(own_precision)s THEN k.event_time END AS event_time,
       k.event_precision, k.embedding FROM synapses_knot k
    WHERE k.mind_id = %(mind_id)s AND k.id <> %(knot_id)s AND (k.source_created_at, k.id) < (%(before_at)s, %(before_id)s)
      AND (SELECT p.is_active FROM synapses_knotpresence p WHERE p.knot_id = k.id) AND k.event_precision = %(precision)s AND k.event_time < %(event_time)s AND k.event_time >= %(time_from)s ORDER BY k.event_time DESC LIMIT %(layer_candidates)s)) AS around ORDER BY abs(extract(epoch FROM around.event_time - %(event_time)s)) LIMIT %(layer_candidates)s)) AS c
         WHERE NOT EXISTS (SELECT 1 FROM synapses_edge e
                            WHERE e.mind_id = %(mind_id)s AND e.source_id = %(knot_id)s AND e.target_id = c.id)
         ORDER BY c.id) AS d
 ORDER BY d.id

-- synapses.net.sql.EDGE_CANDIDATES_SQL[CandidateLists(plan=<VectorPlan.HNSW: 'hnsw'>, formed_before=False, entity=False, themes=False, timeline=False)]
SELECT d.id, d.weight_anchor, d.entities, d.themes, (extract(epoch FROM d.event_time) * 1000000)::bigint,
       d.event_precision, 1 - (d.embedding <=> %(vector)s::vector) AS cosine
  FROM (SELECT DISTINCT ON (c.id) c.*
          FROM ((SELECT k.id, k.weight_anchor,
       CASE WHEN k.entities && %(own_entities)s::bigint[] THEN k.entities END AS entities,
       CASE WHEN k.themes && %(own_themes)s::varchar[] THEN k.themes END AS themes,
       CASE WHEN k.event_precision = %(own_precision)s THEN k.event_time END AS event_time,
       k.event_precision, k.embedding FROM synapses_knot k JOIN synapses_knotpresence p ON p.knot_id = k.id
    WHERE k.mind_id = %(mind_id)s AND p.is_active AND k.id <> %(knot_id)s  ORDER BY k.embedding <=> %(vector)s::vector LIMIT %(embedding_candidates)s)) AS c
         WHERE NOT EXISTS (SELECT 1 FROM synapses_edge e
                            WHERE e.mind_id = %(mind_id)s AND e.source_id = %(knot_id)s AND e.target_id = c.id)
         ORDER BY c.id) AS d
 ORDER BY d.id

-- synapses.net.sql.EDGE_CANDIDATES_SQL[CandidateLists(plan=<VectorPlan.HNSW: 'hnsw'>, formed_before=False, entity=False, themes=False, timeline=True)]
SELECT d.id, d.weight_anchor, d.entities, d.themes, (extract(epoch FROM d.event_time) * 1000000)::bigint,
       d.event_precision, 1 - (d.embedding <=> %(vector)s::vector) AS cosine
  FROM (SELECT DISTINCT ON (c.id) c.*
          FROM ((SELECT k.id, k.weight_anchor,
       CASE WHEN k.entities && %(own_entities)s::bigint[] THEN k.entities END AS entities,
       CASE WHEN k.themes && %(own_themes)s::varchar[] THEN k.themes END AS themes,
       CASE WHEN k.event_precision = %(own_precision)s THEN k.event_time END AS event_time,
       k.event_precision, k.embedding FROM synapses_knot k JOIN synapses_knotpresence p ON p.knot_id = k.id
    WHERE k.mind_id = %(mind_id)s AND p.is_active AND k.id <> %(knot_id)s  ORDER BY k.embedding <=> %(vector)s::vector LIMIT %(embedding_candidates)s) UNION ALL (SELECT around.* FROM ((SELECT k.id, k.weight_anchor,
       CASE WHEN k.entities && %(own_entities)s::bigint[] THEN k.entities END AS entities,
       CASE WHEN k.themes && %(own_themes)s::varchar[] THEN k.themes END AS themes,
       CASE WHEN k.event_precision = %(own_precision)s THEN k.event_time END AS event_time,
       k.event_precision, k.embedding FROM synapses_knot k
    WHERE k.mind_id = %(mind_id)s AND k.id <> %(knot_id)s 
      AND (SELECT p.is_active FROM synapses_knotpresence p WHERE p.knot_id = k.id) AND k.event_precision = %(precision)s AND k.event_time >= %(event_time)s AND k.event_time <= %(time_to)s ORDER BY k.event_time LIMIT %(layer_candidates)s) UNION ALL (SELECT k.id, k.weight_anchor,
       CASE WHEN k.entities && %(own_entities)s::bigint[] THEN k.entities END AS entities,
       CASE WHEN k.themes && %(own_themes)s::varchar[] THEN k.themes END AS themes,
       CASE WHEN k.event_precision = %(own_precision)s THEN k.event_time END AS event_time,
       k.event_precision, k.embedding FROM synapses_knot k
    WHERE k.mind_id = %(mind_id)s AND k.id <> %(knot_id)s 
      AND (SELECT p.is_active FROM synapses_knotpresence p WHERE p.knot_id = k.id) AND k.event_precision = %(precision)s AND k.event_time < %(event_time)s AND k.event_time >= %(time_from)s ORDER BY k.event_time DESC LIMIT %(layer_candidates)s)) AS around ORDER BY abs(extract(epoch FROM around.event_time - %(event_time)s)) LIMIT %(layer_candidates)s)) AS c
         WHERE NOT EXISTS (SELECT 1 FROM synapses_edge e
                            WHERE e.mind_id = %(mind_id)s AND e.source_id = %(knot_id)s AND e.target_id = c.id)
         ORDER BY c.id) AS d
 ORDER BY d.id

-- synapses.net.sql.EDGE_CANDIDATES_SQL[CandidateLists(plan=<VectorPlan.HNSW: 'hnsw'>, formed_before=False, entity=False, themes=True, timeline=False)]
SELECT d.id, d.weight_anchor, d.entities, d.themes, (extract(epoch FROM d.event_time) * 1000000)::bigint,
       d.event_precision, 1 - (d.embedding <=> %(vector)s::vector) AS cosine
  FROM (SELECT DISTINCT ON (c.id) c.*
          FROM ((SELECT k.id, k.weight_anchor,
       CASE WHEN k.entities && %(own_entities)s::bigint[] THEN k.entities END AS entities,
       CASE WHEN k.themes && %(own_themes)s::varchar[] THEN k.themes END AS themes,
       CASE WHEN k.event_precision = %(own_precision)s THEN k.event_time END AS event_time,
       k.event_precision, k.embedding FROM synapses_knot k JOIN synapses_knotpresence p ON p.knot_id = k.id
    WHERE k.mind_id = %(mind_id)s AND p.is_active AND k.id <> %(knot_id)s  ORDER BY k.embedding <=> %(vector)s::vector LIMIT %(embedding_candidates)s) UNION ALL (SELECT k.id, k.weight_anchor,
       CASE WHEN k.entities && %(own_entities)s::bigint[] THEN k.entities END AS entities,
       CASE WHEN k.themes && %(own_themes)s::varchar[] THEN k.themes END AS themes,
       CASE WHEN k.event_precision = %(own_precision)s THEN k.event_time END AS event_time,
       k.event_precision, k.embedding FROM synapses_knot k
    WHERE k.mind_id = %(mind_id)s AND k.id <> %(knot_id)s 
      AND (SELECT p.is_active FROM synapses_knotpresence p WHERE p.knot_id = k.id) AND k.themes && %(themes)s::varchar[] ORDER BY k.id DESC LIMIT %(layer_candidates)s)) AS c
         WHERE NOT EXISTS (SELECT 1 FROM synapses_edge e
                            WHERE e.mind_id = %(mind_id)s AND e.source_id = %(knot_id)s AND e.target_id = c.id)
         ORDER BY c.id) AS d
 ORDER BY d.id

-- synapses.net.sql.EDGE_CANDIDATES_SQL[CandidateLists(plan=<VectorPlan.HNSW: 'hnsw'>, formed_before=False, entity=False, themes=True, timeline=True)]
SELECT d.id, d.weight_anchor, d.entities, d.themes, (extract(epoch FROM d.event_time) * 1000000)::bigint,
       d.event_precision, 1 - (d.embedding <=> %(vector)s::vector) AS cosine
  FROM (SELECT DISTINCT ON (c.id) c.*
          FROM ((SELECT k.id, k.weight_anchor,
       CASE WHEN k.entities && %(own_entities)s::bigint[] THEN k.entities END AS entities,
       CASE WHEN k.themes && %(own_themes)s::varchar[] THEN k.themes END AS themes,
       CASE WHEN k.event_precision = %(own_precision)s THEN k.event_time END AS event_time,
       k.event_precision, k.embedding FROM synapses_knot k JOIN synapses_knotpresence p ON p.knot_id = k.id
    WHERE k.mind_id = %(mind_id)s AND p.is_active AND k.id <> %(knot_id)s  ORDER BY k.embedding <=> %(vector)s::vector LIMIT %(embedding_candidates)s) UNION ALL (SELECT k.id, k.weight_anchor,
       CASE WHEN k.entities && %(own_entities)s::bigint[] THEN k.entities END AS entities,
       CASE WHEN k.themes && %(own_themes)s::varchar[] THEN k.themes END AS themes,
       CASE WHEN k.event_precision = %(own_precision)s THEN k.event_time END AS event_time,
       k.event_precision, k.embedding FROM synapses_knot k
    WHERE k.mind_id = %(mind_id)s AND k.id <> %(knot_id)s 
      AND (SELECT p.is_active FROM synapses_knotpresence p WHERE p.knot_id = k.id) AND k.themes && %(themes)s::varchar[] ORDER BY k.id DESC LIMIT %(layer_candidates)s) UNION ALL (SELECT around.* FROM ((SELECT k.id, k.weight_anchor,
       CASE WHEN k.entities && %(own_entities)s::bigint[] THEN k.entities END AS entities,
       CASE WHEN k.themes && %(own_themes)s::varchar[] THEN k.themes END AS themes,
       CASE WHEN k.event_precision = %(own_precision)s THEN k.event_time END AS event_time,
       k.event_precision, k.embedding FROM synapses_knot k
    WHERE k.mind_id = %(mind_id)s AND k.id <> %(knot_id)s 
      AND (SELECT p.is_active FROM synapses_knotpresence p WHERE p.knot_id = k.id) AND k.event_precision = %(precision)s AND k.event_time >= %(event_time)s AND k.event_time <= %(time_to)s ORDER BY k.event_time LIMIT %(layer_candidates)s) UNION ALL (SELECT k.id, k.weight_anchor,
       CASE WHEN k.entities && %(own_entities)s::bigint[] THEN k.entities END AS entities,
       CASE WHEN k.themes && %(own_themes)s::varchar[] THEN k.themes END AS themes,
       CASE WHEN k.event_precision = %(own_precision)s THEN k.event_time END AS event_time,
       k.event_precision, k.embedding FROM synapses_knot k
    WHERE k.mind_id = %(mind_id)s AND k.id <> %(knot_id)s 
      AND (SELECT p.is_active FROM synapses_knotpresence p WHERE p.knot_id = k.id) AND k.event_precision = %(precision)s AND k.event_time < %(event_time)s AND k.event_time >= %(time_from)s ORDER BY k.event_time DESC LIMIT %(layer_candidates)s)) AS around ORDER BY abs(extract(epoch FROM around.event_time - %(event_time)s)) LIMIT %(layer_candidates)s)) AS c
         WHERE NOT EXISTS (SELECT 1 FROM synapses_edge e
                            WHERE e.mind_id = %(mind_id)s AND e.source_id = %(knot_id)s AND e.target_id = c.id)
         ORDER BY c.id) AS d
 ORDER BY d.id

-- synapses.net.sql.EDGE_CANDIDATES_SQL[CandidateLists(plan=<VectorPlan.HNSW: 'hnsw'>, formed_before=False, entity=True, themes=False, timeline=False)]
SELECT d.id, d.weight_anchor, d.entities, d.themes, (extract(epoch FROM d.event_time) * 1000000)::bigint,
       d.event_precision, 1 - (d.embedding <=> %(vector)s::vector) AS cosine
  FROM (SELECT DISTINCT ON (c.id) c.*
          FROM ((SELECT k.id, k.weight_anchor,
       CASE WHEN k.entities && %(own_entities)s::bigint[] THEN k.entities END AS entities,
       CASE WHEN k.themes && %(own_themes)s::varchar[] THEN k.themes END AS themes,
       CASE WHEN k.event_precision = %(own_precision)s THEN k.event_time END AS event_time,
       k.event_precision, k.embedding FROM synapses_knot k JOIN synapses_knotpresence p ON p.knot_id = k.id
    WHERE k.mind_id = %(mind_id)s AND p.is_active AND k.id <> %(knot_id)s  ORDER BY k.embedding <=> %(vector)s::vector LIMIT %(embedding_candidates)s) UNION ALL (SELECT k.id, k.weight_anchor,
       CASE WHEN k.entities && %(own_entities)s::bigint[] THEN k.entities END AS entities,
       CASE WHEN k.themes && %(own_themes)s::varchar[] THEN k.themes END AS themes,
       CASE WHEN k.event_precision = %(own_precision)s THEN k.event_time END AS event_time,
       k.event_precision, k.embedding FROM synapses_knot k
    WHERE k.mind_id = %(mind_id)s AND k.id <> %(knot_id)s 
      AND (SELECT p.is_active FROM synapses_knotpresence p WHERE p.knot_id = k.id) AND k.entities && %(entities)s::bigint[] ORDER BY k.id DESC LIMIT %(layer_candidates)s)) AS c
         WHERE NOT EXISTS (SELECT 1 FROM synapses_edge e
                            WHERE e.mind_id = %(mind_id)s AND e.source_id = %(knot_id)s AND e.target_id = c.id)
         ORDER BY c.id) AS d
 ORDER BY d.id

-- synapses.net.sql.EDGE_CANDIDATES_SQL[CandidateLists(plan=<VectorPlan.HNSW: 'hnsw'>, formed_before=False, entity=True, themes=False, timeline=True)]
SELECT d.id, d.weight_anchor, d.entities, d.themes, (extract(epoch FROM d.event_time) * 1000000)::bigint,
       d.event_precision, 1 - (d.embedding <=> %(vector)s::vector) AS cosine
  FROM (SELECT DISTINCT ON (c.id) c.*
          FROM ((SELECT k.id, k.weight_anchor,
       CASE WHEN k.entities && %(own_entities)s::bigint[] THEN k.entities END AS entities,
       CASE WHEN k.themes && %(own_themes)s::varchar[] THEN k.themes END AS themes,
       CASE WHEN k.event_precision = %(own_precision)s THEN k.event_time END AS event_time,
       k.event_precision, k.embedding FROM synapses_knot k JOIN synapses_knotpresence p ON p.knot_id = k.id
    WHERE k.mind_id = %(mind_id)s AND p.is_active AND k.id <> %(knot_id)s  ORDER BY k.embedding <=> %(vector)s::vector LIMIT %(embedding_candidates)s) UNION ALL (SELECT k.id, k.weight_anchor,
       CASE WHEN k.entities && %(own_entities)s::bigint[] THEN k.entities END AS entities,
       CASE WHEN k.themes && %(own_themes)s::varchar[] THEN k.themes END AS themes,
       CASE WHEN k.event_precision = %(own_precision)s THEN k.event_time END AS event_time,
       k.event_precision, k.embedding FROM synapses_knot k
    WHERE k.mind_id = %(mind_id)s AND k.id <> %(knot_id)s 
      AND (SELECT p.is_active FROM synapses_knotpresence p WHERE p.knot_id = k.id) AND k.entities && %(entities)s::bigint[] ORDER BY k.id DESC LIMIT %(layer_candidates)s) UNION ALL (SELECT around.* FROM ((SELECT k.id, k.weight_anchor,
       CASE WHEN k.entities && %(own_entities)s::bigint[] THEN k.entities END AS entities,
       CASE WHEN k.themes && %(own_themes)s::varchar[] THEN k.themes END AS themes,
       CASE WHEN k.event_precision = %(own_precision)s THEN k.event_time END AS event_time,
       k.event_precision, k.embedding FROM synapses_knot k
    WHERE k.mind_id = %(mind_id)s AND k.id <> %(knot_id)s 
      AND (SELECT p.is_active FROM synapses_knotpresence p WHERE p.knot_id = k.id) AND k.event_precision = %(precision)s AND k.event_time >= %(event_time)s AND k.event_time <= %(time_to)s ORDER BY k.event_time LIMIT %(layer_candidates)s) UNION ALL (SELECT k.id, k.weight_anchor,
       CASE WHEN k.entities && %(own_entities)s::bigint[] THEN k.entities END AS entities,
       CASE WHEN k.themes && %(own_themes)s::varchar[] THEN k.themes END AS themes,
       CASE WHEN k.event_precision = %(own_precision)s THEN k.event_time END AS event_time,
       k.event_precision, k.embedding FROM synapses_knot k
    WHERE k.mind_id = %(mind_id)s AND k.id <> %(knot_id)s 
      AND (SELECT p.is_active FROM synapses_knotpresence p WHERE p.knot_id = k.id) AND k.event_precision = %(precision)s AND k.event_time < %(event_time)s AND k.event_time >= %(time_from)s ORDER BY k.event_time DESC LIMIT %(layer_candidates)s)) AS around ORDER BY abs(extract(epoch FROM around.event_time - %(event_time)s)) LIMIT %(layer_candidates)s)) AS c
         WHERE NOT EXISTS (SELECT 1 FROM synapses_edge e
                            WHERE e.mind_id = %(mind_id)s AND e.source_id = %(knot_id)s AND e.target_id = c.id)
         ORDER BY c.id) AS d
 ORDER BY d.id

-- synapses.net.sql.EDGE_CANDIDATES_SQL[CandidateLists(plan=<VectorPlan.HNSW: 'hnsw'>, formed_before=False, entity=True, themes=True, timeline=False)]
SELECT d.id, d.weight_anchor, d.entities, d.themes, (extract(epoch FROM d.event_time) * 1000000)::bigint,
       d.event_precision, 1 - (d.embedding <=> %(vector)s::vector) AS cosine
  FROM (SELECT DISTINCT ON (c.id) c.*
          FROM ((SELECT k.id, k.weight_anchor,
       CASE WHEN k.entities && %(own_entities)s::bigint[] THEN k.entities END AS entities,
       CASE WHEN k.themes && %(own_themes)s::varchar[] THEN k.themes END AS themes,
       CASE WHEN k.event_precision = %(own_precision)s THEN k.event_time END AS event_time,
       k.event_precision, k.embedding FROM synapses_knot k JOIN synapses_knotpresence p ON p.knot_id = k.id
    WHERE k.mind_id = %(mind_id)s AND p.is_active AND k.id <> %(knot_id)s  ORDER BY k.embedding <=> %(vector)s::vector LIMIT %(embedding_candidates)s) UNION ALL (SELECT k.id, k.weight_anchor,
       CASE WHEN k.entities && %(own_entities)s::bigint[] THEN k.entities END AS entities,
       CASE WHEN k.themes && %(own_themes)s::varchar[] THEN k.themes END AS themes,
       CASE WHEN k.event_precision = %(own_precision)s THEN k.event_time END AS event_time,
       k.event_precision, k.embedding FROM synapses_knot k
    WHERE k.mind_id = %(mind_id)s AND k.id <> %(knot_id)s 
      AND (SELECT p.is_active FROM synapses_knotpresence p WHERE p.knot_id = k.id) AND k.entities && %(entities)s::bigint[] ORDER BY k.id DESC LIMIT %(layer_candidates)s) UNION ALL (SELECT k.id, k.weight_anchor,
       CASE WHEN k.entities && %(own_entities)s::bigint[] THEN k.entities END AS entities,
       CASE WHEN k.themes && %(own_themes)s::varchar[] THEN k.themes END AS themes,
       CASE WHEN k.event_precision = %(own_precision)s THEN k.event_time END AS event_time,
       k.event_precision, k.embedding FROM synapses_knot k
    WHERE k.mind_id = %(mind_id)s AND k.id <> %(knot_id)s 
      AND (SELECT p.is_active FROM synapses_knotpresence p WHERE p.knot_id = k.id) AND k.themes && %(themes)s::varchar[] ORDER BY k.id DESC LIMIT %(layer_candidates)s)) AS c
         WHERE NOT EXISTS (SELECT 1 FROM synapses_edge e
                            WHERE e.mind_id = %(mind_id)s AND e.source_id = %(knot_id)s AND e.target_id = c.id)
         ORDER BY c.id) AS d
 ORDER BY d.id

-- synapses.net.sql.EDGE_CANDIDATES_SQL[CandidateLists(plan=<VectorPlan.HNSW: 'hnsw'>, formed_before=False, entity=True, themes=True, timeline=True)]
SELECT d.id, d.weight_anchor, d.entities, d.themes, (extract(epoch FROM d.event_time) * 1000000)::bigint,
       d.event_precision, 1 - (d.embedding <=> %(vector)s::vector) AS cosine
  FROM (SELECT DISTINCT ON (c.id) c.*
          FROM ((SELECT k.id, k.weight_anchor,
       CASE WHEN k.entities && %(own_entities)s::bigint[] THEN k.entities END AS entities,
       CASE WHEN k.themes && %(own_themes)s::varchar[] THEN k.themes END AS themes,
       CASE WHEN k.event_precision = %(own_precision)s THEN k.event_time END AS event_time,
       k.event_precision, k.embedding FROM synapses_knot k JOIN synapses_knotpresence p ON p.knot_id = k.id
    WHERE k.mind_id = %(mind_id)s AND p.is_active AND k.id <> %(knot_id)s  ORDER BY k.embedding <=> %(vector)s::vector LIMIT %(embedding_candidates)s) UNION ALL (SELECT k.id, k.weight_anchor,
       CASE WHEN k.entities && %(own_entities)s::bigint[] THEN k.entities END AS entities,
       CASE WHEN k.themes && %(own_themes)s::varchar[] THEN k.themes END AS themes,
       CASE WHEN k.event_precision = %(own_precision)s THEN k.event_time END AS event_time,
       k.event_precision, k.embedding FROM synapses_knot k
    WHERE k.mind_id = %(mind_id)s AND k.id <> %(knot_id)s 
      AND (SELECT p.is_active FROM synapses_knotpresence p WHERE p.knot_id = k.id) AND k.entities && %(entities)s::bigint[] ORDER BY k.id DESC LIMIT %(layer_candidates)s) UNION ALL (SELECT k.id, k.weight_anchor,
       CASE WHEN k.entities && %(own_entities)s::bigint[] THEN k.entities END AS entities,
       CASE WHEN k.themes && %(own_themes)s::varchar[] THEN k.themes END AS themes,
       CASE WHEN k.event_precision = %(own_precision)s THEN k.event_time END AS event_time,
       k.event_precision, k.embedding FROM synapses_knot k
    WHERE k.mind_id = %(mind_id)s AND k.id <> %(knot_id)s 
      AND (SELECT p.is_active FROM synapses_knotpresence p WHERE p.knot_id = k.id) AND k.themes && %(themes)s::varchar[] ORDER BY k.id DESC LIMIT %(layer_candidates)s) UNION ALL (SELECT around.* FROM ((SELECT k.id, k.weight_anchor,
       CASE WHEN k.entities && %(own_entities)s::bigint[] THEN k.entities END AS entities,
       CASE WHEN k.themes && %(own_themes)s::varchar[] THEN k.themes END AS themes,
       CASE WHEN k.event_precision = %(own_precision)s THEN k.event_time END AS event_time,
       k.event_precision, k.embedding FROM synapses_knot k
    WHERE k.mind_id = %(mind_id)s AND k.id <> %(knot_id)s 
      AND (SELECT p.is_active FROM synapses_knotpresence p WHERE p.knot_id = k.id) AND k.event_precision = %(precision)s AND k.event_time >= %(event_time)s AND k.event_time <= %(time_to)s ORDER BY k.event_time LIMIT %(layer_candidates)s) UNION ALL (SELECT k.id, k.weight_anchor,
       CASE WHEN k.entities && %(own_entities)s::bigint[] THEN k.entities END AS entities,
       CASE WHEN k.themes && %(own_themes)s::varchar[] THEN k.themes END AS themes,
       CASE WHEN k.event_precision = %(own_precision)s THEN k.event_time END AS event_time,
       k.event_precision, k.embedding FROM synapses_knot k
    WHERE k.mind_id = %(mind_id)s AND k.id <> %(knot_id)s 
      AND (SELECT p.is_active FROM synapses_knotpresence p WHERE p.knot_id = k.id) AND k.event_precision = %(precision)s AND k.event_time < %(event_time)s AND k.event_time >= %(time_from)s ORDER BY k.event_time DESC LIMIT %(layer_candidates)s)) AS around ORDER BY abs(extract(epoch FROM around.event_time - %(event_time)s)) LIMIT %(layer_candidates)s)) AS c
         WHERE NOT EXISTS (SELECT 1 FROM synapses_edge e
                            WHERE e.mind_id = %(mind_id)s AND e.source_id = %(knot_id)s AND e.target_id = c.id)
         ORDER BY c.id) AS d
 ORDER BY d.id

-- synapses.net.sql.EDGE_CANDIDATES_SQL[CandidateLists(plan=<VectorPlan.HNSW: 'hnsw'>, formed_before=True, entity=False, themes=False, timeline=False)]
SELECT d.id, d.weight_anchor, d.entities, d.themes, (extract(epoch FROM d.event_time) * 1000000)::bigint,
       d.event_precision, 1 - (d.embedding <=> %(vector)s::vector) AS cosine
  FROM (SELECT DISTINCT ON (c.id) c.*
          FROM ((SELECT k.id, k.weight_anchor,
       CASE WHEN k.entities && %(own_entities)s::bigint[] THEN k.entities END AS entities,
       CASE WHEN k.themes && %(own_themes)s::varchar[] THEN k.themes END AS themes,
       CASE WHEN k.event_precision = %(own_precision)s THEN k.event_time END AS event_time,
       k.event_precision, k.embedding FROM synapses_knot k JOIN synapses_knotpresence p ON p.knot_id = k.id
    WHERE k.mind_id = %(mind_id)s AND p.is_active AND k.id <> %(knot_id)s AND (k.source_created_at, k.id) < (%(before_at)s, %(before_id)s) ORDER BY k.embedding <=> %(vector)s::vector LIMIT %(embedding_candidates)s)) AS c
         WHERE NOT EXISTS (SELECT 1 FROM synapses_edge e
                            WHERE e.mind_id = %(mind_id)s AND e.source_id = %(knot_id)s AND e.target_id = c.id)
         ORDER BY c.id) AS d
 ORDER BY d.id

-- synapses.net.sql.EDGE_CANDIDATES_SQL[CandidateLists(plan=<VectorPlan.HNSW: 'hnsw'>, formed_before=True, entity=False, themes=False, timeline=True)]
SELECT d.id, d.weight_anchor, d.entities, d.themes, (extract(epoch FROM d.event_time) * 1000000)::bigint,
       d.event_precision, 1 - (d.embedding <=> %(vector)s::vector) AS cosine
  FROM (SELECT DISTINCT ON (c.id) c.*
          FROM ((SELECT k.id, k.weight_anchor,
       CASE WHEN k.entities && %(own_entities)s::bigint[] THEN k.entities END AS entities,
       CASE WHEN k.themes && %(own_themes)s::varchar[] THEN k.themes END AS themes,
       CASE WHEN k.event_precision = %(own_precision)s THEN k.event_time END AS event_time,
       k.event_precision, k.embedding FROM synapses_knot k JOIN synapses_knotpresence p ON p.knot_id = k.id
    WHERE k.mind_id = %(mind_id)s AND p.is_active AND k.id <> %(knot_id)s AND (k.source_created_at, k.id) < (%(before_at)s, %(before_id)s) ORDER BY k.embedding <=> %(vector)s::vector LIMIT %(embedding_candidates)s) UNION ALL (SELECT around.* FROM ((SELECT k.id, k.weight_anchor,
       CASE WHEN k.entities && %(own_entities)s::bigint[] THEN k.entities END AS entities,
       CASE WHEN k.themes && %(own_themes)s::varchar[] THEN k.themes END AS themes,
       CASE WHEN k.event_precision = %(own_precision)s THEN k.event_time END AS event_time,
       k.event_precision, k.embedding FROM synapses_knot k
    WHERE k.mind_id = %(mind_id)s AND k.id <> %(knot_id)s AND (k.source_created_at, k.id) < (%(before_at)s, %(before_id)s)
      AND (SELECT p.is_active FROM synapses_knotpresence p WHERE p.knot_id = k.id) AND k.event_precision = %(precision)s AND k.event_time >= %(event_time)s AND k.event_time <= %(time_to)s ORDER BY k.event_time LIMIT %(layer_candidates)s) UNION ALL (SELECT k.id, k.weight_anchor,
       CASE WHEN k.entities && %(own_entities)s::bigint[] THEN k.entities END AS entities,
       CASE WHEN k.themes && %(own_themes)s::varchar[] THEN k.themes END AS themes,
       CASE WHEN k.event_precision = %(own_precision)s THEN k.event_time END AS event_time,
       k.event_precision, k.embedding FROM synapses_knot k
    WHERE k.mind_id = %(mind_id)s AND k.id <> %(knot_id)s AND (k.source_created_at, k.id) < (%(before_at)s, %(before_id)s)
      AND (SELECT p.is_active FROM synapses_knotpresence p WHERE p.knot_id = k.id) AND k.event_precision = %(precision)s AND k.event_time < %(event_time)s AND k.event_time >= %(time_from)s ORDER BY k.event_time DESC LIMIT %(layer_candidates)s)) AS around ORDER BY abs(extract(epoch FROM around.event_time - %(event_time)s)) LIMIT %(layer_candidates)s)) AS c
         WHERE NOT EXISTS (SELECT 1 FROM synapses_edge e
                            WHERE e.mind_id = %(mind_id)s AND e.source_id = %(knot_id)s AND e.target_id = c.id)
         ORDER BY c.id) AS d
 ORDER BY d.id

-- synapses.net.sql.EDGE_CANDIDATES_SQL[CandidateLists(plan=<VectorPlan.HNSW: 'hnsw'>, formed_before=True, entity=False, themes=True, timeline=False)]
SELECT d.id, d.weight_anchor, d.entities, d.themes, (extract(epoch FROM d.event_time) * 1000000)::bigint,
       d.event_precision, 1 - (d.embedding <=> %(vector)s::vector) AS cosine
  FROM (SELECT DISTINCT ON (c.id) c.*
          FROM ((SELECT k.id, k.weight_anchor,
       CASE WHEN k.entities && %(own_entities)s::bigint[] THEN k.entities END AS entities,
       CASE WHEN k.themes && %(own_themes)s::varchar[] THEN k.themes END AS themes,
       CASE WHEN k.event_precision = %(own_precision)s THEN k.event_time END AS event_time,
       k.event_precision, k.embedding FROM synapses_knot k JOIN synapses_knotpresence p ON p.knot_id = k.id
    WHERE k.mind_id = %(mind_id)s AND p.is_active AND k.id <> %(knot_id)s AND (k.source_created_at, k.id) < (%(before_at)s, %(before_id)s) ORDER BY k.embedding <=> %(vector)s::vector LIMIT %(embedding_candidates)s) UNION ALL (SELECT k.id, k.weight_anchor,
       CASE WHEN k.entities && %(own_entities)s::bigint[] THEN k.entities END AS entities,
       CASE WHEN k.themes && %(own_themes)s::varchar[] THEN k.themes END AS themes,
       CASE WHEN k.event_precision = %(own_precision)s THEN k.event_time END AS event_time,
       k.event_precision, k.embedding FROM synapses_knot k
    WHERE k.mind_id = %(mind_id)s AND k.id <> %(knot_id)s AND (k.source_created_at, k.id) < (%(before_at)s, %(before_id)s)
      AND (SELECT p.is_active FROM synapses_knotpresence p WHERE p.knot_id = k.id) AND k.themes && %(themes)s::varchar[] ORDER BY k.id DESC LIMIT %(layer_candidates)s)) AS c
         WHERE NOT EXISTS (SELECT 1 FROM synapses_edge e
                            WHERE e.mind_id = %(mind_id)s AND e.source_id = %(knot_id)s AND e.target_id = c.id)
         ORDER BY c.id) AS d
 ORDER BY d.id

-- synapses.net.sql.EDGE_CANDIDATES_SQL[CandidateLists(plan=<VectorPlan.HNSW: 'hnsw'>, formed_before=True, entity=False, themes=True, timeline=True)]
SELECT d.id, d.weight_anchor, d.entities, d.themes, (extract(epoch FROM d.event_time) * 1000000)::bigint,
       d.event_precision, 1 - (d.embedding <=> %(vector)s::vector) AS cosine
  FROM (SELECT DISTINCT ON (c.id) c.*
          FROM ((SELECT k.id, k.weight_anchor,
       CASE WHEN k.entities && %(own_entities)s::bigint[] THEN k.entities END AS entities,
       CASE WHEN k.themes && %(own_themes)s::varchar[] THEN k.themes END AS themes,
       CASE WHEN k.event_precision = %(own_precision)s THEN k.event_time END AS event_time,
       k.event_precision, k.embedding FROM synapses_knot k JOIN synapses_knotpresence p ON p.knot_id = k.id
    WHERE k.mind_id = %(mind_id)s AND p.is_active AND k.id <> %(knot_id)s AND (k.source_created_at, k.id) < (%(before_at)s, %(before_id)s) ORDER BY k.embedding <=> %(vector)s::vector LIMIT %(embedding_candidates)s) UNION ALL (SELECT k.id, k.weight_anchor,
       CASE WHEN k.entities && %(own_entities)s::bigint[] THEN k.entities END AS entities,
       CASE WHEN k.themes && %(own_themes)s::varchar[] THEN k.themes END AS themes,
       CASE WHEN k.event_precision = %(own_precision)s THEN k.event_time END AS event_time,
       k.event_precision, k.embedding FROM synapses_knot k
    WHERE k.mind_id = %(mind_id)s AND k.id <> %(knot_id)s AND (k.source_created_at, k.id) < (%(before_at)s, %(before_id)s)
      AND (SELECT p.is_active FROM synapses_knotpresence p WHERE p.knot_id = k.id) AND k.themes && %(themes)s::varchar[] ORDER BY k.id DESC LIMIT %(layer_candidates)s) UNION ALL (SELECT around.* FROM ((SELECT k.id, k.weight_anchor,
       CASE WHEN k.entities && %(own_entities)s::bigint[] THEN k.entities END AS entities,
       CASE WHEN k.themes && %(own_themes)s::varchar[] THEN k.themes END AS themes,
       CASE WHEN k.event_precision = %(own_precision)s THEN k.event_time END AS event_time,
       k.event_precision, k.embedding FROM synapses_knot k
    WHERE k.mind_id = %(mind_id)s AND k.id <> %(knot_id)s AND (k.source_created_at, k.id) < (%(before_at)s, %(before_id)s)
      AND (SELECT p.is_active FROM synapses_knotpresence p WHERE p.knot_id = k.id) AND k.event_precision = %(precision)s AND k.event_time >= %(event_time)s AND k.event_time <= %(time_to)s ORDER BY k.event_time LIMIT %(layer_candidates)s) UNION ALL (SELECT k.id, k.weight_anchor,
       CASE WHEN k.entities && %(own_entities)s::bigint[] THEN k.entities END AS entities,
       CASE WHEN k.themes && %(own_themes)s::varchar[] THEN k.themes END AS themes,
       CASE WHEN k.event_precision = %(own_precision)s THEN k.event_time END AS event_time,
       k.event_precision, k.embedding FROM synapses_knot k
    WHERE k.mind_id = %(mind_id)s AND k.id <> %(knot_id)s AND (k.source_created_at, k.id) < (%(before_at)s, %(before_id)s)
      AND (SELECT p.is_active FROM synapses_knotpresence p WHERE p.knot_id = k.id) AND k.event_precision = %(precision)s AND k.event_time < %(event_time)s AND k.event_time >= %(time_from)s ORDER BY k.event_time DESC LIMIT %(layer_candidates)s)) AS around ORDER BY abs(extract(epoch FROM around.event_time - %(event_time)s)) LIMIT %(layer_candidates)s)) AS c
         WHERE NOT EXISTS (SELECT 1 FROM synapses_edge e
                            WHERE e.mind_id = %(mind_id)s AND e.source_id = %(knot_id)s AND e.target_id = c.id)
         ORDER BY c.id) AS d
 ORDER BY d.id

-- synapses.net.sql.EDGE_CANDIDATES_SQL[CandidateLists(plan=<VectorPlan.HNSW: 'hnsw'>, formed_before=True, entity=True, themes=False, timeline=False)]
SELECT d.id, d.weight_anchor, d.entities, d.themes, (extract(epoch FROM d.event_time) * 1000000)::bigint,
       d.event_precision, 1 - (d.embedding <=> %(vector)s::vector) AS cosine
  FROM (SELECT DISTINCT ON (c.id) c.*
          FROM ((SELECT k.id, k.weight_anchor,
       CASE WHEN k.entities && %(own_entities)s::bigint[] THEN k.entities END AS entities,
       CASE WHEN k.themes && %(own_themes)s::varchar[] THEN k.themes END AS themes,
       CASE WHEN k.event_precision = %(own_precision)s THEN k.event_time END AS event_time,
       k.event_precision, k.embedding FROM synapses_knot k JOIN synapses_knotpresence p ON p.knot_id = k.id
    WHERE k.mind_id = %(mind_id)s AND p.is_active AND k.id <> %(knot_id)s AND (k.source_created_at, k.id) < (%(before_at)s, %(before_id)s) ORDER BY k.embedding <=> %(vector)s::vector LIMIT %(embedding_candidates)s) UNION ALL (SELECT k.id, k.weight_anchor,
       CASE WHEN k.entities && %(own_entities)s::bigint[] THEN k.entities END AS entities,
       CASE WHEN k.themes && %(own_themes)s::varchar[] THEN k.themes END AS themes,
       CASE WHEN k.event_precision = %(own_precision)s THEN k.event_time END AS event_time,
       k.event_precision, k.embedding FROM synapses_knot k
    WHERE k.mind_id = %(mind_id)s AND k.id <> %(knot_id)s AND (k.source_created_at, k.id) < (%(before_at)s, %(before_id)s)
      AND (SELECT p.is_active FROM synapses_knotpresence p WHERE p.knot_id = k.id) AND k.entities && %(entities)s::bigint[] ORDER BY k.id DESC LIMIT %(layer_candidates)s)) AS c
         WHERE NOT EXISTS (SELECT 1 FROM synapses_edge e
                            WHERE e.mind_id = %(mind_id)s AND e.source_id = %(knot_id)s AND e.target_id = c.id)
         ORDER BY c.id) AS d
 ORDER BY d.id

-- synapses.net.sql.EDGE_CANDIDATES_SQL[CandidateLists(plan=<VectorPlan.HNSW: 'hnsw'>, formed_before=True, entity=True, themes=False, timeline=True)]
SELECT d.id, d.weight_anchor, d.entities, d.themes, (extract(epoch FROM d.event_time) * 1000000)::bigint,
       d.event_precision, 1 - (d.embedding <=> %(vector)s::vector) AS cosine
  FROM (SELECT DISTINCT ON (c.id) c.*
          FROM ((SELECT k.id, k.weight_anchor,
       CASE WHEN k.entities && %(own_entities)s::bigint[] THEN k.entities END AS entities,
       CASE WHEN k.themes && %(own_themes)s::varchar[] THEN k.themes END AS themes,
       CASE WHEN k.event_precision = %(own_precision)s THEN k.event_time END AS event_time,
       k.event_precision, k.embedding FROM synapses_knot k JOIN synapses_knotpresence p ON p.knot_id = k.id
    WHERE k.mind_id = %(mind_id)s AND p.is_active AND k.id <> %(knot_id)s AND (k.source_created_at, k.id) < (%(before_at)s, %(before_id)s) ORDER BY k.embedding <=> %(vector)s::vector LIMIT %(embedding_candidates)s) UNION ALL (SELECT k.id, k.weight_anchor,
       CASE WHEN k.entities && %(own_entities)s::bigint[] THEN k.entities END AS entities,
       CASE WHEN k.themes && %(own_themes)s::varchar[] THEN k.themes END AS themes,
       CASE WHEN k.event_precision = %(own_precision)s THEN k.event_time END AS event_time,
       k.event_precision, k.embedding FROM synapses_knot k
    WHERE k.mind_id = %(mind_id)s AND k.id <> %(knot_id)s AND (k.source_created_at, k.id) < (%(before_at)s, %(before_id)s)
      AND (SELECT p.is_active FROM synapses_knotpresence p WHERE p.knot_id = k.id) AND k.entities && %(entities)s::bigint[] ORDER BY k.id DESC LIMIT %(layer_candidates)s) UNION ALL (SELECT around.* FROM ((SELECT k.id, k.weight_anchor,
       CASE WHEN k.entities && %(own_entities)s::bigint[] THEN k.entities END AS entities,
       CASE WHEN k.themes && %(own_themes)s::varchar[] THEN k.themes END AS themes,
       CASE WHEN k.event_precision = %(own_precision)s THEN k.event_time END AS event_time,
       k.event_precision, k.embedding FROM synapses_knot k
    WHERE k.mind_id = %(mind_id)s AND k.id <> %(knot_id)s AND (k.source_created_at, k.id) < (%(before_at)s, %(before_id)s)
      AND (SELECT p.is_active FROM synapses_knotpresence p WHERE p.knot_id = k.id) AND k.event_precision = %(precision)s AND k.event_time >= %(event_time)s AND k.event_time <= %(time_to)s ORDER BY k.event_time LIMIT %(layer_candidates)s) UNION ALL (SELECT k.id, k.weight_anchor,
       CASE WHEN k.entities && %(own_entities)s::bigint[] THEN k.entities END AS entities,
       CASE WHEN k.themes && %(own_themes)s::varchar[] THEN k.themes END AS themes,
       CASE WHEN k.event_precision = %(own_precision)s THEN k.event_time END AS event_time,
       k.event_precision, k.embedding FROM synapses_knot k
    WHERE k.mind_id = %(mind_id)s AND k.id <> %(knot_id)s AND (k.source_created_at, k.id) < (%(before_at)s, %(before_id)s)
      AND (SELECT p.is_active FROM synapses_knotpresence p WHERE p.knot_id = k.id) AND k.event_precision = %(precision)s AND k.event_time < %(event_time)s AND k.event_time >= %(time_from)s ORDER BY k.event_time DESC LIMIT %(layer_candidates)s)) AS around ORDER BY abs(extract(epoch FROM around.event_time - %(event_time)s)) LIMIT %(layer_candidates)s)) AS c
         WHERE NOT EXISTS (SELECT 1 FROM synapses_edge e
                            WHERE e.mind_id = %(mind_id)s AND e.source_id = %(knot_id)s AND e.target_id = c.id)
         ORDER BY c.id) AS d
 ORDER BY d.id

-- synapses.net.sql.EDGE_CANDIDATES_SQL[CandidateLists(plan=<VectorPlan.HNSW: 'hnsw'>, formed_before=True, entity=True, themes=True, timeline=False)]
SELECT d.id, d.weight_anchor, d.entities, d.themes, (extract(epoch FROM d.event_time) * 1000000)::bigint,
       d.event_precision, 1 - (d.embedding <=> %(vector)s::vector) AS cosine
  FROM (SELECT DISTINCT ON (c.id) c.*
          FROM ((SELECT k.id, k.weight_anchor,
       CASE WHEN k.entities && %(own_entities)s::bigint[] THEN k.entities END AS entities,
       CASE WHEN k.themes && %(own_themes)s::varchar[] THEN k.themes END AS themes,
       CASE WHEN k.event_precision = %(own_precision)s THEN k.event_time END AS event_time,
       k.event_precision, k.embedding FROM synapses_knot k JOIN synapses_knotpresence p ON p.knot_id = k.id
    WHERE k.mind_id = %(mind_id)s AND p.is_active AND k.id <> %(knot_id)s AND (k.source_created_at, k.id) < (%(before_at)s, %(before_id)s) ORDER BY k.embedding <=> %(vector)s::vector LIMIT %(embedding_candidates)s) UNION ALL (SELECT k.id, k.weight_anchor,
       CASE WHEN k.entities && %(own_entities)s::bigint[] THEN k.entities END AS entities,
       CASE WHEN k.themes && %(own_themes)s::varchar[] THEN k.themes END AS themes,
       CASE WHEN k.event_precision = %(own_precision)s THEN k.event_time END AS event_time,
       k.event_precision, k.embedding FROM synapses_knot k
    WHERE k.mind_id = %(mind_id)s AND k.id <> %(knot_id)s AND (k.source_created_at, k.id) < (%(before_at)s, %(before_id)s)
      AND (SELECT p.is_active FROM synapses_knotpresence p WHERE p.knot_id = k.id) AND k.entities && %(entities)s::bigint[] ORDER BY k.id DESC LIMIT %(layer_candidates)s) UNION ALL (SELECT k.id, k.weight_anchor,
       CASE WHEN k.entities && %(own_entities)s::bigint[] THEN k.entities END AS entities,
       CASE WHEN k.themes && %(own_themes)s::varchar[] THEN k.themes END AS themes,
       CASE WHEN k.event_precision = %(own_precision)s THEN k.event_time END AS event_time,
       k.event_precision, k.embedding FROM synapses_knot k
    WHERE k.mind_id = %(mind_id)s AND k.id <> %(knot_id)s AND (k.source_created_at, k.id) < (%(before_at)s, %(before_id)s)
      AND (SELECT p.is_active FROM synapses_knotpresence p WHERE p.knot_id = k.id) AND k.themes && %(themes)s::varchar[] ORDER BY k.id DESC LIMIT %(layer_candidates)s)) AS c
         WHERE NOT EXISTS (SELECT 1 FROM synapses_edge e
                            WHERE e.mind_id = %(mind_id)s AND e.source_id = %(knot_id)s AND e.target_id = c.id)
         ORDER BY c.id) AS d
 ORDER BY d.id

-- synapses.net.sql.EDGE_CANDIDATES_SQL[CandidateLists(plan=<VectorPlan.HNSW: 'hnsw'>, formed_before=True, entity=True, themes=True, timeline=True)]
SELECT d.id, d.weight_anchor, d.entities, d.themes, (extract(epoch FROM d.event_time) * 1000000)::bigint,
       d.event_precision, 1 - (d.embedding <=> %(vector)s::vector) AS cosine
  FROM (SELECT DISTINCT ON (c.id) c.*
          FROM ((SELECT k.id, k.weight_anchor,
       CASE WHEN k.entities && %(own_entities)s::bigint[] THEN k.entities END AS entities,
       CASE WHEN k.themes && %(own_themes)s::varchar[] THEN k.themes END AS themes,
       CASE WHEN k.event_precision = %(own_precision)s THEN k.event_time END AS event_time,
       k.event_precision, k.embedding FROM synapses_knot k JOIN synapses_knotpresence p ON p.knot_id = k.id
    WHERE k.mind_id = %(mind_id)s AND p.is_active AND k.id <> %(knot_id)s AND (k.source_created_at, k.id) < (%(before_at)s, %(before_id)s) ORDER BY k.embedding <=> %(vector)s::vector LIMIT %(embedding_candidates)s) UNION ALL (SELECT k.id, k.weight_anchor,
       CASE WHEN k.entities && %(own_entities)s::bigint[] THEN k.entities END AS entities,
       CASE WHEN k.themes && %(own_themes)s::varchar[] THEN k.themes END AS themes,
       CASE WHEN k.event_precision = %(own_precision)s THEN k.event_time END AS event_time,
       k.event_precision, k.embedding FROM synapses_knot k
    WHERE k.mind_id = %(mind_id)s AND k.id <> %(knot_id)s AND (k.source_created_at, k.id) < (%(before_at)s, %(before_id)s)
      AND (SELECT p.is_active FROM synapses_knotpresence p WHERE p.knot_id = k.id) AND k.entities && %(entities)s::bigint[] ORDER BY k.id DESC LIMIT %(layer_candidates)s) UNION ALL (SELECT k.id, k.weight_anchor,
       CASE WHEN k.entities && %(own_entities)s::bigint[] THEN k.entities END AS entities,
       CASE WHEN k.themes && %(own_themes)s::varchar[] THEN k.themes END AS themes,
       CASE WHEN k.event_precision = %(own_precision)s THEN k.event_time END AS event_time,
       k.event_precision, k.embedding FROM synapses_knot k
    WHERE k.mind_id = %(mind_id)s AND k.id <> %(knot_id)s AND (k.source_created_at, k.id) < (%(before_at)s, %(before_id)s)
      AND (SELECT p.is_active FROM synapses_knotpresence p WHERE p.knot_id = k.id) AND k.themes && %(themes)s::varchar[] ORDER BY k.id DESC LIMIT %(layer_candidates)s) UNION ALL (SELECT around.* FROM ((SELECT k.id, k.weight_anchor,
       CASE WHEN k.entities && %(own_entities)s::bigint[] THEN k.entities END AS entities,
       CASE WHEN k.themes && %(own_themes)s::varchar[] THEN k.themes END AS themes,
       CASE WHEN k.event_precision = %(own_precision)s THEN k.event_time END AS event_time,
       k.event_precision, k.embedding FROM synapses_knot k
    WHERE k.mind_id = %(mind_id)s AND k.id <> %(knot_id)s AND (k.source_created_at, k.id) < (%(before_at)s, %(before_id)s)
      AND (SELECT p.is_active FROM synapses_knotpresence p WHERE p.knot_id = k.id) AND k.event_precision = %(precision)s AND k.event_time >= %(event_time)s AND k.event_time <= %(time_to)s ORDER BY k.event_time LIMIT %(layer_candidates)s) UNION ALL (SELECT k.id, k.weight_anchor,
       CASE WHEN k.entities && %(own_entities)s::bigint[] THEN k.entities END AS entities,
       CASE WHEN k.themes && %(own_themes)s::varchar[] THEN k.themes END AS themes,
       CASE WHEN k.event_precision = %(own_precision)s THEN k.event_time END AS event_time,
       k.event_precision, k.embedding FROM synapses_knot k
    WHERE k.mind_id = %(mind_id)s AND k.id <> %(knot_id)s AND (k.source_created_at, k.id) < (%(before_at)s, %(before_id)s)
      AND (SELECT p.is_active FROM synapses_knotpresence p WHERE p.knot_id = k.id) AND k.event_precision = %(precision)s AND k.event_time < %(event_time)s AND k.event_time >= %(time_from)s ORDER BY k.event_time DESC LIMIT %(layer_candidates)s)) AS around ORDER BY abs(extract(epoch FROM around.event_time - %(event_time)s)) LIMIT %(layer_candidates)s)) AS c
         WHERE NOT EXISTS (SELECT 1 FROM synapses_edge e
                            WHERE e.mind_id = %(mind_id)s AND e.source_id = %(knot_id)s AND e.target_id = c.id)
         ORDER BY c.id) AS d
 ORDER BY d.id

-- synapses.net.sql.ENTITY_CARRIERS_SQL
SELECT e.id, (SELECT count(*) FROM (SELECT 1 FROM synapses_knot k
               WHERE k.mind_id = %(mind_id)s AND k.entities @> ARRAY[e.id] LIMIT %(carriers_probe)s) AS c)
  FROM unnest(%(entities)s::bigint[]) AS e(id)

-- synapses.net.sql.ENTITY_IDS_NAMED_SQL
SELECT e.id FROM synapses_entity e
 WHERE e.mind_id = %(mind)s
   AND (lower(e.name) = lower(%(name)s) OR EXISTS (SELECT 1 FROM unnest(e.aliases) a WHERE lower(a) = lower(%(name)s)))
 ORDER BY e.id

-- synapses.net.sql.ENTITY_KNOT_COUNTS_SQL
SELECT e, count(*) FROM synapses_knot, unnest(entities) AS e
 WHERE mind_id = %(mind)s AND entities && %(ids)s::bigint[] AND e = ANY(%(ids)s::bigint[])
 GROUP BY e

-- synapses.net.sql.HNSW_SETTINGS_COLUMNS
set_config('hnsw.iterative_scan', 'relaxed_order', true),
       set_config('hnsw.ef_search', %(ef_search)s, true),
       set_config('hnsw.max_scan_tuples', %(max_scan_tuples)s, true)

-- synapses.net.sql.KNOT_PLAN_SQL
SELECT count(*),
       (SELECT coalesce(array_agg(carriers.n ORDER BY e.ord), '{}')
          FROM unnest(%(entities)s::bigint[]) WITH ORDINALITY AS e(id, ord),
               LATERAL (SELECT count(*) AS n FROM (SELECT 1 FROM synapses_knot k
                         WHERE k.mind_id = %(mind_id)s AND k.entities @> ARRAY[e.id] LIMIT %(carriers_probe)s) AS c
               ) AS carriers),
       set_config('hnsw.iterative_scan', 'relaxed_order', true),
       set_config('hnsw.ef_search', %(ef_search)s, true),
       set_config('hnsw.max_scan_tuples', %(max_scan_tuples)s, true)
  FROM (SELECT 1 FROM synapses_knotpresence WHERE mind_id = %(mind_id)s AND is_active LIMIT %(probe)s) AS active_knots

-- synapses.net.sql.MIND_COUNTS_SQL
SELECT (SELECT count(*) FROM synapses_edge WHERE mind_id = %(mind)s),
       (SELECT count(*) FROM synapses_entity WHERE mind_id = %(mind)s),
       (SELECT count(*) FROM synapses_goal WHERE mind_id = %(mind)s),
       (SELECT count(*) FROM synapses_goal WHERE mind_id = %(mind)s AND active)

-- synapses.net.sql.TABLES['attempt']
synapses_promotionattempt

-- synapses.net.sql.TABLES['decay_run']
synapses_decayrun

-- synapses.net.sql.TABLES['edge']
synapses_edge

-- synapses.net.sql.TABLES['entity']
synapses_entity

-- synapses.net.sql.TABLES['goal']
synapses_goal

-- synapses.net.sql.TABLES['knot']
synapses_knot

-- synapses.net.sql.TABLES['link']
synapses_memoryknot

-- synapses.net.sql.TABLES['memory']
memories_memory

-- synapses.net.sql.TABLES['presence']
synapses_knotpresence

-- synapses.upkeep.sql.DECAY_SQL
WITH decayed AS (
    UPDATE synapses_knotpresence
    SET weight_present = presence_base * exp(-%(rate)s * GREATEST(
            EXTRACT(EPOCH FROM (%(now)s - reinforced_at))::double precision, 0) / %(seconds_per_day)s),
        decayed_at = %(now)s,
        is_active = presence_base * exp(-%(rate)s * GREATEST(
            EXTRACT(EPOCH FROM (%(now)s - reinforced_at))::double precision, 0) / %(seconds_per_day)s)
            >= %(min_weight)s
    WHERE is_active
    RETURNING is_active
)
SELECT count(*), count(*) FILTER (WHERE NOT is_active) FROM decayed

-- synapses.upkeep.sql.ENTITY_MERGE_KNOTS_SQL
UPDATE synapses_knot
   SET entities = CASE WHEN entities @> ARRAY[%(into)s]::bigint[]
                       THEN array_remove(entities, %(gone)s)
                       ELSE array_replace(entities, %(gone)s, %(into)s) END
 WHERE mind_id = %(mind)s AND entities @> ARRAY[%(gone)s]::bigint[]

-- synapses.upkeep.sql.KNOTS_MENTIONING_GAIN_SQL
UPDATE synapses_knot SET entities = array_append(entities, %(entity)s)
 WHERE mind_id = %(mind)s AND NOT (entities @> ARRAY[%(entity)s]::bigint[])
   AND content ~* ANY(%(patterns)s::text[])

-- synapses.upkeep.sql.NAMES_TAKEN_SQL
SELECT lower(n), e.name FROM synapses_entity e, unnest(array_prepend(e.name, e.aliases)) AS n
 WHERE e.mind_id = %(mind)s AND lower(n) = ANY(%(keys)s::text[]) AND NOT (e.id = ANY(%(besides)s::bigint[]))

-- synapses.upkeep.sql.TABLES['attempt']
synapses_promotionattempt

-- synapses.upkeep.sql.TABLES['decay_run']
synapses_decayrun

-- synapses.upkeep.sql.TABLES['edge']
synapses_edge

-- synapses.upkeep.sql.TABLES['entity']
synapses_entity

-- synapses.upkeep.sql.TABLES['goal']
synapses_goal

-- synapses.upkeep.sql.TABLES['knot']
synapses_knot

-- synapses.upkeep.sql.TABLES['link']
synapses_memoryknot

-- synapses.upkeep.sql.TABLES['memory']
memories_memory

-- synapses.upkeep.sql.TABLES['presence']
synapses_knotpresence
