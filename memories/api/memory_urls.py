"""Routes for the memory API (Mind Key, or a human naming the mind).

`<memory_id:…>` only matches `mem_…` ids, so fixed paths like /memory/recall never collide
with it and the order of routes here does not matter.
"""

from memories.api import views
from memoryproject.routing import route

urlpatterns = [
    *route("memory", views.MemoryCollectionView.as_view(), name="memory-collection"),
    *route("memory/<memory_id:memory_id>", views.MemoryDetailView.as_view(), name="memory-detail"),
]
