"""The net in the export file, and back: knots (with presence and memory links), edges, entities
and goals of one mind (docs/export-format.md, "The net's sections").

Export streams each section in chunks of NET_EXPORT_CHUNK_ROWS. Import maps every id of the file
to the target mind's — memories through the ids the memory import gave them, knots by (memory,
content hash), entities by lower-cased name, edges by (source, target), goals by (statement,
created_at) — so a second import of the same file finds every row and creates nothing. Rows are
checked completely before the first write; set-based: one query per kind of row, never per row.

Registered with `memoryproject.core.contributions` in `SynapsesConfig.ready()`.

`fields` names the sections and their rows' fields, `export` streams them, `reading` checks an
import's rows and `importing` writes them.
"""
