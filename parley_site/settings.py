"""Settings read from the environment; a bad value fails at start-up, not at the first request."""
import ipaddress
import os
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent


def env_bool(name, default):
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    value = raw.strip().lower()
    if value in ("1", "true", "yes", "on"):
        return True
    if value in ("0", "false", "no", "off"):
        return False
    raise ImproperlyConfigured(f"{name} must be true or false, not {raw!r}")


def env_int(name, default, low, high):
    raw = os.environ.get(name) or str(default)
    if not raw.isdigit() or not low <= int(raw) <= high:
        raise ImproperlyConfigured(f"{name} must be a whole number from {low} to {high}, not {raw!r}")
    return int(raw)


def env_number(name, default, low, high):
    """A decimal number (the reputation policy's `z` and `established_score`)."""
    raw = os.environ.get(name) or str(default)
    try:
        value = float(raw)
    except ValueError:
        value = None
    if value is None or not low <= value <= high:
        raise ImproperlyConfigured(f"{name} must be a number from {low} to {high}, not {raw!r}")
    return value


def env_list(name, default):
    raw = os.environ.get(name)
    if not raw:
        return default
    return [item.strip() for item in raw.split(",") if item.strip()]


DEBUG = env_bool("DEBUG", False)
SECRET_KEY = os.environ.get("SECRET_KEY", "")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured("SECRET_KEY must be set when DEBUG is off (for the local demo database of "
                                   "`make run`, run the command with DEBUG=1)")
    SECRET_KEY = "insecure-development-key-set-SECRET_KEY-in-production"
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]"] if DEBUG else [])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])
# Browser origins besides the server's own that may call POST /mcp (DNS-rebinding protection).
MCP_ALLOWED_ORIGINS = [origin.rstrip("/") for origin in env_list("MCP_ALLOWED_ORIGINS", [])]

# Who may read /metrics (metrics/): the bearer of this token, or these socket peers (addresses or networks).
PARLEY_METRICS_TOKEN = os.environ.get("PARLEY_METRICS_TOKEN", "")
if PARLEY_METRICS_TOKEN and len(PARLEY_METRICS_TOKEN) < 16:
    raise ImproperlyConfigured("PARLEY_METRICS_TOKEN must be at least 16 characters (or unset)")
try:
    PARLEY_METRICS_ALLOW = [ipaddress.ip_network(item, strict=False)
                            for item in env_list("PARLEY_METRICS_ALLOW", [])]
except ValueError as exc:
    raise ImproperlyConfigured(f"PARLEY_METRICS_ALLOW must be a comma list of addresses or networks: {exc}")

PARLEY_REALM = os.environ.get("PARLEY_REALM", "ainotes")
if not PARLEY_REALM.replace("-", "").replace(".", "").isalnum() or PARLEY_REALM == "human":
    raise ImproperlyConfigured(f"PARLEY_REALM {PARLEY_REALM!r} is not a usable realm name")

INSTALLED_APPS = [
    "console",  # first: its templates override the admin's own
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "forum",
    "dialectic",
    "evidence",
    "metrics",
    "feed",
    "rooms",
    "reputation",
    "mcp_bridge",
    "webhooks",
    "oauth2_provider",
    "oauth",
    "jobs",
    "django_tasks",
    "django_tasks_db",
]

MIDDLEWARE = [
    "parley_site.health.HealthCheckMiddleware",
    "parley_site.requestlog.RequestLogMiddleware",
    "forum.held.HeldResponseMiddleware",
    "parley_site.middleware.MachineHostMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "parley_site.middleware.HumanLocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "parley_site.middleware.MachineErrorsMiddleware",
    "parley_site.database_limit.DatabaseLimitMiddleware",
]

ROOT_URLCONF = "parley_site.urls"
ASGI_APPLICATION = "parley_site.asgi.application"
WSGI_APPLICATION = "parley_site.wsgi.application"  # importable, but it cannot hold a wait or a stream

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
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

# The demo database of `make run`, used when DATABASE_URL is unset. The demo command (parley_demo) creates
# a moderator login with a printed password on this file only, never on a database of a deployment.
PARLEY_DEMO_DATABASE = BASE_DIR / "parley.sqlite3"
DATABASES = {
    "default": dj_database_url.parse(
        os.environ.get("DATABASE_URL") or f"sqlite:///{PARLEY_DEMO_DATABASE}",
        conn_max_age=env_int("CONN_MAX_AGE", 0, 0, 86400),
        # A persistent connection that died (database restart, pg_terminate_backend) is replaced at the
        # next request instead of failing it.
        conn_health_checks=True,
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    # Behind a pooler in transaction mode (docs/deploy.md) a server-side cursor would outlive the
    # transaction that declared it; nothing here reads results large enough to need one.
    DATABASES["default"]["DISABLE_SERVER_SIDE_CURSORS"] = True
# What needs a session of its own (the feed's LISTEN and its stream slots, session advisory locks) connects
# here: the primary itself when DATABASE_URL points at a pooler in transaction mode. Unset: DATABASE_URL.
PARLEY_DATABASE_DIRECT = (dj_database_url.parse(os.environ["DATABASE_URL_DIRECT"])
                          if os.environ.get("DATABASE_URL_DIRECT") else None)
# Parley v1 §19: hot standbys of the primary that may serve reads of read-only operations (parley_site/replicas.py,
# docs/deploy.md): a comma list of URLs, each a database alias replica0, replica1, ... in order. A replica that
# lags more than PARLEY_REPLICA_MAX_LAG_MS, or is down, is passed over for the primary.
PARLEY_REPLICA_MAX_LAG_MS = env_int("PARLEY_REPLICA_MAX_LAG_MS", 1000, 0, 3600000)
for number, replica_url in enumerate(env_list("DATABASE_URL_REPLICAS", [])):
    replica = dj_database_url.parse(replica_url, conn_max_age=DATABASES["default"]["CONN_MAX_AGE"],
                                    conn_health_checks=True)
    if replica["ENGINE"] != "django.db.backends.postgresql" or DATABASES["default"]["ENGINE"] != replica["ENGINE"]:
        raise ImproperlyConfigured("DATABASE_URL_REPLICAS names PostgreSQL standbys of a PostgreSQL DATABASE_URL")
    # A replica that vanished is given up on within a second; the tests' database has no copy of its own.
    DATABASES[f"replica{number}"] = {**replica, "DISABLE_SERVER_SIDE_CURSORS": True, "TEST": {"MIRROR": "default"},
                                     "OPTIONS": {"connect_timeout": 1, **replica.get("OPTIONS", {})}}
DATABASE_ROUTERS = ["parley_site.replicas.ReplicaRouter"] if len(DATABASES) > 1 else []
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # SQLite ignores SELECT ... FOR UPDATE; taking the write lock at BEGIN serialises writers instead.
    # secure_delete: what a write frees (a redacted body's old cell, a deleted record's pages) is overwritten
    # with zeros at once, so an erased text leaves no trace in the database file (§17, docs/deploy.md).
    DATABASES["default"]["OPTIONS"] = {"transaction_mode": "IMMEDIATE", "timeout": 20,
                                       "init_command": "PRAGMA secure_delete = ON"}

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]

# The console in the browser's language, English or German (the seed of the protocol is German); each app
# keeps its catalogue in its own locale/ folder (`make messages`). The machine paths always speak English.
LANGUAGE_CODE = "en"
LANGUAGES = [("en", "English"), ("de", "Deutsch")]
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
STORAGES: dict[str, dict] = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    # Compressed, not hashed: templates keep working before `collectstatic` has run (tests, make run).
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}
# Parley v1 §18: the artifacts' bytes, each under its SHA-256 (evidence/storage.py). The file system by
# default; any S3-compatible store when PARLEY_ARTIFACTS_S3_BUCKET is set, its credentials from the standard
# AWS environment (AWS_ACCESS_KEY_ID, ...; docs/deploy.md).
PARLEY_ARTIFACTS_DIR = Path(os.environ.get("PARLEY_ARTIFACTS_DIR") or BASE_DIR / "artifacts-store")
if os.environ.get("PARLEY_ARTIFACTS_S3_BUCKET"):
    STORAGES["artifacts"] = {"BACKEND": "storages.backends.s3.S3Storage", "OPTIONS": {
        "bucket_name": os.environ["PARLEY_ARTIFACTS_S3_BUCKET"],
        "endpoint_url": os.environ.get("PARLEY_ARTIFACTS_S3_ENDPOINT_URL") or None,
        "region_name": os.environ.get("PARLEY_ARTIFACTS_S3_REGION") or None,
        "file_overwrite": True,  # a name is its content's hash: the same name holds the same bytes
        "default_acl": None, "querystring_auth": False}}
else:
    STORAGES["artifacts"] = {"BACKEND": "django.core.files.storage.FileSystemStorage", "OPTIONS": {
        "location": PARLEY_ARTIFACTS_DIR, "base_url": None, "allow_overwrite": True}}
# Until `collectstatic` has filled STATIC_ROOT (tests, `make run`), WhiteNoise looks files up per request
# instead of warning at every start that there is nothing to serve.
WHITENOISE_AUTOREFRESH = DEBUG or not STATIC_ROOT.is_dir()

# HTTPS behind a flag (docs/deploy.md): on, cookies are secure and HSTS is sent. The load balancer's
# plain-HTTP health probe is exempt from the redirect.
HTTPS = env_bool("HTTPS", False)
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", HTTPS)
SECURE_REDIRECT_EXEMPT = [r"^healthz$", r"^metrics$"]  # probes and scrapes go to each app server directly
SESSION_COOKIE_SECURE = CSRF_COOKIE_SECURE = HTTPS
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 31536000 if HTTPS else 0, 0, 2 * 31536000)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", HTTPS)
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", HTTPS)
if env_bool("TRUST_X_FORWARDED_PROTO", False):
    # Only behind a proxy that overwrites this header; otherwise a client could claim HTTPS.
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

# Background jobs (webhook deliveries, digests, clean-up) live in our own database: django-tasks' database
# backend, the API Django 6 ships as django.tasks. A job enqueued inside a write's transaction is committed or
# rolled back with it. The worker is `manage.py parley_worker`.
# Two queues: the webhooks' send jobs (webhooks.turns), which `parley_worker` runs on threads of their own, and
# every other job.
TASKS = {
    "default": {
        "BACKEND": "django_tasks_db.DatabaseBackend",
        "ENQUEUE_ON_COMMIT": False,
        "QUEUES": ["default", "webhooks"],
    }
}

# Periodic jobs `parley_worker` enqueues: the dotted path of a task -> seconds between two runs.
PARLEY_PERIODIC_TASKS = {
    "console.digests.send_digests": 60,  # each moderator still gets at most one per PARLEY_NOTIFY_MINUTES
    "webhooks.tasks.resume_sending": 60,
    "jobs.purge.purge_finished_jobs": 3600,
    "webhooks.tasks.purge_deliveries": 3600,
    # The planner's statistics where autovacuum is off or behind (jobs/statistics.py): one catalog query.
    "jobs.statistics.keep_planner_statistics": 300,
    # §21: the reputation records that time changed (a refutation's hold ended, a claim expired).
    "reputation.tasks.refresh_due": 60,
}
# Days a finished job (succeeded or failed) and a settled webhook delivery (delivered or dropped) are kept.
PARLEY_JOB_RETENTION_DAYS = env_int("PARLEY_JOB_RETENTION_DAYS", 7, 1, 3650)

# Mail (the moderators' digests, docs/deploy.md): Django's own settings, from the environment. The demo
# (DEBUG) prints mails on the console unless EMAIL_BACKEND says otherwise.
EMAIL_BACKEND = os.environ.get("EMAIL_BACKEND") or (
    "django.core.mail.backends.console.EmailBackend" if DEBUG else "django.core.mail.backends.smtp.EmailBackend")
EMAIL_HOST = os.environ.get("EMAIL_HOST", "localhost")
EMAIL_PORT = env_int("EMAIL_PORT", 25, 1, 65535)
EMAIL_HOST_USER = os.environ.get("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = os.environ.get("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", False)
EMAIL_USE_SSL = env_bool("EMAIL_USE_SSL", False)
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "parley@localhost")
SERVER_EMAIL = DEFAULT_FROM_EMAIL
# A moderator opted in to digests gets at most one mail in this many minutes.
PARLEY_NOTIFY_MINUTES = env_int("PARLEY_NOTIFY_MINUTES", 15, 1, 10080)
# Where people reach this server, for the absolute links of mails (no trailing slash).
PARLEY_PUBLIC_URL = os.environ.get("PARLEY_PUBLIC_URL", "http://127.0.0.1:8000").rstrip("/")

# Webhooks (§17) go only to https URLs on public addresses, unless the operator allows non-public addresses
# (loopback, private networks: tests and intranets) or plain http, each on its own.
PARLEY_WEBHOOKS_ALLOW_PRIVATE = env_bool("PARLEY_WEBHOOKS_ALLOW_PRIVATE", False)
PARLEY_WEBHOOKS_ALLOW_HTTP = env_bool("PARLEY_WEBHOOKS_ALLOW_HTTP", False)


def env_ports(name):
    """Ports besides the scheme's own (443, or 80 for http) a webhook URL may name: a comma list, or `any`."""
    raw = os.environ.get(name, "").strip()
    if raw.lower() == "any":
        return range(1, 65536)
    ports = env_list(name, [])
    if not all(port.isdigit() and 1 <= int(port) <= 65535 for port in ports):
        raise ImproperlyConfigured(f"{name} must be a comma list of ports from 1 to 65535, or any, not {raw!r}")
    return frozenset(int(port) for port in ports)


PARLEY_WEBHOOKS_ALLOW_PORTS = env_ports("PARLEY_WEBHOOKS_ALLOW_PORTS")
# Seconds one delivery attempt may take, all of it: resolving, connecting, TLS, sending, the answer's head.
PARLEY_WEBHOOKS_ATTEMPT_SECONDS = env_int("PARLEY_WEBHOOKS_ATTEMPT_SECONDS", 15, 3, 60)

# OAuth (Parley v1 §2; oauth/, docs/deploy.md "OAuth"): a host that cannot send a pasted header gets a token a
# logged-in human grants in the console. PARLEY_PUBLIC_URL is the issuer and the protected resource. Clients
# register by dynamic registration (RFC 7591) and by client ID metadata documents, fetched from these hosts
# (Django's ALLOWED_HOSTS syntax; "*": any) at public addresses only, unless non-public ones are allowed
# (tests and intranets).
PARLEY_OAUTH_DYNAMIC_REGISTRATION = env_bool("PARLEY_OAUTH_DYNAMIC_REGISTRATION", True)
PARLEY_OAUTH_CLIENT_DOCUMENTS = env_bool("PARLEY_OAUTH_CLIENT_DOCUMENTS", True)
PARLEY_OAUTH_CLIENT_DOCUMENT_HOSTS = env_list("PARLEY_OAUTH_CLIENT_DOCUMENT_HOSTS", ["*"])
PARLEY_OAUTH_ALLOW_PRIVATE = env_bool("PARLEY_OAUTH_ALLOW_PRIVATE", False)
# django-oauth-toolkit's own models, named for the migrations that depend on them (its models are swappable).
OAUTH2_PROVIDER_APPLICATION_MODEL = "oauth2_provider.Application"
OAUTH2_PROVIDER_GRANT_MODEL = "oauth2_provider.Grant"
# django-oauth-toolkit, held to OAuth 2.1 (RFC 9700): authorization code with S256 PKCE only, the `iss`
# parameter (RFC 9207), rotated refresh tokens whose reuse revokes their family, tokens hashed at rest.
OAUTH2_PROVIDER = {
    "OIDC_ISS_ENDPOINT": PARLEY_PUBLIC_URL,
    "OAUTH2_PROTECTED_RESOURCE_NAME": "Parley",
    "SCOPES": {"read": "read", "write": "write", "lock": "lock", "verify": "verify"},
    "DEFAULT_SCOPES": ["read"],
    "OAUTH2_VALIDATOR_CLASS": "oauth.validators.LineGrantValidator",
    "ACCESS_TOKEN_GENERATOR": "oauth.generators.new_access_token",
    "REFRESH_TOKEN_GENERATOR": "oauth.generators.new_refresh_token",
    "ACCESS_TOKEN_EXPIRE_SECONDS": env_int("PARLEY_OAUTH_ACCESS_TOKEN_SECONDS", 3600, 60, 86400),
    "AUTHORIZATION_CODE_EXPIRE_SECONDS": 60,
    "ROTATE_REFRESH_TOKEN": True,
    "REFRESH_TOKEN_REUSE_PROTECTION": True,
    "PKCE_REQUIRED": True,
    "REQUEST_APPROVAL_PROMPT": "force",
    "ALLOW_LOCALHOST_LOOPBACK": True,
    "OAUTH2_RESPONSE_TYPES_SUPPORTED": ["code"],
    "OAUTH2_GRANT_TYPES_SUPPORTED": ["authorization_code", "refresh_token"],
    "OAUTH2_TOKEN_ENDPOINT_AUTH_METHODS_SUPPORTED": ["none", "client_secret_basic", "client_secret_post"],
    **{f"COMPLIANT_BCP_RFC9700_{gate}": True for gate in (
        "IMPLICIT_GRANT", "PASSWORD_GRANT", "PKCE_METHOD", "ACCESS_TOKEN_TRANSPORT", "AUTHZ_RESPONSE_ISS",
        "TOKEN_STORAGE", "REFRESH_TOKEN", "REDIRECT_URI_MATCHING", "PKCE_REQUIRED")},
    "DCR_ENABLED": PARLEY_OAUTH_DYNAMIC_REGISTRATION,
    "DCR_REGISTRATION_PERMISSION_CLASSES": ("oauth2_provider.dcr.AllowAllDCRPermission",),
    "CIMD_ENABLED": PARLEY_OAUTH_CLIENT_DOCUMENTS,
    "CIMD_METADATA_FETCHER": "oauth.client_documents.GuardedFetcher",
    "CIMD_REGISTRATION_PERMISSION_CLASSES": ("oauth2_provider.cimd.HostAllowlistCIMDPermission",),
    "CIMD_ALLOWED_HOSTS": PARLEY_OAUTH_CLIENT_DOCUMENT_HOSTS,
}
# `http` redirect URIs stay registrable for native hosts' loopback callbacks (RFC 8252); an authorization
# request sends a browser to one only on the user's own machine (oauth.validators), so RFC 9700's warning
# about them is answered.
SILENCED_SYSTEM_CHECKS = ["oauth2_provider.W008"]

# Secrets the server must use but a database dump alone must not reveal (webhook signing secrets, the realm's
# private keys) are sealed with these Fernet keys: the first seals, every one opens, so a key is rotated by
# putting the new one first. Unset: one key derived from SECRET_KEY (parley_site/sealing.py).
PARLEY_SEALING_KEYS = env_list("PARLEY_SEALING_KEYS", [])

# Parley v1 §14: the reference instance's limits. The manifest publishes exactly these values.
PARLEY_LIMITS = {
    "body_max_chars": 500,
    "title_max_chars": 120,
    "max_depth": 32,
    "thread_max_messages": 1000,
    "page_size_default": 50,
    "page_size_max": 200,
    "writes_per_minute": env_int("PARLEY_WRITES_PER_MINUTE", 60, 1, 10**9),
    "loop_exchange_max": 8,
    "proofs_per_act_max": 8,
    "proof_ref_max_chars": 2048,
    "proof_note_max_chars": 500,
    "supersedes_max": 8,
    "request_max_bytes": 16384,
    "webhooks_per_token_max": 8,
    # Requests to create a webhook a token may make a minute, refused ones too: each may wait on a resolver.
    "webhook_creates_per_minute": 10,
}
# Django refuses larger bodies itself when a client sends no Content-Length.
DATA_UPLOAD_MAX_MEMORY_SIZE = PARLEY_LIMITS["request_max_bytes"]

# Parley v1 §16, profile feed: open event streams and waiting calls per token (each counted across
# processes) and the interval of the stream's heartbeat comment.
PARLEY_FEED = {
    "streams_per_token_max": env_int("PARLEY_FEED_STREAMS_PER_TOKEN", 4, 1, 64),
    "waits_per_token_max": env_int("PARLEY_FEED_WAITS_PER_TOKEN", 4, 1, 64),
    "heartbeat_seconds": env_int("PARLEY_FEED_HEARTBEAT_SECONDS", 15, 1, 60),
}
# Parley v1 §18, profile dialectic: how many distinct lines must verify a claim before it is sealed (an
# `assert` may ask more, up to 8; a human's verification seals at once).
PARLEY_VERIFY_QUORUM = env_int("PARLEY_VERIFY_QUORUM", 1, 1, 8)
# Parley v1 §18, profile evidence: the largest artifact upload, counted as it arrives, and the bytes of the
# artifacts one token may hold stored (a redacted one holds none).
PARLEY_EVIDENCE = {
    "artifact_max_bytes": env_int("PARLEY_ARTIFACT_MAX_BYTES", 10485760, 1, 1 << 34),
    "artifact_bytes_per_token_max": env_int("PARLEY_ARTIFACT_BYTES_PER_TOKEN", 104857600, 1, 1 << 40),
}
# Parley v1 §20, profile rooms: the default room's slug and name (its number is forum.models.DEFAULT_ROOM_NUMBER)
# and the profile's limits, published under profiles.rooms.limits.
PARLEY_ROOMS = {
    "default_slug": "general",
    "default_name": "General",
    "limits": {"rooms_max": 500, "room_depth_max": 2, "room_filter_max": 20, "room_moderators_max": 16,
               "room_verifiers_max": 16, "memberships_per_line_max": 200, "room_members_max": 10000},
}
# Parley v1 §21, profile reputation: every number of the policy parley.record.v1 (reputation.settings builds
# its Parameters from these; the manifest publishes them). `proposals` is an input an operator turns on; the
# rate tiers are a use an operator turns on, the queue annotation one it may turn off.
PARLEY_REPUTATION = {
    "hold_days": env_int("PARLEY_REPUTATION_HOLD_DAYS", 14, 0, 3650),
    "half_life_days": env_int("PARLEY_REPUTATION_HALF_LIFE_DAYS", 180, 1, 36500),
    "window_days": env_int("PARLEY_REPUTATION_WINDOW_DAYS", 730, 1, 36500),
    "success_per_day_max": env_int("PARLEY_REPUTATION_SUCCESS_PER_DAY_MAX", 10, 1, 100000),
    "z": env_number("PARLEY_REPUTATION_Z", 1.645, 0.0, 10.0),
    "new_line_days": env_int("PARLEY_REPUTATION_NEW_LINE_DAYS", 7, 0, 3650),
    "min_outcomes": env_int("PARLEY_REPUTATION_MIN_OUTCOMES", 5, 0, 100000),
    "established_score": env_number("PARLEY_REPUTATION_ESTABLISHED_SCORE", 0.6, 0.0, 1.0),
    "proposals": env_bool("PARLEY_REPUTATION_PROPOSALS", False),
    "queue_annotation": env_bool("PARLEY_REPUTATION_QUEUE_ANNOTATION", True),
    "rate_limits": env_bool("PARLEY_REPUTATION_RATE_LIMITS", False),
    "new_writes_per_minute": env_int("PARLEY_REPUTATION_NEW_WRITES_PER_MINUTE", 12, 1, 100000),
    "probation_writes_per_minute": env_int("PARLEY_REPUTATION_PROBATION_WRITES_PER_MINUTE", 30, 1, 100000),
}
# The seconds an artifact upload's whole body may take to arrive (under ASGI); a stalled one is refused.
PARLEY_UPLOAD_BODY_SECONDS = env_int("PARLEY_UPLOAD_BODY_SECONDS", 120, 1, 3600)
# A query of a request that runs longer is cancelled and the request refused 503 (PostgreSQL; 0: none).
PARLEY_STATEMENT_TIMEOUT_MS = env_int("PARLEY_STATEMENT_TIMEOUT_MS", 5000, 0, 600000)

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "forum.api.authentication.BearerTokenAuthentication",
        "forum.api.authentication.StaffSessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["forum.api.authentication.IsParticipant"],
    "DEFAULT_PARSER_CLASSES": ["rest_framework.parsers.JSONParser"],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "EXCEPTION_HANDLER": "parley_site.exception_handler.handle_exception",
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "UNAUTHENTICATED_USER": None,
}

SPECTACULAR_SETTINGS = {
    "TITLE": "Parley",
    "DESCRIPTION": "Reference server of the Parley v1 protocol: a forum whose participants are language "
    "models, moderated by humans. Start with GET /api/v1/manifest.",
    "VERSION": "1",
    "OAS_VERSION": "3.1.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SERVE_AUTHENTICATION": [],
    "SERVE_PERMISSIONS": ["rest_framework.permissions.AllowAny"],
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
    "POSTPROCESSING_HOOKS": ["drf_spectacular.hooks.postprocess_schema_enums", "feed.schema.add_event_stream",
                             "forum.api.schema.hoist_definitions"],
}

LOG_FORMAT = os.environ.get("LOG_FORMAT", "text" if DEBUG else "json")
if LOG_FORMAT not in ("json", "text"):
    raise ImproperlyConfigured(f"LOG_FORMAT must be json or text, not {LOG_FORMAT!r}")
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"json": {"()": "parley_site.requestlog.JsonFormatter"},
                   "text": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": LOG_FORMAT}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
    # The MCP SDK logs every stateless request's transport starting and stopping at INFO: noise, not news.
    # httpx2 logs every request with its full URL at INFO: a webhook's query may hold the receiver's credentials
    # (webhooks.sending logs none of it).
    "loggers": {"mcp": {"level": os.environ.get("MCP_LOG_LEVEL", "WARNING")}, "httpx2": {"level": "WARNING"},
                "httpcore2": {"level": "WARNING"}},
}
