"""The page sizes of every list of the API, without DRF: the paging of the API layer
(memoryproject.core.pagination) and the selectors that cap what they read (a diff's page) share them."""

# Largest page any list returns (the contract's cap on `limit`).
MAX_PAGE_LIMIT = 1000
# Page size of a list whose view sets no `page_default_limit`.
DEFAULT_PAGE_LIMIT = 100
