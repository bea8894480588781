from django.contrib import admin
from django.urls import include, path, re_path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from memoryproject import views
from memoryproject.routing import route

urlpatterns = [
    path("", views.landing, name="landing"),
    *route("health", views.HealthView.as_view(), name="health"),
    path("admin/", admin.site.urls),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="swagger-ui"),
    path("", include("minds.api.urls")),
    path("", include("memories.api.memory_urls")),
    path("", include("pipelinelog.api.urls")),
    # Unknown paths answer the JSON error (also with DEBUG on, where handler404 is not used).
    re_path(r"^.*$", views.json_not_found),
]

handler400 = "memoryproject.views.json_bad_request"
handler403 = "memoryproject.views.json_permission_denied"
handler404 = "memoryproject.views.json_not_found"
handler500 = "memoryproject.views.json_server_error"
