"""The benchmark's read floor: the least a read can cost on this stack. A plain Django view (no DRF, no
operation dispatch, no transaction of its own, no metrics) in the same server, behind the same middleware,
that looks the bearer token up with the API's own query and answers the caller's inbox page with the
inbox's own selector (so the same SQL) and its own rendering (forum.listings, DRF's JSON renderer): the
bytes GET /api/v1/inbox answers, and nothing else. Every read of the benchmark is measured as a ratio to
it. Only bench/urls.py routes it, and only the benchmark's settings load that (as the write floor,
bench/floor.py).

A bad token is still a §13 refusal, never a 500; it takes no argument, so it can be given no bad one."""
from django.http import HttpResponse
from rest_framework.renderers import JSONRenderer

from forum.actors import Actor
from forum.commit_order import START
from forum.limits import limit
from forum.listings import inbox_listing
from forum.models import AwaitingAct
from forum.selectors import token_by_secret
from parley_site.errors import ParleyError
from parley_site.exception_handler import json_refusal

RENDERER = JSONRenderer()


def read_floor(request):
    try:
        token = token_by_secret(request.headers.get("Authorization", "").partition(" ")[2])
        actor = Actor.for_token(token)
        listing = inbox_listing(actor.identity, AwaitingAct.ANSWER, "")
        page = listing.page(listing.read(actor, START, limit("page_size_default")), START)
    except ParleyError as error:
        return json_refusal(error)
    return HttpResponse(RENDERER.render(page), content_type="application/json")
