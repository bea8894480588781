-- memories.selectors.sql.CANDIDATES_SQL[(<VectorPlan.EXACT: 'exact'>, False, False)]
(SELECT id, updated_at, 'text' AS found_by, score FROM (SELECT id, updated_at, ts_rank_cd(search_vector, ((((SELECT coalesce(string_agg(DISTINCT '''' || replace(replace(lexeme, '\', '\\'), '''', '''''') || '''', ' | '), '')::tsquery FROM (SELECT lexeme, position FROM unnest(to_tsvector('simple'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position UNION ALL SELECT lexeme, position FROM unnest(to_tsvector('english'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position UNION ALL SELECT lexeme, position FROM unnest(to_tsvector('german'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position) AS lexemes WHERE position IN (SELECT position FROM (SELECT lexeme, position FROM unnest(to_tsvector('english'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position) AS kept INTERSECT SELECT position FROM (SELECT lexeme, position FROM unnest(to_tsvector('german'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position) AS kept))) || (CASE WHEN %(phrases)s = '' THEN ''::tsquery ELSE websearch_to_tsquery('simple'::regconfig, %(phrases)s) || websearch_to_tsquery('english'::regconfig, %(phrases)s) || websearch_to_tsquery('german'::regconfig, %(phrases)s) END)) && (CASE WHEN %(excluded)s = '' THEN ''::tsquery ELSE !!(websearch_to_tsquery('simple'::regconfig, %(excluded)s) || websearch_to_tsquery('english'::regconfig, %(excluded)s) || websearch_to_tsquery('german'::regconfig, %(excluded)s)) END)))::float8 AS score
   FROM (SELECT id, updated_at, search_vector
           FROM memories_memory
          WHERE mind_id = %(mind_id)s AND (expires_at IS NULL OR expires_at > %(now)s) AND search_vector @@ ((((SELECT coalesce(string_agg(DISTINCT '''' || replace(replace(lexeme, '\', '\\'), '''', '''''') || '''', ' | '), '')::tsquery FROM (SELECT lexeme, position FROM unnest(to_tsvector('simple'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position UNION ALL SELECT lexeme, position FROM unnest(to_tsvector('english'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position UNION ALL SELECT lexeme, position FROM unnest(to_tsvector('german'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position) AS lexemes WHERE position IN (SELECT position FROM (SELECT lexeme, position FROM unnest(to_tsvector('english'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position) AS kept INTERSECT SELECT position FROM (SELECT lexeme, position FROM unnest(to_tsvector('german'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position) AS kept))) || (CASE WHEN %(phrases)s = '' THEN ''::tsquery ELSE websearch_to_tsquery('simple'::regconfig, %(phrases)s) || websearch_to_tsquery('english'::regconfig, %(phrases)s) || websearch_to_tsquery('german'::regconfig, %(phrases)s) END)) && (CASE WHEN %(excluded)s = '' THEN ''::tsquery ELSE !!(websearch_to_tsquery('simple'::regconfig, %(excluded)s) || websearch_to_tsquery('english'::regconfig, %(excluded)s) || websearch_to_tsquery('german'::regconfig, %(excluded)s)) END))
          ORDER BY ts_rank(search_vector, ((((SELECT coalesce(string_agg(DISTINCT '''' || replace(replace(lexeme, '\', '\\'), '''', '''''') || '''', ' | '), '')::tsquery FROM (SELECT lexeme, position FROM unnest(to_tsvector('simple'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position UNION ALL SELECT lexeme, position FROM unnest(to_tsvector('english'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position UNION ALL SELECT lexeme, position FROM unnest(to_tsvector('german'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position) AS lexemes WHERE position IN (SELECT position FROM (SELECT lexeme, position FROM unnest(to_tsvector('english'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position) AS kept INTERSECT SELECT position FROM (SELECT lexeme, position FROM unnest(to_tsvector('german'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position) AS kept))) || (CASE WHEN %(phrases)s = '' THEN ''::tsquery ELSE websearch_to_tsquery('simple'::regconfig, %(phrases)s) || websearch_to_tsquery('english'::regconfig, %(phrases)s) || websearch_to_tsquery('german'::regconfig, %(phrases)s) END)) && (CASE WHEN %(excluded)s = '' THEN ''::tsquery ELSE !!(websearch_to_tsquery('simple'::regconfig, %(excluded)s) || websearch_to_tsquery('english'::regconfig, %(excluded)s) || websearch_to_tsquery('german'::regconfig, %(excluded)s)) END))) DESC
          LIMIT GREATEST(%(candidates)s, 1000)) AS prerank
  ORDER BY score DESC, updated_at DESC, id
  LIMIT %(candidates)s) AS text)
UNION ALL
(SELECT id, updated_at, 'vector' AS found_by, distance AS score FROM (SELECT id, updated_at, embedding <=> %(vector)s::vector AS distance
   FROM memories_memory
  WHERE mind_id = %(mind_id)s AND (expires_at IS NULL OR expires_at > %(now)s) AND embedding IS NOT NULL
  ORDER BY (embedding <=> %(vector)s::vector) + 0
  LIMIT %(candidates)s) AS nearest)

-- memories.selectors.sql.CANDIDATES_SQL[(<VectorPlan.EXACT: 'exact'>, False, True)]
(SELECT id, updated_at, 'text' AS found_by, score FROM (SELECT id, updated_at, ts_rank_cd(search_vector, ((((SELECT coalesce(string_agg(DISTINCT '''' || replace(replace(lexeme, '\', '\\'), '''', '''''') || '''', ' | '), '')::tsquery FROM (SELECT lexeme, position FROM unnest(to_tsvector('simple'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position UNION ALL SELECT lexeme, position FROM unnest(to_tsvector('english'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position UNION ALL SELECT lexeme, position FROM unnest(to_tsvector('german'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position) AS lexemes WHERE position IN (SELECT position FROM (SELECT lexeme, position FROM unnest(to_tsvector('english'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position) AS kept INTERSECT SELECT position FROM (SELECT lexeme, position FROM unnest(to_tsvector('german'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position) AS kept))) || (CASE WHEN %(phrases)s = '' THEN ''::tsquery ELSE websearch_to_tsquery('simple'::regconfig, %(phrases)s) || websearch_to_tsquery('english'::regconfig, %(phrases)s) || websearch_to_tsquery('german'::regconfig, %(phrases)s) END)) && (CASE WHEN %(excluded)s = '' THEN ''::tsquery ELSE !!(websearch_to_tsquery('simple'::regconfig, %(excluded)s) || websearch_to_tsquery('english'::regconfig, %(excluded)s) || websearch_to_tsquery('german'::regconfig, %(excluded)s)) END)))::float8 AS score
   FROM (SELECT id, updated_at, search_vector
           FROM memories_memory
          WHERE mind_id = %(mind_id)s AND (expires_at IS NULL OR expires_at > %(now)s) AND category = %(category)s AND search_vector @@ ((((SELECT coalesce(string_agg(DISTINCT '''' || replace(replace(lexeme, '\', '\\'), '''', '''''') || '''', ' | '), '')::tsquery FROM (SELECT lexeme, position FROM unnest(to_tsvector('simple'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position UNION ALL SELECT lexeme, position FROM unnest(to_tsvector('english'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position UNION ALL SELECT lexeme, position FROM unnest(to_tsvector('german'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position) AS lexemes WHERE position IN (SELECT position FROM (SELECT lexeme, position FROM unnest(to_tsvector('english'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position) AS kept INTERSECT SELECT position FROM (SELECT lexeme, position FROM unnest(to_tsvector('german'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position) AS kept))) || (CASE WHEN %(phrases)s = '' THEN ''::tsquery ELSE websearch_to_tsquery('simple'::regconfig, %(phrases)s) || websearch_to_tsquery('english'::regconfig, %(phrases)s) || websearch_to_tsquery('german'::regconfig, %(phrases)s) END)) && (CASE WHEN %(excluded)s = '' THEN ''::tsquery ELSE !!(websearch_to_tsquery('simple'::regconfig, %(excluded)s) || websearch_to_tsquery('english'::regconfig, %(excluded)s) || websearch_to_tsquery('german'::regconfig, %(excluded)s)) END))
          ORDER BY ts_rank(search_vector, ((((SELECT coalesce(string_agg(DISTINCT '''' || replace(replace(lexeme, '\', '\\'), '''', '''''') || '''', ' | '), '')::tsquery FROM (SELECT lexeme, position FROM unnest(to_tsvector('simple'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position UNION ALL SELECT lexeme, position FROM unnest(to_tsvector('english'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position UNION ALL SELECT lexeme, position FROM unnest(to_tsvector('german'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position) AS lexemes WHERE position IN (SELECT position FROM (SELECT lexeme, position FROM unnest(to_tsvector('english'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position) AS kept INTERSECT SELECT position FROM (SELECT lexeme, position FROM unnest(to_tsvector('german'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position) AS kept))) || (CASE WHEN %(phrases)s = '' THEN ''::tsquery ELSE websearch_to_tsquery('simple'::regconfig, %(phrases)s) || websearch_to_tsquery('english'::regconfig, %(phrases)s) || websearch_to_tsquery('german'::regconfig, %(phrases)s) END)) && (CASE WHEN %(excluded)s = '' THEN ''::tsquery ELSE !!(websearch_to_tsquery('simple'::regconfig, %(excluded)s) || websearch_to_tsquery('english'::regconfig, %(excluded)s) || websearch_to_tsquery('german'::regconfig, %(excluded)s)) END))) DESC
          LIMIT GREATEST(%(candidates)s, 1000)) AS prerank
  ORDER BY score DESC, updated_at DESC, id
  LIMIT %(candidates)s) AS text)
UNION ALL
(SELECT id, updated_at, 'vector' AS found_by, distance AS score FROM (SELECT id, updated_at, embedding <=> %(vector)s::vector AS distance
   FROM memories_memory
  WHERE mind_id = %(mind_id)s AND (expires_at IS NULL OR expires_at > %(now)s) AND category = %(category)s AND embedding IS NOT NULL
  ORDER BY (embedding <=> %(vector)s::vector) + 0
  LIMIT %(candidates)s) AS nearest)

-- memories.selectors.sql.CANDIDATES_SQL[(<VectorPlan.EXACT: 'exact'>, True, False)]
(SELECT id, updated_at, 'text' AS found_by, score FROM (SELECT id, updated_at, ts_rank_cd(search_vector, ((((SELECT coalesce(string_agg(DISTINCT '''' || replace(replace(lexeme, '\', '\\'), '''', '''''') || '''', ' | '), '')::tsquery FROM (SELECT lexeme, position FROM unnest(to_tsvector('simple'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position UNION ALL SELECT lexeme, position FROM unnest(to_tsvector('english'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position UNION ALL SELECT lexeme, position FROM unnest(to_tsvector('german'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position) AS lexemes WHERE position IN (SELECT position FROM (SELECT lexeme, position FROM unnest(to_tsvector('english'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position) AS kept INTERSECT SELECT position FROM (SELECT lexeme, position FROM unnest(to_tsvector('german'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position) AS kept))) || (CASE WHEN %(phrases)s = '' THEN ''::tsquery ELSE websearch_to_tsquery('simple'::regconfig, %(phrases)s) || websearch_to_tsquery('english'::regconfig, %(phrases)s) || websearch_to_tsquery('german'::regconfig, %(phrases)s) END)) && (CASE WHEN %(excluded)s = '' THEN ''::tsquery ELSE !!(websearch_to_tsquery('simple'::regconfig, %(excluded)s) || websearch_to_tsquery('english'::regconfig, %(excluded)s) || websearch_to_tsquery('german'::regconfig, %(excluded)s)) END)))::float8 AS score
   FROM (SELECT id, updated_at, search_vector
           FROM memories_memory
          WHERE mind_id = %(mind_id)s AND (expires_at IS NULL OR expires_at > %(now)s) AND tags @> ARRAY[%(tag)s]::varchar(64)[] AND search_vector @@ ((((SELECT coalesce(string_agg(DISTINCT '''' || replace(replace(lexeme, '\', '\\'), '''', '''''') || '''', ' | '), '')::tsquery FROM (SELECT lexeme, position FROM unnest(to_tsvector('simple'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position UNION ALL SELECT lexeme, position FROM unnest(to_tsvector('english'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position UNION ALL SELECT lexeme, position FROM unnest(to_tsvector('german'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position) AS lexemes WHERE position IN (SELECT position FROM (SELECT lexeme, position FROM unnest(to_tsvector('english'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position) AS kept INTERSECT SELECT position FROM (SELECT lexeme, position FROM unnest(to_tsvector('german'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position) AS kept))) || (CASE WHEN %(phrases)s = '' THEN ''::tsquery ELSE websearch_to_tsquery('simple'::regconfig, %(phrases)s) || websearch_to_tsquery('english'::regconfig, %(phrases)s) || websearch_to_tsquery('german'::regconfig, %(phrases)s) END)) && (CASE WHEN %(excluded)s = '' THEN ''::tsquery ELSE !!(websearch_to_tsquery('simple'::regconfig, %(excluded)s) || websearch_to_tsquery('english'::regconfig, %(excluded)s) || websearch_to_tsquery('german'::regconfig, %(excluded)s)) END))
          ORDER BY ts_rank(search_vector, ((((SELECT coalesce(string_agg(DISTINCT '''' || replace(replace(lexeme, '\', '\\'), '''', '''''') || '''', ' | '), '')::tsquery FROM (SELECT lexeme, position FROM unnest(to_tsvector('simple'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position UNION ALL SELECT lexeme, position FROM unnest(to_tsvector('english'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position UNION ALL SELECT lexeme, position FROM unnest(to_tsvector('german'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position) AS lexemes WHERE position IN (SELECT position FROM (SELECT lexeme, position FROM unnest(to_tsvector('english'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position) AS kept INTERSECT SELECT position FROM (SELECT lexeme, position FROM unnest(to_tsvector('german'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position) AS kept))) || (CASE WHEN %(phrases)s = '' THEN ''::tsquery ELSE websearch_to_tsquery('simple'::regconfig, %(phrases)s) || websearch_to_tsquery('english'::regconfig, %(phrases)s) || websearch_to_tsquery('german'::regconfig, %(phrases)s) END)) && (CASE WHEN %(excluded)s = '' THEN ''::tsquery ELSE !!(websearch_to_tsquery('simple'::regconfig, %(excluded)s) || websearch_to_tsquery('english'::regconfig, %(excluded)s) || websearch_to_tsquery('german'::regconfig, %(excluded)s)) END))) DESC
          LIMIT GREATEST(%(candidates)s, 1000)) AS prerank
  ORDER BY score DESC, updated_at DESC, id
  LIMIT %(candidates)s) AS text)
UNION ALL
(SELECT id, updated_at, 'vector' AS found_by, distance AS score FROM (SELECT id, updated_at, embedding <=> %(vector)s::vector AS distance
   FROM memories_memory
  WHERE mind_id = %(mind_id)s AND (expires_at IS NULL OR expires_at > %(now)s) AND tags @> ARRAY[%(tag)s]::varchar(64)[] AND embedding IS NOT NULL
  ORDER BY (embedding <=> %(vector)s::vector) + 0
  LIMIT %(candidates)s) AS nearest)

-- memories.selectors.sql.CANDIDATES_SQL[(<VectorPlan.EXACT: 'exact'>, True, True)]
(SELECT id, updated_at, 'text' AS found_by, score FROM (SELECT id, updated_at, ts_rank_cd(search_vector, ((((SELECT coalesce(string_agg(DISTINCT '''' || replace(replace(lexeme, '\', '\\'), '''', '''''') || '''', ' | '), '')::tsquery FROM (SELECT lexeme, position FROM unnest(to_tsvector('simple'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position UNION ALL SELECT lexeme, position FROM unnest(to_tsvector('english'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position UNION ALL SELECT lexeme, position FROM unnest(to_tsvector('german'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position) AS lexemes WHERE position IN (SELECT position FROM (SELECT lexeme, position FROM unnest(to_tsvector('english'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position) AS kept INTERSECT SELECT position FROM (SELECT lexeme, position FROM unnest(to_tsvector('german'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position) AS kept))) || (CASE WHEN %(phrases)s = '' THEN ''::tsquery ELSE websearch_to_tsquery('simple'::regconfig, %(phrases)s) || websearch_to_tsquery('english'::regconfig, %(phrases)s) || websearch_to_tsquery('german'::regconfig, %(phrases)s) END)) && (CASE WHEN %(excluded)s = '' THEN ''::tsquery ELSE !!(websearch_to_tsquery('simple'::regconfig, %(excluded)s) || websearch_to_tsquery('english'::regconfig, %(excluded)s) || websearch_to_tsquery('german'::regconfig, %(excluded)s)) END)))::float8 AS score
   FROM (SELECT id, updated_at, search_vector
           FROM memories_memory
          WHERE mind_id = %(mind_id)s AND (expires_at IS NULL OR expires_at > %(now)s) AND tags @> ARRAY[%(tag)s]::varchar(64)[] AND category = %(category)s AND search_vector @@ ((((SELECT coalesce(string_agg(DISTINCT '''' || replace(replace(lexeme, '\', '\\'), '''', '''''') || '''', ' | '), '')::tsquery FROM (SELECT lexeme, position FROM unnest(to_tsvector('simple'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position UNION ALL SELECT lexeme, position FROM unnest(to_tsvector('english'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position UNION ALL SELECT lexeme, position FROM unnest(to_tsvector('german'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position) AS lexemes WHERE position IN (SELECT position FROM (SELECT lexeme, position FROM unnest(to_tsvector('english'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position) AS kept INTERSECT SELECT position FROM (SELECT lexeme, position FROM unnest(to_tsvector('german'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position) AS kept))) || (CASE WHEN %(phrases)s = '' THEN ''::tsquery ELSE websearch_to_tsquery('simple'::regconfig, %(phrases)s) || websearch_to_tsquery('english'::regconfig, %(phrases)s) || websearch_to_tsquery('german'::regconfig, %(phrases)s) END)) && (CASE WHEN %(excluded)s = '' THEN ''::tsquery ELSE !!(websearch_to_tsquery('simple'::regconfig, %(excluded)s) || websearch_to_tsquery('english'::regconfig, %(excluded)s) || websearch_to_tsquery('german'::regconfig, %(excluded)s)) END))
          ORDER BY ts_rank(search_vector, ((((SELECT coalesce(string_agg(DISTINCT '''' || replace(replace(lexeme, '\', '\\'), '''', '''''') || '''', ' | '), '')::tsquery FROM (SELECT lexeme, position FROM unnest(to_tsvector('simple'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position UNION ALL SELECT lexeme, position FROM unnest(to_tsvector('english'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position UNION ALL SELECT lexeme, position FROM unnest(to_tsvector('german'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position) AS lexemes WHERE position IN (SELECT position FROM (SELECT lexeme, position FROM unnest(to_tsvector('english'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position) AS kept INTERSECT SELECT position FROM (SELECT lexeme, position FROM unnest(to_tsvector('german'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position) AS kept))) || (CASE WHEN %(phrases)s = '' THEN ''::tsquery ELSE websearch_to_tsquery('simple'::regconfig, %(phrases)s) || websearch_to_tsquery('english'::regconfig, %(phrases)s) || websearch_to_tsquery('german'::regconfig, %(phrases)s) END)) && (CASE WHEN %(excluded)s = '' THEN ''::tsquery ELSE !!(websearch_to_tsquery('simple'::regconfig, %(excluded)s) || websearch_to_tsquery('english'::regconfig, %(excluded)s) || websearch_to_tsquery('german'::regconfig, %(excluded)s)) END))) DESC
          LIMIT GREATEST(%(candidates)s, 1000)) AS prerank
  ORDER BY score DESC, updated_at DESC, id
  LIMIT %(candidates)s) AS text)
UNION ALL
(SELECT id, updated_at, 'vector' AS found_by, distance AS score FROM (SELECT id, updated_at, embedding <=> %(vector)s::vector AS distance
   FROM memories_memory
  WHERE mind_id = %(mind_id)s AND (expires_at IS NULL OR expires_at > %(now)s) AND tags @> ARRAY[%(tag)s]::varchar(64)[] AND category = %(category)s AND embedding IS NOT NULL
  ORDER BY (embedding <=> %(vector)s::vector) + 0
  LIMIT %(candidates)s) AS nearest)

-- memories.selectors.sql.CANDIDATES_SQL[(<VectorPlan.HNSW: 'hnsw'>, False, False)]
(SELECT id, updated_at, 'text' AS found_by, score FROM (SELECT id, updated_at, ts_rank_cd(search_vector, ((((SELECT coalesce(string_agg(DISTINCT '''' || replace(replace(lexeme, '\', '\\'), '''', '''''') || '''', ' | '), '')::tsquery FROM (SELECT lexeme, position FROM unnest(to_tsvector('simple'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position UNION ALL SELECT lexeme, position FROM unnest(to_tsvector('english'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position UNION ALL SELECT lexeme, position FROM unnest(to_tsvector('german'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position) AS lexemes WHERE position IN (SELECT position FROM (SELECT lexeme, position FROM unnest(to_tsvector('english'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position) AS kept INTERSECT SELECT position FROM (SELECT lexeme, position FROM unnest(to_tsvector('german'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position) AS kept))) || (CASE WHEN %(phrases)s = '' THEN ''::tsquery ELSE websearch_to_tsquery('simple'::regconfig, %(phrases)s) || websearch_to_tsquery('english'::regconfig, %(phrases)s) || websearch_to_tsquery('german'::regconfig, %(phrases)s) END)) && (CASE WHEN %(excluded)s = '' THEN ''::tsquery ELSE !!(websearch_to_tsquery('simple'::regconfig, %(excluded)s) || websearch_to_tsquery('english'::regconfig, %(excluded)s) || websearch_to_tsquery('german'::regconfig, %(excluded)s)) END)))::float8 AS score
   FROM (SELECT id, updated_at, search_vector
           FROM memories_memory
          WHERE mind_id = %(mind_id)s AND (expires_at IS NULL OR expires_at > %(now)s) AND search_vector @@ ((((SELECT coalesce(string_agg(DISTINCT '''' || replace(replace(lexeme, '\', '\\'), '''', '''''') || '''', ' | '), '')::tsquery FROM (SELECT lexeme, position FROM unnest(to_tsvector('simple'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position UNION ALL SELECT lexeme, position FROM unnest(to_tsvector('english'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position UNION ALL SELECT lexeme, position FROM unnest(to_tsvector('german'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position) AS lexemes WHERE position IN (SELECT position FROM (SELECT lexeme, position FROM unnest(to_tsvector('english'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position) AS kept INTERSECT SELECT position FROM (SELECT lexeme, position FROM unnest(to_tsvector('german'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position) AS kept))) || (CASE WHEN %(phrases)s = '' THEN ''::tsquery ELSE websearch_to_tsquery('simple'::regconfig, %(phrases)s) || websearch_to_tsquery('english'::regconfig, %(phrases)s) || websearch_to_tsquery('german'::regconfig, %(phrases)s) END)) && (CASE WHEN %(excluded)s = '' THEN ''::tsquery ELSE !!(websearch_to_tsquery('simple'::regconfig, %(excluded)s) || websearch_to_tsquery('english'::regconfig, %(excluded)s) || websearch_to_tsquery('german'::regconfig, %(excluded)s)) END))
          ORDER BY ts_rank(search_vector, ((((SELECT coalesce(string_agg(DISTINCT '''' || replace(replace(lexeme, '\', '\\'), '''', '''''') || '''', ' | '), '')::tsquery FROM (SELECT lexeme, position FROM unnest(to_tsvector('simple'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position UNION ALL SELECT lexeme, position FROM unnest(to_tsvector('english'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position UNION ALL SELECT lexeme, position FROM unnest(to_tsvector('german'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position) AS lexemes WHERE position IN (SELECT position FROM (SELECT lexeme, position FROM unnest(to_tsvector('english'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position) AS kept INTERSECT SELECT position FROM (SELECT lexeme, position FROM unnest(to_tsvector('german'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position) AS kept))) || (CASE WHEN %(phrases)s = '' THEN ''::tsquery ELSE websearch_to_tsquery('simple'::regconfig, %(phrases)s) || websearch_to_tsquery('english'::regconfig, %(phrases)s) || websearch_to_tsquery('german'::regconfig, %(phrases)s) END)) && (CASE WHEN %(excluded)s = '' THEN ''::tsquery ELSE !!(websearch_to_tsquery('simple'::regconfig, %(excluded)s) || websearch_to_tsquery('english'::regconfig, %(excluded)s) || websearch_to_tsquery('german'::regconfig, %(excluded)s)) END))) DESC
          LIMIT GREATEST(%(candidates)s, 1000)) AS prerank
  ORDER BY score DESC, updated_at DESC, id
  LIMIT %(candidates)s) AS text)
UNION ALL
(SELECT id, updated_at, 'vector' AS found_by, distance AS score FROM (SELECT id, updated_at, embedding <=> %(vector)s::vector AS distance
   FROM memories_memory
  WHERE mind_id = %(mind_id)s AND (expires_at IS NULL OR expires_at > %(now)s) AND embedding IS NOT NULL
  ORDER BY embedding <=> %(vector)s::vector
  LIMIT %(candidates)s) AS nearest)

-- memories.selectors.sql.CANDIDATES_SQL[(<VectorPlan.HNSW: 'hnsw'>, False, True)]
(SELECT id, updated_at, 'text' AS found_by, score FROM (SELECT id, updated_at, ts_rank_cd(search_vector, ((((SELECT coalesce(string_agg(DISTINCT '''' || replace(replace(lexeme, '\', '\\'), '''', '''''') || '''', ' | '), '')::tsquery FROM (SELECT lexeme, position FROM unnest(to_tsvector('simple'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position UNION ALL SELECT lexeme, position FROM unnest(to_tsvector('english'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position UNION ALL SELECT lexeme, position FROM unnest(to_tsvector('german'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position) AS lexemes WHERE position IN (SELECT position FROM (SELECT lexeme, position FROM unnest(to_tsvector('english'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position) AS kept INTERSECT SELECT position FROM (SELECT lexeme, position FROM unnest(to_tsvector('german'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position) AS kept))) || (CASE WHEN %(phrases)s = '' THEN ''::tsquery ELSE websearch_to_tsquery('simple'::regconfig, %(phrases)s) || websearch_to_tsquery('english'::regconfig, %(phrases)s) || websearch_to_tsquery('german'::regconfig, %(phrases)s) END)) && (CASE WHEN %(excluded)s = '' THEN ''::tsquery ELSE !!(websearch_to_tsquery('simple'::regconfig, %(excluded)s) || websearch_to_tsquery('english'::regconfig, %(excluded)s) || websearch_to_tsquery('german'::regconfig, %(excluded)s)) END)))::float8 AS score
   FROM (SELECT id, updated_at, search_vector
           FROM memories_memory
          WHERE mind_id = %(mind_id)s AND (expires_at IS NULL OR expires_at > %(now)s) AND category = %(category)s AND search_vector @@ ((((SELECT coalesce(string_agg(DISTINCT '''' || replace(replace(lexeme, '\', '\\'), '''', '''''') || '''', ' | '), '')::tsquery FROM (SELECT lexeme, position FROM unnest(to_tsvector('simple'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position UNION ALL SELECT lexeme, position FROM unnest(to_tsvector('english'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position UNION ALL SELECT lexeme, position FROM unnest(to_tsvector('german'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position) AS lexemes WHERE position IN (SELECT position FROM (SELECT lexeme, position FROM unnest(to_tsvector('english'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position) AS kept INTERSECT SELECT position FROM (SELECT lexeme, position FROM unnest(to_tsvector('german'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position) AS kept))) || (CASE WHEN %(phrases)s = '' THEN ''::tsquery ELSE websearch_to_tsquery('simple'::regconfig, %(phrases)s) || websearch_to_tsquery('english'::regconfig, %(phrases)s) || websearch_to_tsquery('german'::regconfig, %(phrases)s) END)) && (CASE WHEN %(excluded)s = '' THEN ''::tsquery ELSE !!(websearch_to_tsquery('simple'::regconfig, %(excluded)s) || websearch_to_tsquery('english'::regconfig, %(excluded)s) || websearch_to_tsquery('german'::regconfig, %(excluded)s)) END))
          ORDER BY ts_rank(search_vector, ((((SELECT coalesce(string_agg(DISTINCT '''' || replace(replace(lexeme, '\', '\\'), '''', '''''') || '''', ' | '), '')::tsquery FROM (SELECT lexeme, position FROM unnest(to_tsvector('simple'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position UNION ALL SELECT lexeme, position FROM unnest(to_tsvector('english'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position UNION ALL SELECT lexeme, position FROM unnest(to_tsvector('german'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position) AS lexemes WHERE position IN (SELECT position FROM (SELECT lexeme, position FROM unnest(to_tsvector('english'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position) AS kept INTERSECT SELECT position FROM (SELECT lexeme, position FROM unnest(to_tsvector('german'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position) AS kept))) || (CASE WHEN %(phrases)s = '' THEN ''::tsquery ELSE websearch_to_tsquery('simple'::regconfig, %(phrases)s) || websearch_to_tsquery('english'::regconfig, %(phrases)s) || websearch_to_tsquery('german'::regconfig, %(phrases)s) END)) && (CASE WHEN %(excluded)s = '' THEN ''::tsquery ELSE !!(websearch_to_tsquery('simple'::regconfig, %(excluded)s) || websearch_to_tsquery('english'::regconfig, %(excluded)s) || websearch_to_tsquery('german'::regconfig, %(excluded)s)) END))) DESC
          LIMIT GREATEST(%(candidates)s, 1000)) AS prerank
  ORDER BY score DESC, updated_at DESC, id
  LIMIT %(candidates)s) AS text)
UNION ALL
(SELECT id, updated_at, 'vector' AS found_by, distance AS score FROM (SELECT id, updated_at, embedding <=> %(vector)s::vector AS distance
   FROM memories_memory
  WHERE mind_id = %(mind_id)s AND (expires_at IS NULL OR expires_at > %(now)s) AND category = %(category)s AND embedding IS NOT NULL
  ORDER BY embedding <=> %(vector)s::vector
  LIMIT %(candidates)s) AS nearest)

-- memories.selectors.sql.CANDIDATES_SQL[(<VectorPlan.HNSW: 'hnsw'>, True, False)]
(SELECT id, updated_at, 'text' AS found_by, score FROM (SELECT id, updated_at, ts_rank_cd(search_vector, ((((SELECT coalesce(string_agg(DISTINCT '''' || replace(replace(lexeme, '\', '\\'), '''', '''''') || '''', ' | '), '')::tsquery FROM (SELECT lexeme, position FROM unnest(to_tsvector('simple'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position UNION ALL SELECT lexeme, position FROM unnest(to_tsvector('english'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position UNION ALL SELECT lexeme, position FROM unnest(to_tsvector('german'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position) AS lexemes WHERE position IN (SELECT position FROM (SELECT lexeme, position FROM unnest(to_tsvector('english'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position) AS kept INTERSECT SELECT position FROM (SELECT lexeme, position FROM unnest(to_tsvector('german'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position) AS kept))) || (CASE WHEN %(phrases)s = '' THEN ''::tsquery ELSE websearch_to_tsquery('simple'::regconfig, %(phrases)s) || websearch_to_tsquery('english'::regconfig, %(phrases)s) || websearch_to_tsquery('german'::regconfig, %(phrases)s) END)) && (CASE WHEN %(excluded)s = '' THEN ''::tsquery ELSE !!(websearch_to_tsquery('simple'::regconfig, %(excluded)s) || websearch_to_tsquery('english'::regconfig, %(excluded)s) || websearch_to_tsquery('german'::regconfig, %(excluded)s)) END)))::float8 AS score
   FROM (SELECT id, updated_at, search_vector
           FROM memories_memory
          WHERE mind_id = %(mind_id)s AND (expires_at IS NULL OR expires_at > %(now)s) AND tags @> ARRAY[%(tag)s]::varchar(64)[] AND search_vector @@ ((((SELECT coalesce(string_agg(DISTINCT '''' || replace(replace(lexeme, '\', '\\'), '''', '''''') || '''', ' | '), '')::tsquery FROM (SELECT lexeme, position FROM unnest(to_tsvector('simple'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position UNION ALL SELECT lexeme, position FROM unnest(to_tsvector('english'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position UNION ALL SELECT lexeme, position FROM unnest(to_tsvector('german'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position) AS lexemes WHERE position IN (SELECT position FROM (SELECT lexeme, position FROM unnest(to_tsvector('english'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position) AS kept INTERSECT SELECT position FROM (SELECT lexeme, position FROM unnest(to_tsvector('german'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position) AS kept))) || (CASE WHEN %(phrases)s = '' THEN ''::tsquery ELSE websearch_to_tsquery('simple'::regconfig, %(phrases)s) || websearch_to_tsquery('english'::regconfig, %(phrases)s) || websearch_to_tsquery('german'::regconfig, %(phrases)s) END)) && (CASE WHEN %(excluded)s = '' THEN ''::tsquery ELSE !!(websearch_to_tsquery('simple'::regconfig, %(excluded)s) || websearch_to_tsquery('english'::regconfig, %(excluded)s) || websearch_to_tsquery('german'::regconfig, %(excluded)s)) END))
          ORDER BY ts_rank(search_vector, ((((SELECT coalesce(string_agg(DISTINCT '''' || replace(replace(lexeme, '\', '\\'), '''', '''''') || '''', ' | '), '')::tsquery FROM (SELECT lexeme, position FROM unnest(to_tsvector('simple'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position UNION ALL SELECT lexeme, position FROM unnest(to_tsvector('english'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position UNION ALL SELECT lexeme, position FROM unnest(to_tsvector('german'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position) AS lexemes WHERE position IN (SELECT position FROM (SELECT lexeme, position FROM unnest(to_tsvector('english'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position) AS kept INTERSECT SELECT position FROM (SELECT lexeme, position FROM unnest(to_tsvector('german'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position) AS kept))) || (CASE WHEN %(phrases)s = '' THEN ''::tsquery ELSE websearch_to_tsquery('simple'::regconfig, %(phrases)s) || websearch_to_tsquery('english'::regconfig, %(phrases)s) || websearch_to_tsquery('german'::regconfig, %(phrases)s) END)) && (CASE WHEN %(excluded)s = '' THEN ''::tsquery ELSE !!(websearch_to_tsquery('simple'::regconfig, %(excluded)s) || websearch_to_tsquery('english'::regconfig, %(excluded)s) || websearch_to_tsquery('german'::regconfig, %(excluded)s)) END))) DESC
          LIMIT GREATEST(%(candidates)s, 1000)) AS prerank
  ORDER BY score DESC, updated_at DESC, id
  LIMIT %(candidates)s) AS text)
UNION ALL
(SELECT id, updated_at, 'vector' AS found_by, distance AS score FROM (SELECT id, updated_at, embedding <=> %(vector)s::vector AS distance
   FROM memories_memory
  WHERE mind_id = %(mind_id)s AND (expires_at IS NULL OR expires_at > %(now)s) AND tags @> ARRAY[%(tag)s]::varchar(64)[] AND embedding IS NOT NULL
  ORDER BY embedding <=> %(vector)s::vector
  LIMIT %(candidates)s) AS nearest)

-- memories.selectors.sql.CANDIDATES_SQL[(<VectorPlan.HNSW: 'hnsw'>, True, True)]
(SELECT id, updated_at, 'text' AS found_by, score FROM (SELECT id, updated_at, ts_rank_cd(search_vector, ((((SELECT coalesce(string_agg(DISTINCT '''' || replace(replace(lexeme, '\', '\\'), '''', '''''') || '''', ' | '), '')::tsquery FROM (SELECT lexeme, position FROM unnest(to_tsvector('simple'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position UNION ALL SELECT lexeme, position FROM unnest(to_tsvector('english'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position UNION ALL SELECT lexeme, position FROM unnest(to_tsvector('german'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position) AS lexemes WHERE position IN (SELECT position FROM (SELECT lexeme, position FROM unnest(to_tsvector('english'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position) AS kept INTERSECT SELECT position FROM (SELECT lexeme, position FROM unnest(to_tsvector('german'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position) AS kept))) || (CASE WHEN %(phrases)s = '' THEN ''::tsquery ELSE websearch_to_tsquery('simple'::regconfig, %(phrases)s) || websearch_to_tsquery('english'::regconfig, %(phrases)s) || websearch_to_tsquery('german'::regconfig, %(phrases)s) END)) && (CASE WHEN %(excluded)s = '' THEN ''::tsquery ELSE !!(websearch_to_tsquery('simple'::regconfig, %(excluded)s) || websearch_to_tsquery('english'::regconfig, %(excluded)s) || websearch_to_tsquery('german'::regconfig, %(excluded)s)) END)))::float8 AS score
   FROM (SELECT id, updated_at, search_vector
           FROM memories_memory
          WHERE mind_id = %(mind_id)s AND (expires_at IS NULL OR expires_at > %(now)s) AND tags @> ARRAY[%(tag)s]::varchar(64)[] AND category = %(category)s AND search_vector @@ ((((SELECT coalesce(string_agg(DISTINCT '''' || replace(replace(lexeme, '\', '\\'), '''', '''''') || '''', ' | '), '')::tsquery FROM (SELECT lexeme, position FROM unnest(to_tsvector('simple'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position UNION ALL SELECT lexeme, position FROM unnest(to_tsvector('english'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position UNION ALL SELECT lexeme, position FROM unnest(to_tsvector('german'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position) AS lexemes WHERE position IN (SELECT position FROM (SELECT lexeme, position FROM unnest(to_tsvector('english'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position) AS kept INTERSECT SELECT position FROM (SELECT lexeme, position FROM unnest(to_tsvector('german'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position) AS kept))) || (CASE WHEN %(phrases)s = '' THEN ''::tsquery ELSE websearch_to_tsquery('simple'::regconfig, %(phrases)s) || websearch_to_tsquery('english'::regconfig, %(phrases)s) || websearch_to_tsquery('german'::regconfig, %(phrases)s) END)) && (CASE WHEN %(excluded)s = '' THEN ''::tsquery ELSE !!(websearch_to_tsquery('simple'::regconfig, %(excluded)s) || websearch_to_tsquery('english'::regconfig, %(excluded)s) || websearch_to_tsquery('german'::regconfig, %(excluded)s)) END))
          ORDER BY ts_rank(search_vector, ((((SELECT coalesce(string_agg(DISTINCT '''' || replace(replace(lexeme, '\', '\\'), '''', '''''') || '''', ' | '), '')::tsquery FROM (SELECT lexeme, position FROM unnest(to_tsvector('simple'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position UNION ALL SELECT lexeme, position FROM unnest(to_tsvector('english'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position UNION ALL SELECT lexeme, position FROM unnest(to_tsvector('german'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position) AS lexemes WHERE position IN (SELECT position FROM (SELECT lexeme, position FROM unnest(to_tsvector('english'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position) AS kept INTERSECT SELECT position FROM (SELECT lexeme, position FROM unnest(to_tsvector('german'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position) AS kept))) || (CASE WHEN %(phrases)s = '' THEN ''::tsquery ELSE websearch_to_tsquery('simple'::regconfig, %(phrases)s) || websearch_to_tsquery('english'::regconfig, %(phrases)s) || websearch_to_tsquery('german'::regconfig, %(phrases)s) END)) && (CASE WHEN %(excluded)s = '' THEN ''::tsquery ELSE !!(websearch_to_tsquery('simple'::regconfig, %(excluded)s) || websearch_to_tsquery('english'::regconfig, %(excluded)s) || websearch_to_tsquery('german'::regconfig, %(excluded)s)) END))) DESC
          LIMIT GREATEST(%(candidates)s, 1000)) AS prerank
  ORDER BY score DESC, updated_at DESC, id
  LIMIT %(candidates)s) AS text)
UNION ALL
(SELECT id, updated_at, 'vector' AS found_by, distance AS score FROM (SELECT id, updated_at, embedding <=> %(vector)s::vector AS distance
   FROM memories_memory
  WHERE mind_id = %(mind_id)s AND (expires_at IS NULL OR expires_at > %(now)s) AND tags @> ARRAY[%(tag)s]::varchar(64)[] AND category = %(category)s AND embedding IS NOT NULL
  ORDER BY embedding <=> %(vector)s::vector
  LIMIT %(candidates)s) AS nearest)

-- memories.selectors.sql.CURRENT_SQL
(expires_at IS NULL OR expires_at > %(now)s)

-- memories.selectors.sql.HNSW_SETTINGS_COLUMNS
set_config('hnsw.iterative_scan', 'relaxed_order', true),
       set_config('hnsw.ef_search', %(ef_search)s, true),
       set_config('hnsw.max_scan_tuples', %(max_scan_tuples)s, true)

-- memories.selectors.sql.MEMORY_COUNT_SQL[False]
SELECT count(*) FROM memories_memory WHERE mind_id = %(mind)s AND (expires_at IS NULL OR expires_at > %(now)s)

-- memories.selectors.sql.MEMORY_COUNT_SQL[True]
SELECT count(*) FROM memories_memory WHERE mind_id = %(mind)s

-- memories.selectors.sql.NEAREST_IDS_SQL[<VectorPlan.EXACT: 'exact'>]
SELECT id FROM (SELECT id, updated_at, embedding <=> %s::vector AS distance
   FROM memories_memory
  WHERE mind_id = %s AND (expires_at IS NULL OR expires_at > %s) AND embedding IS NOT NULL
  ORDER BY (embedding <=> %s::vector) + 0
  LIMIT %s) AS nearest

-- memories.selectors.sql.NEAREST_IDS_SQL[<VectorPlan.HNSW: 'hnsw'>]
SELECT id FROM (SELECT id, updated_at, embedding <=> %s::vector AS distance
   FROM memories_memory
  WHERE mind_id = %s AND (expires_at IS NULL OR expires_at > %s) AND embedding IS NOT NULL
  ORDER BY embedding <=> %s::vector
  LIMIT %s) AS nearest

-- memories.selectors.sql.SHARED_TAG_COUNT_SQL
cardinality(ARRAY(SELECT unnest(tags) INTERSECT SELECT unnest(%s::varchar[])))

-- memories.selectors.sql.TAG_COUNTS_SQL[False]
WITH counted AS (
    SELECT tag, count(*) AS n
      FROM memories_memory, unnest(tags) AS tag
     WHERE mind_id = %(mind)s AND (expires_at IS NULL OR expires_at > %(now)s)
     GROUP BY tag
)
SELECT tag, n, count(*) OVER () FROM counted ORDER BY n DESC, tag LIMIT %(limit)s

-- memories.selectors.sql.TAG_COUNTS_SQL[True]
WITH counted AS (
    SELECT tag, count(*) AS n
      FROM memories_memory, unnest(tags) AS tag
     WHERE mind_id = %(mind)s
     GROUP BY tag
)
SELECT tag, n, count(*) OVER () FROM counted ORDER BY n DESC, tag LIMIT %(limit)s

-- memories.selectors.sql.TEXT_SQL
SELECT id, updated_at, ts_rank_cd(search_vector, ((((SELECT coalesce(string_agg(DISTINCT '''' || replace(replace(lexeme, '\', '\\'), '''', '''''') || '''', ' | '), '')::tsquery FROM (SELECT lexeme, position FROM unnest(to_tsvector('simple'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position UNION ALL SELECT lexeme, position FROM unnest(to_tsvector('english'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position UNION ALL SELECT lexeme, position FROM unnest(to_tsvector('german'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position) AS lexemes WHERE position IN (SELECT position FROM (SELECT lexeme, position FROM unnest(to_tsvector('english'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position) AS kept INTERSECT SELECT position FROM (SELECT lexeme, position FROM unnest(to_tsvector('german'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position) AS kept))) || (CASE WHEN %(phrases)s = '' THEN ''::tsquery ELSE websearch_to_tsquery('simple'::regconfig, %(phrases)s) || websearch_to_tsquery('english'::regconfig, %(phrases)s) || websearch_to_tsquery('german'::regconfig, %(phrases)s) END)) && (CASE WHEN %(excluded)s = '' THEN ''::tsquery ELSE !!(websearch_to_tsquery('simple'::regconfig, %(excluded)s) || websearch_to_tsquery('english'::regconfig, %(excluded)s) || websearch_to_tsquery('german'::regconfig, %(excluded)s)) END)))::float8 AS score
   FROM (SELECT id, updated_at, search_vector
           FROM memories_memory
          WHERE mind_id = %(mind_id)s AND (expires_at IS NULL OR expires_at > %(now)s) AND search_vector @@ ((((SELECT coalesce(string_agg(DISTINCT '''' || replace(replace(lexeme, '\', '\\'), '''', '''''') || '''', ' | '), '')::tsquery FROM (SELECT lexeme, position FROM unnest(to_tsvector('simple'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position UNION ALL SELECT lexeme, position FROM unnest(to_tsvector('english'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position UNION ALL SELECT lexeme, position FROM unnest(to_tsvector('german'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position) AS lexemes WHERE position IN (SELECT position FROM (SELECT lexeme, position FROM unnest(to_tsvector('english'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position) AS kept INTERSECT SELECT position FROM (SELECT lexeme, position FROM unnest(to_tsvector('german'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position) AS kept))) || (CASE WHEN %(phrases)s = '' THEN ''::tsquery ELSE websearch_to_tsquery('simple'::regconfig, %(phrases)s) || websearch_to_tsquery('english'::regconfig, %(phrases)s) || websearch_to_tsquery('german'::regconfig, %(phrases)s) END)) && (CASE WHEN %(excluded)s = '' THEN ''::tsquery ELSE !!(websearch_to_tsquery('simple'::regconfig, %(excluded)s) || websearch_to_tsquery('english'::regconfig, %(excluded)s) || websearch_to_tsquery('german'::regconfig, %(excluded)s)) END))
          ORDER BY ts_rank(search_vector, ((((SELECT coalesce(string_agg(DISTINCT '''' || replace(replace(lexeme, '\', '\\'), '''', '''''') || '''', ' | '), '')::tsquery FROM (SELECT lexeme, position FROM unnest(to_tsvector('simple'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position UNION ALL SELECT lexeme, position FROM unnest(to_tsvector('english'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position UNION ALL SELECT lexeme, position FROM unnest(to_tsvector('german'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position) AS lexemes WHERE position IN (SELECT position FROM (SELECT lexeme, position FROM unnest(to_tsvector('english'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position) AS kept INTERSECT SELECT position FROM (SELECT lexeme, position FROM unnest(to_tsvector('german'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position) AS kept))) || (CASE WHEN %(phrases)s = '' THEN ''::tsquery ELSE websearch_to_tsquery('simple'::regconfig, %(phrases)s) || websearch_to_tsquery('english'::regconfig, %(phrases)s) || websearch_to_tsquery('german'::regconfig, %(phrases)s) END)) && (CASE WHEN %(excluded)s = '' THEN ''::tsquery ELSE !!(websearch_to_tsquery('simple'::regconfig, %(excluded)s) || websearch_to_tsquery('english'::regconfig, %(excluded)s) || websearch_to_tsquery('german'::regconfig, %(excluded)s)) END))) DESC
          LIMIT GREATEST(%(candidates)s, 1000)) AS prerank
  ORDER BY score DESC, updated_at DESC, id
  LIMIT %(candidates)s

-- memories.selectors.sql.TSQUERY_ALTERNATIVES_SQL
(((SELECT coalesce(string_agg(DISTINCT '''' || replace(replace(lexeme, '\', '\\'), '''', '''''') || '''', ' | '), '')::tsquery FROM (SELECT lexeme, position FROM unnest(to_tsvector('simple'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position UNION ALL SELECT lexeme, position FROM unnest(to_tsvector('english'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position UNION ALL SELECT lexeme, position FROM unnest(to_tsvector('german'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position) AS lexemes WHERE position IN (SELECT position FROM (SELECT lexeme, position FROM unnest(to_tsvector('english'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position) AS kept INTERSECT SELECT position FROM (SELECT lexeme, position FROM unnest(to_tsvector('german'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position) AS kept))) || (CASE WHEN %(phrases)s = '' THEN ''::tsquery ELSE websearch_to_tsquery('simple'::regconfig, %(phrases)s) || websearch_to_tsquery('english'::regconfig, %(phrases)s) || websearch_to_tsquery('german'::regconfig, %(phrases)s) END))

-- memories.selectors.sql.TSQUERY_SQL
((((SELECT coalesce(string_agg(DISTINCT '''' || replace(replace(lexeme, '\', '\\'), '''', '''''') || '''', ' | '), '')::tsquery FROM (SELECT lexeme, position FROM unnest(to_tsvector('simple'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position UNION ALL SELECT lexeme, position FROM unnest(to_tsvector('english'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position UNION ALL SELECT lexeme, position FROM unnest(to_tsvector('german'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position) AS lexemes WHERE position IN (SELECT position FROM (SELECT lexeme, position FROM unnest(to_tsvector('english'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position) AS kept INTERSECT SELECT position FROM (SELECT lexeme, position FROM unnest(to_tsvector('german'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position) AS kept))) || (CASE WHEN %(phrases)s = '' THEN ''::tsquery ELSE websearch_to_tsquery('simple'::regconfig, %(phrases)s) || websearch_to_tsquery('english'::regconfig, %(phrases)s) || websearch_to_tsquery('german'::regconfig, %(phrases)s) END)) && (CASE WHEN %(excluded)s = '' THEN ''::tsquery ELSE !!(websearch_to_tsquery('simple'::regconfig, %(excluded)s) || websearch_to_tsquery('english'::regconfig, %(excluded)s) || websearch_to_tsquery('german'::regconfig, %(excluded)s)) END))

-- memories.selectors.sql.VECTOR_PLAN_SQL
SELECT count(*),
       set_config('hnsw.iterative_scan', 'relaxed_order', true),
       set_config('hnsw.ef_search', %(ef_search)s, true),
       set_config('hnsw.max_scan_tuples', %(max_scan_tuples)s, true)
  FROM (SELECT 1 FROM memories_memory WHERE mind_id = %(mind_id)s LIMIT %(probe)s) AS mind_rows

-- minds.sql.LOGIN_ACCOUNT_LOCK_SQL
SELECT pg_advisory_xact_lock(%s, %s)

-- pipelinelog.sql.ERASURE_BODIES_SQL
UPDATE pipelinelog_logentry
SET content = jsonb_set(content, ARRAY['body'], to_jsonb(%(erased)s::text))
WHERE span_id = ANY(%(span_ids)s::uuid[])
  AND kind = 'input'
  AND content ? 'body'
  AND content -> 'body' <> 'null'::jsonb
  AND content -> 'body' <> to_jsonb(%(erased)s::text)

-- pipelinelog.sql.ERASURE_ROWS_SQL
SELECT id, content
FROM pipelinelog_logentry
WHERE mind_id = %(mind_id)s
  AND created_at >= %(since)s
  AND id > %(after)s
  AND content IS NOT NULL
  AND EXISTS (SELECT 1 FROM unnest(%(needles)s::text[]) AS needle WHERE strpos(content::text, needle) > 0)
ORDER BY id
LIMIT %(limit)s

-- pipelinelog.sql.ERASURE_WRITING_SPANS_SQL
SELECT DISTINCT span_id
FROM pipelinelog_logentry
WHERE mind_id = %(mind_id)s
  AND created_at >= %(since)s
  AND kind = 'db_write'
  AND span_id IS NOT NULL
  AND strpos(content::text, %(quoted_id)s) > 0

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

-- synapses.net.sql.TABLES['pending']
memories_pendingpromotion

-- synapses.net.sql.TABLES['presence']
synapses_knotpresence

-- synapses.promotion.sql.ATTEMPT_SQL
INSERT INTO synapses_promotionattempt AS attempt
       (mind_id, memory_id, content_hash, attempts, last_error, parked_at, created_at, updated_at)
VALUES (%(mind)s, %(memory)s, %(hash)s, 1, %(error)s,
        CASE WHEN 1 >= %(max)s THEN %(now)s::timestamptz END, %(now)s, %(now)s)
ON CONFLICT (mind_id, memory_id, content_hash) DO UPDATE
   SET attempts = attempt.attempts + 1,
       last_error = EXCLUDED.last_error,
       updated_at = EXCLUDED.updated_at,
       parked_at = CASE WHEN attempt.attempts + 1 >= %(max)s
                        THEN coalesce(attempt.parked_at, EXCLUDED.updated_at) END
RETURNING attempts, parked_at IS NOT NULL

-- synapses.promotion.sql.ENTITIES_INSERT_SQL
INSERT INTO synapses_entity (mind_id, name, aliases, created_at)
SELECT %(mind)s, given.name, '{}', %(now)s
  FROM unnest(%(names)s::varchar[]) WITH ORDINALITY AS given(name, n)
 WHERE NOT EXISTS (
       SELECT 1 FROM synapses_entity AS known
        WHERE known.mind_id = %(mind)s
          AND (lower(known.name) = lower(given.name)
               OR synapses_aliases_lower(known.aliases) @> ARRAY[lower(given.name)]))
 ORDER BY given.n
ON CONFLICT DO NOTHING
RETURNING lower(name)

-- synapses.promotion.sql.ENTITIES_OF_KEYS_SQL
SELECT id, name, aliases FROM synapses_entity
 WHERE mind_id = %(mind)s
   AND (lower(name) = ANY(ARRAY(SELECT jsonb_array_elements_text(%(keys)s::jsonb)))
        OR synapses_aliases_lower(aliases) && ARRAY(SELECT jsonb_array_elements_text(%(keys)s::jsonb)))
 ORDER BY id

-- synapses.promotion.sql.HNSW_SETTINGS_COLUMNS
set_config('hnsw.iterative_scan', 'relaxed_order', true),
       set_config('hnsw.ef_search', %(ef_search)s, true),
       set_config('hnsw.max_scan_tuples', %(max_scan_tuples)s, true)

-- synapses.promotion.sql.KNOTS_RECURRENCE_GAIN_SQL
UPDATE synapses_knot
   SET entities = array_append(entities, %(entity)s),
       magnets = jsonb_set(magnets, ARRAY['entities'], coalesce(magnets -> 'entities', '[]'::jsonb)
                 || jsonb_build_array(jsonb_build_object('id', %(entity)s, 'name', %(name)s, 'rule', 'recurrence')))
 WHERE mind_id = %(mind)s AND NOT (entities @> ARRAY[%(entity)s]::bigint[])
   AND content ~ %(pattern)s

-- synapses.promotion.sql.KNOT_CREATE_SQL
WITH knot AS (
    INSERT INTO synapses_knot (mind_id, memory_id, content, content_hash, category, observer, emotion, arousal,
                        attributes, embedding, embedding_model, themes, entities, magnets, event_time,
                        event_precision, weight_raw, weight_anchor, activation_count, created_at,
                        source_created_at)
    VALUES (%(mind_id)s, %(memory_id)s, %(content)s, %(content_hash)s, %(category)s, %(observer)s, %(emotion)s,
            NULL, %(attributes)s::jsonb, %(embedding)s::vector, %(embedding_model)s, %(themes)s::varchar[],
            %(entities)s::bigint[], %(magnets)s::jsonb, %(event_time)s, %(event_precision)s, %(weight_raw)s,
            %(weight_anchor)s, 1, %(created_at)s, %(source_created_at)s)
    RETURNING id
), presence AS (
    INSERT INTO synapses_knotpresence (knot_id, mind_id, presence_base, weight_present, reinforced_at, decayed_at, is_active)
    SELECT id, %(mind_id)s, %(weight_anchor)s, %(weight_anchor)s, %(created_at)s, %(created_at)s, true FROM knot
), link AS (
    INSERT INTO synapses_memoryknot (mind_id, memory_id, content_hash, knot_id, kind, created_at)
    SELECT %(mind_id)s, %(memory_id)s, %(content_hash)s, id, %(kind)s, %(created_at)s FROM knot
)
SELECT id FROM knot

-- synapses.promotion.sql.LINK_SQL
INSERT INTO synapses_memoryknot (mind_id, memory_id, content_hash, knot_id, kind, created_at)
VALUES (%(mind)s, %(memory)s, %(hash)s, %(knot)s, %(kind)s, %(now)s)

-- synapses.promotion.sql.LOCKS_SQL
SELECT pg_advisory_xact_lock(keys.key)
  FROM (SELECT DISTINCT unnest(%(keys)s::bigint[]) AS key ORDER BY key) AS keys

-- synapses.promotion.sql.NEAREST_SQL[<VectorPlan.EXACT: 'exact'>]
SELECT nearest.id, nearest.distance, presence.is_active, nearest.content
  FROM (SELECT id, embedding <=> %(vector)s::vector AS distance, content
          FROM synapses_knot
         WHERE mind_id = %(mind)s AND memory_id <> %(memory)s
         ORDER BY (embedding <=> %(vector)s::vector) + 0
         LIMIT %(candidates)s) AS nearest
  JOIN synapses_knotpresence AS presence ON presence.knot_id = nearest.id

-- synapses.promotion.sql.NEAREST_SQL[<VectorPlan.HNSW: 'hnsw'>]
SELECT nearest.id, nearest.distance, presence.is_active, nearest.content
  FROM (SELECT id, embedding <=> %(vector)s::vector AS distance, content
          FROM synapses_knot
         WHERE mind_id = %(mind)s AND memory_id <> %(memory)s
         ORDER BY embedding <=> %(vector)s::vector
         LIMIT %(candidates)s) AS nearest
  JOIN synapses_knotpresence AS presence ON presence.knot_id = nearest.id

-- synapses.promotion.sql.NEAREST_UNDER_SETTINGS_SQL
SELECT set_config('hnsw.iterative_scan', 'relaxed_order', true),
       set_config('hnsw.ef_search', %(ef_search)s, true),
       set_config('hnsw.max_scan_tuples', %(max_scan_tuples)s, true);

SELECT nearest.id, nearest.distance, presence.is_active, nearest.content
  FROM (SELECT id, embedding <=> %(vector)s::vector AS distance, content
          FROM synapses_knot
         WHERE mind_id = %(mind)s AND memory_id <> %(memory)s
         ORDER BY embedding <=> %(vector)s::vector
         LIMIT %(candidates)s) AS nearest
  JOIN synapses_knotpresence AS presence ON presence.knot_id = nearest.id

-- synapses.promotion.sql.PLAN_SQL
SELECT count(*),
       set_config('hnsw.iterative_scan', 'relaxed_order', true),
       set_config('hnsw.ef_search', %(ef_search)s, true),
       set_config('hnsw.max_scan_tuples', %(max_scan_tuples)s, true)
  FROM (SELECT 1 FROM synapses_knot WHERE mind_id = %(mind)s LIMIT %(probe)s) AS mind_knots

-- synapses.promotion.sql.TABLES['attempt']
synapses_promotionattempt

-- synapses.promotion.sql.TABLES['decay_run']
synapses_decayrun

-- synapses.promotion.sql.TABLES['edge']
synapses_edge

-- synapses.promotion.sql.TABLES['entity']
synapses_entity

-- synapses.promotion.sql.TABLES['goal']
synapses_goal

-- synapses.promotion.sql.TABLES['knot']
synapses_knot

-- synapses.promotion.sql.TABLES['link']
synapses_memoryknot

-- synapses.promotion.sql.TABLES['memory']
memories_memory

-- synapses.promotion.sql.TABLES['pending']
memories_pendingpromotion

-- synapses.promotion.sql.TABLES['presence']
synapses_knotpresence

-- synapses.resonance.sql.ANCHORS_SQL[(<VectorPlan.EXACT: 'exact'>, <TextList.EVERY_MATCH: 'every_match'>)]
WITH nearest AS MATERIALIZED (
    SELECT k.id, k.embedding <=> %(vector)s::vector AS distance
      FROM synapses_knot k JOIN synapses_knotpresence p ON p.knot_id = k.id AND p.is_active
     WHERE k.mind_id = %(mind_id)s
     ORDER BY (k.embedding <=> %(vector)s::vector) + 0
     LIMIT %(candidates)s
), text AS (
    SELECT k.id, ts_rank_cd(k.search_vector, (((((SELECT coalesce(string_agg(DISTINCT '''' || replace(replace(lexeme, '\', '\\'), '''', '''''') || '''', ' | '), '')::tsquery FROM (SELECT lexeme, position FROM unnest(to_tsvector('simple'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position UNION ALL SELECT lexeme, position FROM unnest(to_tsvector('english'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position UNION ALL SELECT lexeme, position FROM unnest(to_tsvector('german'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position) AS lexemes WHERE position IN (SELECT position FROM (SELECT lexeme, position FROM unnest(to_tsvector('english'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position) AS kept INTERSECT SELECT position FROM (SELECT lexeme, position FROM unnest(to_tsvector('german'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position) AS kept))) || (CASE WHEN %(phrases)s = '' THEN ''::tsquery ELSE websearch_to_tsquery('simple'::regconfig, %(phrases)s) || websearch_to_tsquery('english'::regconfig, %(phrases)s) || websearch_to_tsquery('german'::regconfig, %(phrases)s) END)) && (CASE WHEN %(excluded)s = '' THEN ''::tsquery ELSE !!(websearch_to_tsquery('simple'::regconfig, %(excluded)s) || websearch_to_tsquery('english'::regconfig, %(excluded)s) || websearch_to_tsquery('german'::regconfig, %(excluded)s)) END))))::float8 AS score
      FROM synapses_knot k JOIN synapses_knotpresence p ON p.knot_id = k.id AND p.is_active
     WHERE k.mind_id = %(mind_id)s AND k.search_vector @@ (((((SELECT coalesce(string_agg(DISTINCT '''' || replace(replace(lexeme, '\', '\\'), '''', '''''') || '''', ' | '), '')::tsquery FROM (SELECT lexeme, position FROM unnest(to_tsvector('simple'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position UNION ALL SELECT lexeme, position FROM unnest(to_tsvector('english'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position UNION ALL SELECT lexeme, position FROM unnest(to_tsvector('german'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position) AS lexemes WHERE position IN (SELECT position FROM (SELECT lexeme, position FROM unnest(to_tsvector('english'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position) AS kept INTERSECT SELECT position FROM (SELECT lexeme, position FROM unnest(to_tsvector('german'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position) AS kept))) || (CASE WHEN %(phrases)s = '' THEN ''::tsquery ELSE websearch_to_tsquery('simple'::regconfig, %(phrases)s) || websearch_to_tsquery('english'::regconfig, %(phrases)s) || websearch_to_tsquery('german'::regconfig, %(phrases)s) END)) && (CASE WHEN %(excluded)s = '' THEN ''::tsquery ELSE !!(websearch_to_tsquery('simple'::regconfig, %(excluded)s) || websearch_to_tsquery('english'::regconfig, %(excluded)s) || websearch_to_tsquery('german'::regconfig, %(excluded)s)) END)))
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
;

WITH pending AS MATERIALIZED (
    SELECT memory.id, memory.embedding, memory.search_vector
      FROM memories_pendingpromotion pending JOIN memories_memory memory ON memory.id = pending.memory_id WHERE pending.mind_id = %(mind_id)s AND (expires_at IS NULL OR expires_at > %(now)s)
     ORDER BY pending.since DESC, pending.memory_id
     LIMIT 200
), query AS MATERIALIZED (
    SELECT (((((SELECT coalesce(string_agg(DISTINCT '''' || replace(replace(lexeme, '\', '\\'), '''', '''''') || '''', ' | '), '')::tsquery FROM (SELECT lexeme, position FROM unnest(to_tsvector('simple'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position UNION ALL SELECT lexeme, position FROM unnest(to_tsvector('english'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position UNION ALL SELECT lexeme, position FROM unnest(to_tsvector('german'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position) AS lexemes WHERE position IN (SELECT position FROM (SELECT lexeme, position FROM unnest(to_tsvector('english'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position) AS kept INTERSECT SELECT position FROM (SELECT lexeme, position FROM unnest(to_tsvector('german'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position) AS kept))) || (CASE WHEN %(phrases)s = '' THEN ''::tsquery ELSE websearch_to_tsquery('simple'::regconfig, %(phrases)s) || websearch_to_tsquery('english'::regconfig, %(phrases)s) || websearch_to_tsquery('german'::regconfig, %(phrases)s) END)) && (CASE WHEN %(excluded)s = '' THEN ''::tsquery ELSE !!(websearch_to_tsquery('simple'::regconfig, %(excluded)s) || websearch_to_tsquery('english'::regconfig, %(excluded)s) || websearch_to_tsquery('german'::regconfig, %(excluded)s)) END))) AS q
), text AS (
    SELECT p.id, ts_rank_cd(p.search_vector, query.q)::float8 AS score
      FROM pending p, query
     WHERE p.search_vector @@ query.q
     ORDER BY score DESC, p.id
     LIMIT %(candidates)s
), nearest AS (
    SELECT p.id, p.embedding <=> %(vector)s::vector AS distance
      FROM pending p
     WHERE p.embedding IS NOT NULL
     ORDER BY distance, p.id
     LIMIT %(candidates)s
), found AS (
    SELECT id, 'text' AS found_by, score FROM text
    UNION ALL
    SELECT id, 'vector' AS found_by, distance AS score FROM nearest
)
SELECT f.id, f.found_by, f.score, 1 - (m.embedding <=> %(vector)s::vector) AS cosine, m.salience, m.emotion,
       extract(epoch FROM m.created_at)::float8 AS created_at, m.content, m.tags, m.entities, m.speaker,
       m.created_at AS created
  FROM found f JOIN memories_memory m ON m.id = f.id

-- synapses.resonance.sql.ANCHORS_SQL[(<VectorPlan.EXACT: 'exact'>, <TextList.PER_TERM: 'per_term'>)]
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
;

WITH pending AS MATERIALIZED (
    SELECT memory.id, memory.embedding, memory.search_vector
      FROM memories_pendingpromotion pending JOIN memories_memory memory ON memory.id = pending.memory_id WHERE pending.mind_id = %(mind_id)s AND (expires_at IS NULL OR expires_at > %(now)s)
     ORDER BY pending.since DESC, pending.memory_id
     LIMIT 200
), query AS MATERIALIZED (
    SELECT (((((SELECT coalesce(string_agg(DISTINCT '''' || replace(replace(lexeme, '\', '\\'), '''', '''''') || '''', ' | '), '')::tsquery FROM (SELECT lexeme, position FROM unnest(to_tsvector('simple'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position UNION ALL SELECT lexeme, position FROM unnest(to_tsvector('english'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position UNION ALL SELECT lexeme, position FROM unnest(to_tsvector('german'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position) AS lexemes WHERE position IN (SELECT position FROM (SELECT lexeme, position FROM unnest(to_tsvector('english'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position) AS kept INTERSECT SELECT position FROM (SELECT lexeme, position FROM unnest(to_tsvector('german'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position) AS kept))) || (CASE WHEN %(phrases)s = '' THEN ''::tsquery ELSE websearch_to_tsquery('simple'::regconfig, %(phrases)s) || websearch_to_tsquery('english'::regconfig, %(phrases)s) || websearch_to_tsquery('german'::regconfig, %(phrases)s) END)) && (CASE WHEN %(excluded)s = '' THEN ''::tsquery ELSE !!(websearch_to_tsquery('simple'::regconfig, %(excluded)s) || websearch_to_tsquery('english'::regconfig, %(excluded)s) || websearch_to_tsquery('german'::regconfig, %(excluded)s)) END))) AS q
), text AS (
    SELECT p.id, ts_rank_cd(p.search_vector, query.q)::float8 AS score
      FROM pending p, query
     WHERE p.search_vector @@ query.q
     ORDER BY score DESC, p.id
     LIMIT %(candidates)s
), nearest AS (
    SELECT p.id, p.embedding <=> %(vector)s::vector AS distance
      FROM pending p
     WHERE p.embedding IS NOT NULL
     ORDER BY distance, p.id
     LIMIT %(candidates)s
), found AS (
    SELECT id, 'text' AS found_by, score FROM text
    UNION ALL
    SELECT id, 'vector' AS found_by, distance AS score FROM nearest
)
SELECT f.id, f.found_by, f.score, 1 - (m.embedding <=> %(vector)s::vector) AS cosine, m.salience, m.emotion,
       extract(epoch FROM m.created_at)::float8 AS created_at, m.content, m.tags, m.entities, m.speaker,
       m.created_at AS created
  FROM found f JOIN memories_memory m ON m.id = f.id

-- synapses.resonance.sql.ANCHORS_SQL[(<VectorPlan.HNSW: 'hnsw'>, <TextList.RARE_TERMS: 'rare_terms'>)]
SELECT set_config('hnsw.iterative_scan', 'relaxed_order', true),
       set_config('hnsw.ef_search', %(ef_search)s, true),
       set_config('hnsw.max_scan_tuples', %(max_scan_tuples)s, true);

WITH nearest AS MATERIALIZED (
    SELECT k.id, k.embedding <=> %(vector)s::vector AS distance
      FROM synapses_knot k JOIN synapses_knotpresence p ON p.knot_id = k.id AND p.is_active
     WHERE k.mind_id = %(mind_id)s
     ORDER BY k.embedding <=> %(vector)s::vector
     LIMIT %(candidates)s
), query AS MATERIALIZED (
    SELECT q, q AS alternatives FROM (SELECT (((((SELECT coalesce(string_agg(DISTINCT '''' || replace(replace(lexeme, '\', '\\'), '''', '''''') || '''', ' | '), '')::tsquery FROM (SELECT lexeme, position FROM unnest(to_tsvector('simple'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position UNION ALL SELECT lexeme, position FROM unnest(to_tsvector('english'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position UNION ALL SELECT lexeme, position FROM unnest(to_tsvector('german'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position) AS lexemes WHERE position IN (SELECT position FROM (SELECT lexeme, position FROM unnest(to_tsvector('english'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position) AS kept INTERSECT SELECT position FROM (SELECT lexeme, position FROM unnest(to_tsvector('german'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position) AS kept))) || (CASE WHEN %(phrases)s = '' THEN ''::tsquery ELSE websearch_to_tsquery('simple'::regconfig, %(phrases)s) || websearch_to_tsquery('english'::regconfig, %(phrases)s) || websearch_to_tsquery('german'::regconfig, %(phrases)s) END)) && (CASE WHEN %(excluded)s = '' THEN ''::tsquery ELSE !!(websearch_to_tsquery('simple'::regconfig, %(excluded)s) || websearch_to_tsquery('english'::regconfig, %(excluded)s) || websearch_to_tsquery('german'::regconfig, %(excluded)s)) END))) AS q) AS built
), rare AS MATERIALIZED (
    SELECT string_agg(t, ' | ')::tsquery AS q, count(*) AS terms
      FROM query, regexp_split_to_table(query.alternatives::text, ' [|] ') AS t
     WHERE query.alternatives::text <> '' AND btrim(t, '''') <> ALL(%(common)s::text[])
), matched AS (
    (SELECT k.id FROM rare, query, synapses_knot k
      WHERE rare.terms > 0 AND k.mind_id = %(mind_id)s AND k.search_vector @@ rare.q
      LIMIT %(term_matches)s * (SELECT terms FROM rare))
    UNION
    SELECT n.id FROM nearest n JOIN synapses_knot k ON k.id = n.id, query WHERE k.search_vector @@ query.q
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
;

WITH pending AS MATERIALIZED (
    SELECT memory.id, memory.embedding, memory.search_vector
      FROM memories_pendingpromotion pending JOIN memories_memory memory ON memory.id = pending.memory_id WHERE pending.mind_id = %(mind_id)s AND (expires_at IS NULL OR expires_at > %(now)s)
     ORDER BY pending.since DESC, pending.memory_id
     LIMIT 200
), query AS MATERIALIZED (
    SELECT (((((SELECT coalesce(string_agg(DISTINCT '''' || replace(replace(lexeme, '\', '\\'), '''', '''''') || '''', ' | '), '')::tsquery FROM (SELECT lexeme, position FROM unnest(to_tsvector('simple'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position UNION ALL SELECT lexeme, position FROM unnest(to_tsvector('english'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position UNION ALL SELECT lexeme, position FROM unnest(to_tsvector('german'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position) AS lexemes WHERE position IN (SELECT position FROM (SELECT lexeme, position FROM unnest(to_tsvector('english'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position) AS kept INTERSECT SELECT position FROM (SELECT lexeme, position FROM unnest(to_tsvector('german'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position) AS kept))) || (CASE WHEN %(phrases)s = '' THEN ''::tsquery ELSE websearch_to_tsquery('simple'::regconfig, %(phrases)s) || websearch_to_tsquery('english'::regconfig, %(phrases)s) || websearch_to_tsquery('german'::regconfig, %(phrases)s) END)) && (CASE WHEN %(excluded)s = '' THEN ''::tsquery ELSE !!(websearch_to_tsquery('simple'::regconfig, %(excluded)s) || websearch_to_tsquery('english'::regconfig, %(excluded)s) || websearch_to_tsquery('german'::regconfig, %(excluded)s)) END))) AS q
), text AS (
    SELECT p.id, ts_rank_cd(p.search_vector, query.q)::float8 AS score
      FROM pending p, query
     WHERE p.search_vector @@ query.q
     ORDER BY score DESC, p.id
     LIMIT %(candidates)s
), nearest AS (
    SELECT p.id, p.embedding <=> %(vector)s::vector AS distance
      FROM pending p
     WHERE p.embedding IS NOT NULL
     ORDER BY distance, p.id
     LIMIT %(candidates)s
), found AS (
    SELECT id, 'text' AS found_by, score FROM text
    UNION ALL
    SELECT id, 'vector' AS found_by, distance AS score FROM nearest
)
SELECT f.id, f.found_by, f.score, 1 - (m.embedding <=> %(vector)s::vector) AS cosine, m.salience, m.emotion,
       extract(epoch FROM m.created_at)::float8 AS created_at, m.content, m.tags, m.entities, m.speaker,
       m.created_at AS created
  FROM found f JOIN memories_memory m ON m.id = f.id

-- synapses.resonance.sql.ANCHORS_SQL[(<VectorPlan.HNSW: 'hnsw'>, <TextList.RARE_TERMS_EXCLUDING: 'rare_terms_excluding'>)]
SELECT set_config('hnsw.iterative_scan', 'relaxed_order', true),
       set_config('hnsw.ef_search', %(ef_search)s, true),
       set_config('hnsw.max_scan_tuples', %(max_scan_tuples)s, true);

WITH nearest AS MATERIALIZED (
    SELECT k.id, k.embedding <=> %(vector)s::vector AS distance
      FROM synapses_knot k JOIN synapses_knotpresence p ON p.knot_id = k.id AND p.is_active
     WHERE k.mind_id = %(mind_id)s
     ORDER BY k.embedding <=> %(vector)s::vector
     LIMIT %(candidates)s
), query AS MATERIALIZED (
    SELECT q, ((((SELECT coalesce(string_agg(DISTINCT '''' || replace(replace(lexeme, '\', '\\'), '''', '''''') || '''', ' | '), '')::tsquery FROM (SELECT lexeme, position FROM unnest(to_tsvector('simple'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position UNION ALL SELECT lexeme, position FROM unnest(to_tsvector('english'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position UNION ALL SELECT lexeme, position FROM unnest(to_tsvector('german'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position) AS lexemes WHERE position IN (SELECT position FROM (SELECT lexeme, position FROM unnest(to_tsvector('english'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position) AS kept INTERSECT SELECT position FROM (SELECT lexeme, position FROM unnest(to_tsvector('german'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position) AS kept))) || (CASE WHEN %(phrases)s = '' THEN ''::tsquery ELSE websearch_to_tsquery('simple'::regconfig, %(phrases)s) || websearch_to_tsquery('english'::regconfig, %(phrases)s) || websearch_to_tsquery('german'::regconfig, %(phrases)s) END))) AS alternatives FROM (SELECT (((((SELECT coalesce(string_agg(DISTINCT '''' || replace(replace(lexeme, '\', '\\'), '''', '''''') || '''', ' | '), '')::tsquery FROM (SELECT lexeme, position FROM unnest(to_tsvector('simple'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position UNION ALL SELECT lexeme, position FROM unnest(to_tsvector('english'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position UNION ALL SELECT lexeme, position FROM unnest(to_tsvector('german'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position) AS lexemes WHERE position IN (SELECT position FROM (SELECT lexeme, position FROM unnest(to_tsvector('english'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position) AS kept INTERSECT SELECT position FROM (SELECT lexeme, position FROM unnest(to_tsvector('german'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position) AS kept))) || (CASE WHEN %(phrases)s = '' THEN ''::tsquery ELSE websearch_to_tsquery('simple'::regconfig, %(phrases)s) || websearch_to_tsquery('english'::regconfig, %(phrases)s) || websearch_to_tsquery('german'::regconfig, %(phrases)s) END)) && (CASE WHEN %(excluded)s = '' THEN ''::tsquery ELSE !!(websearch_to_tsquery('simple'::regconfig, %(excluded)s) || websearch_to_tsquery('english'::regconfig, %(excluded)s) || websearch_to_tsquery('german'::regconfig, %(excluded)s)) END))) AS q) AS built
), rare AS MATERIALIZED (
    SELECT string_agg(t, ' | ')::tsquery AS q, count(*) AS terms
      FROM query, regexp_split_to_table(query.alternatives::text, ' [|] ') AS t
     WHERE query.alternatives::text <> '' AND btrim(t, '''') <> ALL(%(common)s::text[])
), matched AS (
    (SELECT k.id FROM rare, query, synapses_knot k
      WHERE rare.terms > 0 AND k.mind_id = %(mind_id)s AND k.search_vector @@ rare.q
            AND (k.search_vector @@ query.q) IS TRUE
      LIMIT %(term_matches)s * (SELECT terms FROM rare))
    UNION
    SELECT n.id FROM nearest n JOIN synapses_knot k ON k.id = n.id, query WHERE k.search_vector @@ query.q
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
;

WITH pending AS MATERIALIZED (
    SELECT memory.id, memory.embedding, memory.search_vector
      FROM memories_pendingpromotion pending JOIN memories_memory memory ON memory.id = pending.memory_id WHERE pending.mind_id = %(mind_id)s AND (expires_at IS NULL OR expires_at > %(now)s)
     ORDER BY pending.since DESC, pending.memory_id
     LIMIT 200
), query AS MATERIALIZED (
    SELECT (((((SELECT coalesce(string_agg(DISTINCT '''' || replace(replace(lexeme, '\', '\\'), '''', '''''') || '''', ' | '), '')::tsquery FROM (SELECT lexeme, position FROM unnest(to_tsvector('simple'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position UNION ALL SELECT lexeme, position FROM unnest(to_tsvector('english'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position UNION ALL SELECT lexeme, position FROM unnest(to_tsvector('german'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position) AS lexemes WHERE position IN (SELECT position FROM (SELECT lexeme, position FROM unnest(to_tsvector('english'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position) AS kept INTERSECT SELECT position FROM (SELECT lexeme, position FROM unnest(to_tsvector('german'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position) AS kept))) || (CASE WHEN %(phrases)s = '' THEN ''::tsquery ELSE websearch_to_tsquery('simple'::regconfig, %(phrases)s) || websearch_to_tsquery('english'::regconfig, %(phrases)s) || websearch_to_tsquery('german'::regconfig, %(phrases)s) END)) && (CASE WHEN %(excluded)s = '' THEN ''::tsquery ELSE !!(websearch_to_tsquery('simple'::regconfig, %(excluded)s) || websearch_to_tsquery('english'::regconfig, %(excluded)s) || websearch_to_tsquery('german'::regconfig, %(excluded)s)) END))) AS q
), text AS (
    SELECT p.id, ts_rank_cd(p.search_vector, query.q)::float8 AS score
      FROM pending p, query
     WHERE p.search_vector @@ query.q
     ORDER BY score DESC, p.id
     LIMIT %(candidates)s
), nearest AS (
    SELECT p.id, p.embedding <=> %(vector)s::vector AS distance
      FROM pending p
     WHERE p.embedding IS NOT NULL
     ORDER BY distance, p.id
     LIMIT %(candidates)s
), found AS (
    SELECT id, 'text' AS found_by, score FROM text
    UNION ALL
    SELECT id, 'vector' AS found_by, distance AS score FROM nearest
)
SELECT f.id, f.found_by, f.score, 1 - (m.embedding <=> %(vector)s::vector) AS cosine, m.salience, m.emotion,
       extract(epoch FROM m.created_at)::float8 AS created_at, m.content, m.tags, m.entities, m.speaker,
       m.created_at AS created
  FROM found f JOIN memories_memory m ON m.id = f.id

-- synapses.resonance.sql.DETAILS_SQL
SELECT k.id, k.memory_id, k.content, k.themes, k.emotion, k.observer, k.created_at,
       ARRAY(SELECT l.memory_id FROM synapses_memoryknot l WHERE l.knot_id = k.id ORDER BY l.created_at, l.id) AS linked,
       EXISTS(SELECT 1 FROM synapses_memoryknot l
               WHERE l.mind_id = k.mind_id AND l.memory_id = k.memory_id AND l.content_hash = m.content_hash
                 AND l.knot_id <> k.id) AS superseded,
       ARRAY(SELECT e.name FROM unnest(k.entities) WITH ORDINALITY AS x(id, n)
               JOIN synapses_entity e ON e.id = x.id AND e.mind_id = k.mind_id ORDER BY x.n) AS entity_names,
       (SELECT coalesce(jsonb_object_agg(e.id, e.name), '{}') FROM synapses_entity e
         WHERE e.mind_id = %(mind_id)s AND e.id = ANY(%(path_entities)s::bigint[])) AS path_names
  FROM synapses_knot k JOIN memories_memory m ON m.id = k.memory_id
 WHERE k.mind_id = %(mind_id)s AND k.id = ANY(%(ids)s::bigint[])

-- synapses.resonance.sql.GOALS_SQL
SELECT id, embedding::real[], motivation FROM synapses_goal
 WHERE mind_id = %(mind_id)s AND active AND embedding IS NOT NULL AND embedding_model = %(model)s
 ORDER BY id

-- synapses.resonance.sql.LEXEME_ESTIMATES_SQL
WITH statistics AS (
    SELECT max(s.most_common_elems::text) FILTER (WHERE s.attname = 'search_vector')::text[] AS lexemes,
           max(s.most_common_elem_freqs::text) FILTER (WHERE s.attname = 'search_vector')::real[] AS freqs,
           coalesce(max(s.most_common_freqs[array_position(s.most_common_vals::text::text[], %(mind_id)s)])
                      FILTER (WHERE s.attname = 'mind_id'), 0)
           * greatest((SELECT c.reltuples FROM pg_class c WHERE c.oid = 'synapses_knot'::regclass), 0) AS knots
      FROM pg_stats s
     WHERE s.schemaname = current_schema() AND s.tablename = 'synapses_knot' AND s.attname IN ('search_vector', 'mind_id')
)
SELECT x.lexeme, x.freq * statistics.knots
  FROM statistics, unnest(statistics.lexemes, statistics.freqs[1:cardinality(statistics.lexemes)]) AS x(lexeme, freq)
 WHERE x.lexeme IS NOT NULL

-- synapses.resonance.sql.PENDING_MEMORIES_SQL
memories_pendingpromotion pending JOIN memories_memory memory ON memory.id = pending.memory_id WHERE pending.mind_id = %(mind_id)s AND (expires_at IS NULL OR expires_at > %(now)s)

-- synapses.resonance.sql.SHELL_SQL['relevance']
WITH frontier AS (
    SELECT source, predecessor, slot
      FROM unnest(%(sources)s::bigint[], %(predecessors)s::bigint[]) WITH ORDINALITY AS f(source, predecessor, slot)
), followed AS (
    SELECT f.slot, e.id AS edge_id, e.target_id, e.layers, e.shared_entities, e.shared_themes,
           p.weight_present, k.emotion, c.cosine,
           row_number() OVER (PARTITION BY f.slot ORDER BY e.weight_anchor * greatest(c.cosine, 0) DESC, e.id) AS n
      FROM frontier f
      JOIN synapses_edge e ON e.mind_id = %(mind_id)s AND e.source_id = f.source
      JOIN synapses_knotpresence p ON p.knot_id = e.target_id AND p.is_active
      JOIN synapses_knot k ON k.id = e.target_id,
      LATERAL (SELECT 1 - (k.embedding <=> %(vector)s::vector) AS cosine) c
     WHERE f.predecessor IS NULL OR e.target_id <> f.predecessor
)
SELECT slot, edge_id, target_id, layers, shared_entities, shared_themes, weight_present, emotion, cosine
  FROM followed
 WHERE n <= %(k)s
 ORDER BY slot, n

-- synapses.resonance.sql.SHELL_SQL['seed']
WITH frontier AS (
    SELECT source, predecessor, slot
      FROM unnest(%(sources)s::bigint[], %(predecessors)s::bigint[]) WITH ORDINALITY AS f(source, predecessor, slot)
), followed AS (
    SELECT f.slot, e.id AS edge_id, e.target_id, e.layers, e.shared_entities, e.shared_themes,
           p.weight_present, k.emotion, c.cosine,
           row_number() OVER (PARTITION BY f.slot ORDER BY e.weight_anchor DESC, e.id) AS n
      FROM frontier f
      JOIN synapses_edge e ON e.mind_id = %(mind_id)s AND e.source_id = f.source
      JOIN synapses_knotpresence p ON p.knot_id = e.target_id AND p.is_active
      JOIN synapses_knot k ON k.id = e.target_id,
      LATERAL (SELECT 1 - (k.embedding <=> %(vector)s::vector) AS cosine) c
     WHERE f.predecessor IS NULL OR e.target_id <> f.predecessor
)
SELECT slot, edge_id, target_id, layers, shared_entities, shared_themes, weight_present, emotion, cosine
  FROM followed
 WHERE n <= %(k)s
 ORDER BY slot, n

-- synapses.resonance.sql.TABLES['attempt']
synapses_promotionattempt

-- synapses.resonance.sql.TABLES['decay_run']
synapses_decayrun

-- synapses.resonance.sql.TABLES['edge']
synapses_edge

-- synapses.resonance.sql.TABLES['entity']
synapses_entity

-- synapses.resonance.sql.TABLES['goal']
synapses_goal

-- synapses.resonance.sql.TABLES['knot']
synapses_knot

-- synapses.resonance.sql.TABLES['link']
synapses_memoryknot

-- synapses.resonance.sql.TABLES['memory']
memories_memory

-- synapses.resonance.sql.TABLES['pending']
memories_pendingpromotion

-- synapses.resonance.sql.TABLES['presence']
synapses_knotpresence

-- synapses.resonance.sql.TSQUERY_ALTERNATIVES_SQL
(((SELECT coalesce(string_agg(DISTINCT '''' || replace(replace(lexeme, '\', '\\'), '''', '''''') || '''', ' | '), '')::tsquery FROM (SELECT lexeme, position FROM unnest(to_tsvector('simple'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position UNION ALL SELECT lexeme, position FROM unnest(to_tsvector('english'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position UNION ALL SELECT lexeme, position FROM unnest(to_tsvector('german'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position) AS lexemes WHERE position IN (SELECT position FROM (SELECT lexeme, position FROM unnest(to_tsvector('english'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position) AS kept INTERSECT SELECT position FROM (SELECT lexeme, position FROM unnest(to_tsvector('german'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position) AS kept))) || (CASE WHEN %(phrases)s = '' THEN ''::tsquery ELSE websearch_to_tsquery('simple'::regconfig, %(phrases)s) || websearch_to_tsquery('english'::regconfig, %(phrases)s) || websearch_to_tsquery('german'::regconfig, %(phrases)s) END))

-- synapses.resonance.sql.TSQUERY_SQL
((((SELECT coalesce(string_agg(DISTINCT '''' || replace(replace(lexeme, '\', '\\'), '''', '''''') || '''', ' | '), '')::tsquery FROM (SELECT lexeme, position FROM unnest(to_tsvector('simple'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position UNION ALL SELECT lexeme, position FROM unnest(to_tsvector('english'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position UNION ALL SELECT lexeme, position FROM unnest(to_tsvector('german'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position) AS lexemes WHERE position IN (SELECT position FROM (SELECT lexeme, position FROM unnest(to_tsvector('english'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position) AS kept INTERSECT SELECT position FROM (SELECT lexeme, position FROM unnest(to_tsvector('german'::regconfig, %(words)s)) AS word, unnest(word.positions) AS position) AS kept))) || (CASE WHEN %(phrases)s = '' THEN ''::tsquery ELSE websearch_to_tsquery('simple'::regconfig, %(phrases)s) || websearch_to_tsquery('english'::regconfig, %(phrases)s) || websearch_to_tsquery('german'::regconfig, %(phrases)s) END)) && (CASE WHEN %(excluded)s = '' THEN ''::tsquery ELSE !!(websearch_to_tsquery('simple'::regconfig, %(excluded)s) || websearch_to_tsquery('english'::regconfig, %(excluded)s) || websearch_to_tsquery('german'::regconfig, %(excluded)s)) END))

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

-- synapses.upkeep.sql.ENTITY_DELETE_KNOTS_SQL
UPDATE synapses_knot
   SET entities = array_remove(entities, %(gone)s),
       magnets = CASE WHEN magnets ? 'entities'
                      THEN jsonb_set(magnets, ARRAY['entities'], coalesce(
                               (SELECT jsonb_agg(found) FROM jsonb_array_elements(magnets -> 'entities') AS found
                                 WHERE (found ->> 'id')::bigint <> %(gone)s), '[]'::jsonb))
                      ELSE magnets END
 WHERE mind_id = %(mind)s AND entities @> ARRAY[%(gone)s]::bigint[]
RETURNING id

-- synapses.upkeep.sql.ENTITY_MERGE_KNOTS_SQL
UPDATE synapses_knot
   SET entities = CASE WHEN entities @> ARRAY[%(into)s]::bigint[]
                       THEN array_remove(entities, %(gone)s)
                       ELSE array_replace(entities, %(gone)s, %(into)s) END
 WHERE mind_id = %(mind)s AND entities @> ARRAY[%(gone)s]::bigint[]
RETURNING id

-- synapses.upkeep.sql.KNOTS_MENTIONING_GAIN_SQL
UPDATE synapses_knot SET entities = array_append(entities, %(entity)s)
 WHERE mind_id = %(mind)s AND NOT (entities @> ARRAY[%(entity)s]::bigint[])
   AND content ~* ANY(%(patterns)s::text[])
RETURNING id

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

-- synapses.upkeep.sql.TABLES['pending']
memories_pendingpromotion

-- synapses.upkeep.sql.TABLES['presence']
synapses_knotpresence
