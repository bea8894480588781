"""All routes of the memories app: accounts and minds (human), and the memory API."""

from memories.api.account_urls import urlpatterns as account_urlpatterns
from memories.api.memory_urls import urlpatterns as memory_urlpatterns

urlpatterns = [*account_urlpatterns, *memory_urlpatterns]
