"""What every app shares and no app owns: the domain errors and the one error handler, the HTTP
helpers of every API (`api/`), paging, routing, public ids and their URL converters, time input,
request parsing and the middleware that acts before any view, the OpenAPI pieces, the UI pages'
common parts, and the registry of what higher apps add to lower apps' answers. Nothing here
imports an app (the import contract `shared-helpers`)."""
