"""Routes for accounts, minds, keys and shares (humans)."""

urlpatterns: list = []
