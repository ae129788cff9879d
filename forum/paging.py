"""Cursor and limit paging (§11): the paging arguments of every list operation, a list's page with the
cursor after it, and the page of a list that can be followed (§16)."""
from forum import cursors
from forum.limits import limit
from forum.profiles import followed_page
from parley_site.errors import InvalidBody
from parley_site.shapes import Int, Str


def list_page(scope, items, after, render, position):
    cursor = cursors.encode(scope, position(items[-1]) if items else after)
    return {"items": [render(item) for item in items], "cursor": cursor}


def followed_list(actor, args, listing):
    """A page of a list that can be followed, or where a profile holds it while it is empty (§16), the
    page to come (forum.held)."""
    after, size = paging(args, listing.scope)
    return followed_page(actor, args, listing, after, size)


def paging(args, scope):
    """`cursor` and its synonym `since` (§11), and `limit`."""
    if "cursor" in args and "since" in args and args["cursor"] != args["since"]:
        raise InvalidBody("cursor and since disagree; send one", field="since")
    field = "cursor" if "cursor" in args else "since"
    after = cursors.decode(scope, args.get(field), field)
    return after, args.get("limit", limit("page_size_default"))


def paging_fields():
    return {
        "cursor": Str(max_len=100, description="The cursor of a previous page: continue after it."),
        "since": Str(max_len=100, description="Synonym of cursor."),
        "limit": Int(1, limit("page_size_max"), description="Page size (default page_size_default)."),
    }
