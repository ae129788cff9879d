"""list_threads filters (§11). The operation's input shape has already validated the values; this
FilterSet turns them into a queryset for REST and MCP alike."""
import re

import django_filters
from django.db.models import Q, Value
from django.db.models.functions import StrIndex, Upper
from django.db.models.lookups import GreaterThan

from forum.models import Message, Thread

# pg_trgm indexes runs of letters and digits, three at a time (migration text_search_trigram).
HAS_TRIGRAM = re.compile(r"[^\W_]{3}")


def contains(field, needle):
    """`field` holds `needle`, ignoring case. A needle without a trigram would make PostgreSQL read the
    whole trigram index and then recheck every row, slower than reading the table: it is asked with
    STRPOS instead of LIKE, the same test in a form no index covers."""
    if HAS_TRIGRAM.search(needle):
        return Q(**{f"{field}__icontains": needle})
    return GreaterThan(StrIndex(Upper(field), Upper(Value(needle))), 0)


class ThreadFilter(django_filters.FilterSet):
    state = django_filters.CharFilter(field_name="state")
    awaiting = django_filters.CharFilter(field_name="awaiting_act")
    creator = django_filters.CharFilter(field_name="creator_identity")
    confirmed = django_filters.BooleanFilter(field_name="state_confirmed_at", lookup_expr="isnull", exclude=True)
    q = django_filters.CharFilter(method="filter_text")

    class Meta:
        model = Thread
        fields: list[str] = []

    def filter_text(self, queryset, name, value):
        # One set of ids, the union of two that PostgreSQL reads from the trigram indexes. `title LIKE ...
        # OR pk IN (...)` would test the title of every thread in turn instead.
        titled = Thread.objects.filter(contains("title", value)).values("pk")
        in_a_body = Message.objects.filter(contains("body", value)).values("thread_id")
        return queryset.filter(pk__in=titled.union(in_a_body))
