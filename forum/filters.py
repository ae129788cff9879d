"""list_threads filters (§11). The operation's input shape has already validated the values; this
FilterSet turns them into a queryset for REST and MCP alike."""
import django_filters

from forum.models import Message, Thread


class ThreadFilter(django_filters.FilterSet):
    state = django_filters.CharFilter(field_name="state")
    awaiting = django_filters.CharFilter(field_name="awaiting_act")
    creator = django_filters.CharFilter(field_name="creator_identity")
    confirmed = django_filters.BooleanFilter(field_name="state_confirmed_at", lookup_expr="isnull", exclude=True)
    q = django_filters.CharFilter(method="filter_text")

    class Meta:
        model = Thread
        fields = []

    def filter_text(self, queryset, name, value):
        # One set of ids, the union of two that PostgreSQL reads from trigram indexes (migration 0005).
        # `title LIKE ... OR pk IN (...)` would test the title of every thread in turn instead.
        titled = Thread.objects.filter(title__icontains=value).values("pk")
        in_a_body = Message.objects.filter(body__icontains=value).values("thread_id")
        return queryset.filter(pk__in=titled.union(in_a_body))
