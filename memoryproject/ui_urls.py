"""Routes of the human UI (docs/ui.md): accounts under /accounts/, everything else under /app/.

Part of the composition root, like `urls.py`: it names the UI views of every app. Unlike the
API's paths these end in a slash (forms post to them, and the browser keeps relative links right).
"""

from django.urls import path, re_path
from django.views.generic import RedirectView

from memories import views as memory_pages
from minds import views as mind_pages
from pipelinelog import views as log_pages
from synapses.ui import goals as goal_pages
from synapses.ui import net as net_pages
from webhooks import views as webhook_pages

urlpatterns = [
    path("accounts/login/", mind_pages.AccountLoginView.as_view(), name="login"),
    path("accounts/logout/", mind_pages.AccountLogoutView.as_view(), name="logout"),
    path("accounts/register/", mind_pages.register, name="register"),
    path("accounts/password/", mind_pages.AccountPasswordChangeView.as_view(), name="password-change"),
    path("app", RedirectView.as_view(url="/app/", permanent=False)),
    path("app/", memory_pages.dashboard, name="ui-dashboard"),
    path("app/minds/new/", mind_pages.mind_new, name="ui-mind-new"),
    path("app/minds/<mind_id:mind_id>/", memory_pages.mind_memories, name="ui-mind"),
    path("app/minds/<mind_id:mind_id>/memories/new/", memory_pages.memory_new, name="ui-memory-new"),
    path("app/minds/<mind_id:mind_id>/verify/", memory_pages.mind_verify_bulk, name="ui-mind-verify"),
    path("app/minds/<mind_id:mind_id>/unverified/", memory_pages.mind_unverified, name="ui-mind-unverified"),
    path("app/minds/<mind_id:mind_id>/keys/", mind_pages.mind_keys, name="ui-mind-keys"),
    path("app/minds/<mind_id:mind_id>/keys/new/", mind_pages.mind_key_new, name="ui-mind-key-new"),
    path(
        "app/minds/<mind_id:mind_id>/keys/<int:key_id>/revoke/",
        mind_pages.mind_key_revoke_view,
        name="ui-mind-key-revoke",
    ),
    path("app/minds/<mind_id:mind_id>/shares/new/", mind_pages.mind_share_new, name="ui-mind-share-new"),
    path("app/minds/<mind_id:mind_id>/shares/<int:share_id>/", mind_pages.mind_share_change, name="ui-mind-share"),
    path(
        "app/minds/<mind_id:mind_id>/shares/<int:share_id>/delete/",
        mind_pages.mind_share_remove,
        name="ui-mind-share-delete",
    ),
    path("app/minds/<mind_id:mind_id>/rename/", mind_pages.mind_rename, name="ui-mind-rename"),
    path("app/minds/<mind_id:mind_id>/delete/", mind_pages.mind_remove, name="ui-mind-delete"),
    path("app/minds/<mind_id:mind_id>/transfer/", memory_pages.mind_transfer, name="ui-mind-transfer"),
    path("app/minds/<mind_id:mind_id>/compact/", memory_pages.mind_compact, name="ui-mind-compact"),
    path("app/minds/<mind_id:mind_id>/goals/", goal_pages.mind_goals, name="ui-mind-goals"),
    path("app/minds/<mind_id:mind_id>/goals/new/", goal_pages.goal_new, name="ui-mind-goal-new"),
    path("app/minds/<mind_id:mind_id>/goals/<int:goal_id>/", goal_pages.goal_change, name="ui-mind-goal"),
    path("app/minds/<mind_id:mind_id>/goals/<int:goal_id>/delete/", goal_pages.goal_remove, name="ui-mind-goal-delete"),
    path("app/minds/<mind_id:mind_id>/profile/", goal_pages.mind_profile_page, name="ui-mind-profile"),
    path("app/memories/<memory_id:memory_id>/", memory_pages.memory_detail, name="ui-memory"),
    path("app/memories/<memory_id:memory_id>/edit/", memory_pages.memory_edit, name="ui-memory-edit"),
    path("app/memories/<memory_id:memory_id>/verify/", memory_pages.memory_verify_view, name="ui-memory-verify"),
    path("app/memories/<memory_id:memory_id>/unverify/", memory_pages.memory_unverify_view, name="ui-memory-unverify"),
    path("app/memories/<memory_id:memory_id>/delete/", memory_pages.memory_delete_view, name="ui-memory-delete"),
    path(
        "app/memories/<memory_id:memory_id>/versions/purge/",
        memory_pages.memory_versions_purge_view,
        name="ui-memory-versions-purge",
    ),
    # The long-term net (synapses/ui/net.py): the picture and its data, entities, recall explained.
    path("app/minds/<mind_id:mind_id>/net/", net_pages.net_page, name="ui-mind-net"),
    path("app/minds/<mind_id:mind_id>/net/data/", net_pages.net_data, name="ui-mind-net-data"),
    path("app/minds/<mind_id:mind_id>/entities/", net_pages.entities_page, name="ui-mind-entities"),
    path("app/minds/<mind_id:mind_id>/entities/merge/", net_pages.entity_merge_view, name="ui-mind-entity-merge"),
    path(
        "app/minds/<mind_id:mind_id>/entities/<row_id:entity_id>/",
        net_pages.entity_edit,
        name="ui-mind-entity",
    ),
    path("app/minds/<mind_id:mind_id>/recall/", net_pages.recall_page, name="ui-mind-recall"),
    path("app/minds/<mind_id:mind_id>/webhooks/", webhook_pages.mind_webhooks, name="ui-mind-webhooks"),
    path("app/log/", log_pages.log_turns, name="ui-log"),
    # A turn id is any string of at most 100 characters, `/` included (X-Turn-Id).
    re_path(r"^app/log/(?P<turn_id>.{1,100})/$", log_pages.log_turn, name="ui-log-turn"),
]
