"""Routes of the pipeline-log API."""

from memoryproject.core.routing import route
from pipelinelog.api import views

urlpatterns = [
    *route("log", views.LogListView.as_view(), name="log-list"),
    # A turn id with a slash in it cannot be a path segment; GET /log?turn_id= reads it.
    *route("log/turns/<str:turn_id>", views.LogTurnView.as_view(), name="log-turn"),
]
