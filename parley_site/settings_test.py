"""The test suite's settings: production settings with a throwaway key and a fast password hasher."""
import os

os.environ.setdefault("SECRET_KEY", "test-suite-only-not-a-secret")

from parley_site.settings import *  # noqa: E402,F401,F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
ALLOWED_HOSTS = ["*"]
