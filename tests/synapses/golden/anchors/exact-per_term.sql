
WITH nearest AS MATERIALIZED (
    SELECT k.id, k.embedding <=> %(vector)s::vector AS distance
      FROM synapses_knot k JOIN synapses_knotpresence p ON p.knot_id = k.id AND p.is_active
     WHERE k.mind_id = %(mind_id)s
     ORDER BY (k.embedding <=> %(vector)s::vector) + 0
     LIMIT %(candidates)s
), query AS MATERIALIZED (
    SELECT (((((SELECT coalesce(string_agg(DISTINCT '''' || replace(replace(lexeme, '\', '\\'), '''', '''''') || '''', ' | '), '')::tsquery FROM (SELECT lexeme, position FROM unnest(to_tsvector('simple'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position UNION ALL SELECT lexeme, position FROM unnest(to_tsvector('english'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position UNION ALL SELECT lexeme, position FROM unnest(to_tsvector('german'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position) AS lexemes WHERE position IN (SELECT position FROM (SELECT lexeme, position FROM unnest(to_tsvector('english'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position) AS kept INTERSECT SELECT position FROM (SELECT lexeme, position FROM unnest(to_tsvector('german'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position) AS kept))) || (CASE WHEN %(phrases)s = '' THEN ''::tsquery ELSE websearch_to_tsquery('simple'::regconfig, %(phrases)s) || websearch_to_tsquery('english'::regconfig, %(phrases)s) || websearch_to_tsquery('german'::regconfig, %(phrases)s) END)) && (CASE WHEN %(excluded)s = '' THEN ''::tsquery ELSE !!(websearch_to_tsquery('simple'::regconfig, %(excluded)s) || websearch_to_tsquery('english'::regconfig, %(excluded)s) || websearch_to_tsquery('german'::regconfig, %(excluded)s)) END))) AS q
), terms AS (
    SELECT DISTINCT t::tsquery AS term
      FROM query, regexp_split_to_table(query.q::text, ' [|] ') AS t
     WHERE query.q::text <> ''
), matched AS (
    SELECT DISTINCT m.id
      FROM terms, LATERAL (SELECT k.id FROM synapses_knot k
                            WHERE k.mind_id = %(mind_id)s AND k.search_vector @@ terms.term
                            LIMIT %(term_matches)s) AS m
), text AS (
    SELECT k.id, ts_rank_cd(k.search_vector, query.q)::float8 AS score
      FROM matched JOIN synapses_knot k ON k.id = matched.id JOIN synapses_knotpresence p ON p.knot_id = k.id AND p.is_active,
           query
     ORDER BY score DESC, k.id
     LIMIT %(candidates)s
), found AS (
    SELECT id, 'text' AS found_by, score FROM text
    UNION ALL
    SELECT id, 'vector' AS found_by, distance AS score FROM nearest
)
SELECT f.id, f.found_by, f.score, 1 - (k.embedding <=> %(vector)s::vector) AS cosine,
       p.weight_present, k.emotion, extract(epoch FROM k.created_at)::float8 AS created_at
  FROM found f JOIN synapses_knot k ON k.id = f.id JOIN synapses_knotpresence p ON p.knot_id = f.id
