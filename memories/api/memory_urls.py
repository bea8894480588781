"""Routes for the memory API (Mind Key, or a human naming the mind).

`<memory_id:…>` only matches `mem_…` ids, so fixed paths like /memory/recall never collide
with it and the order of routes here does not matter.
"""

from memories.api import overview_views, recall_views, transfer_views, views
from memories.api.search_views import SearchView, SemanticSearchView
from memoryproject.core.routing import route

urlpatterns = [
    *route("memory", views.MemoryCollectionView.as_view(), name="memory-collection"),
    *route("memory/<memory_id:memory_id>", views.MemoryDetailView.as_view(), name="memory-detail"),
]

# Recall, overviews, compaction, export and import (related and graph: the net serves them, synapses/api/urls.py).
urlpatterns += [
    *route("memory/recall", recall_views.RecallView.as_view(), name="memory-recall"),
    *route("memory/stats", overview_views.StatsView.as_view(), name="memory-stats"),
    *route("memory/health", overview_views.MindHealthView.as_view(), name="memory-health"),
    *route("memory/tags", overview_views.TagsView.as_view(), name="memory-tags"),
    *route("memory/timeline", overview_views.TimelineView.as_view(), name="memory-timeline"),
    *route("memory/contradictions", overview_views.ContradictionsView.as_view(), name="memory-contradictions"),
    *route("memory/compact", overview_views.CompactView.as_view(), name="memory-compact"),
    *route("mind/export", transfer_views.ExportView.as_view(), name="mind-export"),
    *route("mind/import", transfer_views.ImportView.as_view(), name="mind-import"),
]

# Update, delete, purge of earlier versions, verify, sync, audit, diff and the short lists.
urlpatterns += [
    *route("memory/<memory_id:memory_id>/versions", views.MemoryVersionsView.as_view(), name="memory-versions"),
    *route("memory/<memory_id:memory_id>/verify", views.MemoryVerifyView.as_view(), name="memory-verify"),
    *route("memory/<memory_id:memory_id>/unverify", views.MemoryUnverifyView.as_view(), name="memory-unverify"),
    *route("memory/sync", views.MemorySyncView.as_view(), name="memory-sync"),
    *route("memory/audit", views.MemoryAuditView.as_view(), name="memory-audit"),
    *route("memory/diff", views.MemoryDiffView.as_view(), name="memory-diff"),
    *route("memory/unverified", views.MemoryUnverifiedView.as_view(), name="memory-unverified"),
    *route("memory/expiring", views.MemoryExpiringView.as_view(), name="memory-expiring"),
    *route("memory/by-tag", views.MemoryByTagView.as_view(), name="memory-by-tag"),
]

# Search: hybrid (full text + vectors) and semantic.
urlpatterns += [
    *route("memory/search", SearchView.as_view(), name="memory-search"),
    *route("memory/semantic-search", SemanticSearchView.as_view(), name="memory-semantic-search"),
]
