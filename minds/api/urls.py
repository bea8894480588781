"""Routes for accounts, minds, keys and shares (humans).

`<mind_id:…>` only matches `m_…` ids (memoryproject.core.converters), so `minds/shared` never collides
with a mind id.
"""

from memoryproject.core.routing import route
from minds.api import views

urlpatterns = [
    *route("register", views.RegisterView.as_view(), name="register"),
    *route("login", views.LoginView.as_view(), name="login"),
    *route("token/refresh", views.TokenRefreshView.as_view(), name="token-refresh"),
    *route("logout", views.LogoutView.as_view(), name="api-logout"),
    *route("minds", views.MindCollectionView.as_view(), name="mind-collection"),
    *route("minds/shared", views.MindSharedListView.as_view(), name="minds-shared"),
    *route("minds/<mind_id:mind_id>", views.MindDetailView.as_view(), name="mind-detail"),
    *route("minds/<mind_id:mind_id>/keys", views.MindKeyCollectionView.as_view(), name="mind-key-collection"),
    *route("minds/<mind_id:mind_id>/keys/<int:key_id>", views.MindKeyDetailView.as_view(), name="mind-key-detail"),
    *route("minds/<mind_id:mind_id>/share", views.MindShareCreateView.as_view(), name="mind-share"),
    *route("minds/<mind_id:mind_id>/shares", views.MindShareCollectionView.as_view(), name="mind-share-collection"),
    *route(
        "minds/<mind_id:mind_id>/shares/<int:share_id>", views.MindShareDetailView.as_view(), name="mind-share-detail"
    ),
]
