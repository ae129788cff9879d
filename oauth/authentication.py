"""An OAuth access token at any door (forum.credentials): it acts as the line its grant names, exactly as the
line's own secret does; only its rights may be fewer (those granted)."""
from forum.credentials import CredentialKind
from forum.tokens import record_use
from oauth.generators import ACCESS_TOKEN_PREFIX
from oauth.selectors import CREDENTIAL, current_grant_actors, grant_actor, grant_of_access_token


def authenticate(secret):
    """The actor of an access token, or `token_invalid`; records when the grant and its line were last used."""
    grant = grant_of_access_token(secret)
    record_use(grant)
    record_use(grant.token)
    return grant_actor(grant)


ACCESS_TOKENS = CredentialKind(name=CREDENTIAL, prefix=ACCESS_TOKEN_PREFIX, authenticate=authenticate,
                               current=current_grant_actors)
