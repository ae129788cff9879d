"""parley_site.sealing: sealed secrets open with the configured keys only, and keys rotate."""
import pytest
from cryptography.fernet import Fernet

from parley_site import sealing


def test_a_sealed_secret_opens_to_itself_and_does_not_contain_it():
    sealed = sealing.seal(b"whsec-plain-secret")
    assert b"whsec-plain-secret" not in sealed.encode()
    assert sealing.unseal(sealed) == b"whsec-plain-secret"


def test_without_keys_the_seal_depends_on_secret_key(settings):
    settings.PARLEY_SEALING_KEYS = []
    sealed = sealing.seal(b"s")
    settings.SECRET_KEY = "another-secret-key"
    with pytest.raises(sealing.InvalidToken):
        sealing.unseal(sealed)


def test_the_first_key_seals_and_every_key_opens(settings):
    old, new = Fernet.generate_key().decode(), Fernet.generate_key().decode()
    settings.PARLEY_SEALING_KEYS = [old]
    sealed_with_old = sealing.seal(b"s")
    settings.PARLEY_SEALING_KEYS = [new, old]
    assert sealing.unseal(sealed_with_old) == b"s"
    sealed_with_new = sealing.seal(b"s")
    settings.PARLEY_SEALING_KEYS = [new]
    assert sealing.unseal(sealed_with_new) == b"s"
    with pytest.raises(sealing.InvalidToken):
        sealing.unseal(sealed_with_old)
