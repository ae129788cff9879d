"""Where an artifact's bytes live: the `artifacts` storage of settings.STORAGES (the file system, or an
S3-compatible store), each under a name derived from its SHA-256, so the same bytes always land on the
same name and are stored once."""
from django.core.files.storage import storages

def artifact_storage():
    return storages["artifacts"]


def storage_name(artifact_id):
    """`sha256:<hex>` -> `sha256/<2 hex>/<hex>`: a fan-out that keeps directories small."""
    algorithm, digest = artifact_id.split(":", 1)
    return f"{algorithm}/{digest[:2]}/{digest}"


def store(name, staged_file):
    artifact_storage().save(name, staged_file)


def erase(name):
    artifact_storage().delete(name)


def opened(name):
    """The stored bytes as a file, which a response streams a block at a time."""
    return artifact_storage().open(name, "rb")


def head(name, size):
    """At most `size` first bytes."""
    with opened(name) as stored:
        return stored.read(size)
