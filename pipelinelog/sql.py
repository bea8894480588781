"""The pipeline log's hand-written statements, whole (pinned in tests/golden/statements.sql).

Erasure searches a mind's rows for the beginnings of erased contents in the rows' JSON as text
(`strpos`, so no character of a content is a pattern character); `%(needles)s` are those
beginnings as jsonb prints them (`pipelinelog.erasure.needle_in_json`).
"""

# A mind's rows since a time that quote any of the needles, after a row id, in id order: one
# batch of the erasure's scan (the mind index gives the mind's rows since the time).
ERASURE_ROWS_SQL = """
SELECT id, content
FROM pipelinelog_logentry
WHERE mind_id = %(mind_id)s
  AND created_at >= %(since)s
  AND id > %(after)s
  AND content IS NOT NULL
  AND EXISTS (SELECT 1 FROM unnest(%(needles)s::text[]) AS needle WHERE strpos(content::text, needle) > 0)
ORDER BY id
LIMIT %(limit)s
"""

# The spans that wrote the memory: a db_write row of the mind naming its id (`"id": "mem_…"`, or
# in the lists of a sync or an import). Their request bodies held its contents, earlier versions
# included, which no stored row remembers.
ERASURE_WRITING_SPANS_SQL = """
SELECT DISTINCT span_id
FROM pipelinelog_logentry
WHERE mind_id = %(mind_id)s
  AND created_at >= %(since)s
  AND kind = 'db_write'
  AND span_id IS NOT NULL
  AND strpos(content::text, %(quoted_id)s) > 0
"""

# Those spans' request bodies replaced by the erasure mark; method, path and query stay.
ERASURE_BODIES_SQL = """
UPDATE pipelinelog_logentry
SET content = jsonb_set(content, ARRAY['body'], to_jsonb(%(erased)s::text))
WHERE span_id = ANY(%(span_ids)s::uuid[])
  AND kind = 'input'
  AND content ? 'body'
  AND content -> 'body' <> 'null'::jsonb
  AND content -> 'body' <> to_jsonb(%(erased)s::text)
"""
