from django.contrib import admin
from django.urls import include, path, re_path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from memoryproject import views
from memoryproject.core.routing import route

urlpatterns = [
    path("", views.landing, name="landing"),
    *route("health", views.HealthView.as_view(), name="health"),
    path("admin/", admin.site.urls),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    # The split view serves its initialisation script from ?script, so the page needs no inline
    # script under the Content-Security-Policy; the template puts the CSP nonce on its <style>.
    path(
        "api/docs/",
        SpectacularSwaggerSplitView.as_view(url_name="schema", template_name="api/swagger_ui.html"),
        name="swagger-ui",
    ),
    path("", include("minds.api.urls")),
    path("", include("synapses.api.urls")),
    path("", include("memories.api.memory_urls")),
    path("", include("pipelinelog.api.urls")),
    path("", include("webhooks.api.urls")),
    path("", include("memoryproject.ui_urls")),
    # Unknown paths answer the JSON error (also with DEBUG on, where handler404 is not used);
    # [\s\S] and not `.`, which stops at a newline (`/foo%0Abar`). The view is CSRF-exempt.
    re_path(r"^[\s\S]*$", views.json_not_found),
]

handler400 = "memoryproject.views.json_bad_request"
handler403 = "memoryproject.views.json_permission_denied"
handler404 = "memoryproject.views.json_not_found"
handler500 = "memoryproject.views.json_server_error"
