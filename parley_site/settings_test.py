"""The test suite's settings: production settings with a throwaway key, a fast password hasher and a
throwaway artifacts directory."""
import os
import tempfile

os.environ.setdefault("SECRET_KEY", "test-suite-only-not-a-secret")
# Artifacts a test run stores (§18) go to a directory of its own, never to the demo's.
os.environ.setdefault("PARLEY_ARTIFACTS_DIR", tempfile.mkdtemp(prefix="parley-test-artifacts-"))

from parley_site.settings import *  # noqa: E402,F401,F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
ALLOWED_HOSTS = ["*"]
