"""What a human is told about a client before granting it anything (MCP authorization, Security
Considerations): its name, where that name comes from, and the host the browser is sent back to, with a
warning when that is the human's own machine, which any program there could claim to be."""
from dataclasses import dataclass
from urllib.parse import urlsplit

from django.utils.translation import gettext as _

from oauth.validators import is_loopback


@dataclass(frozen=True)
class ClientDescription:
    name: str
    client_id: str
    origin: str  # where the client's name and addresses come from, in a sentence
    redirect_host: str
    to_this_machine: bool


def client_description(application, redirect_uri):
    redirect_host = urlsplit(redirect_uri).hostname or ""
    if application is None:
        return ClientDescription(_("an unknown client"), "", "", redirect_host, is_loopback(redirect_host))
    return ClientDescription(application.name or application.client_id, application.client_id,
                             origin_of(application), redirect_host, is_loopback(redirect_host))


def origin_of(application):
    source = application.RegistrationSource
    if application.registration_source == source.CIMD:
        return _("It describes itself in a document at %(host)s; anyone who controls %(host)s wrote that name.") % {
            "host": urlsplit(application.client_id).hostname}
    if application.registration_source == source.DCR:
        return _("It registered itself with this server on %(date)s; it chose its name itself.") % {
            "date": application.created.date().isoformat()}
    return _("It was registered by this server's operator.")
