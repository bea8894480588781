"""Routes for the memory API (Mind Key, or a human naming the mind)."""

urlpatterns: list = []
