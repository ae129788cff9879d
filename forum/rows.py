"""One row by equal columns, in raw SQL: for the reads that every request or write makes."""
from django.db import connection


def one_row(model, *, lock=False, null=(), **equal):
    """The one row of `model` whose fields equal `equal` and whose `null` fields are NULL, or None;
    lock=True: FOR UPDATE. Column names come from the model and values travel as parameters.

    For the reads that every request or write makes (a token by its secret, a thread by its id): building
    such a query costs the ORM more CPU than the database spends running it (docs/performance.md)."""
    quote, field = connection.ops.quote_name, model._meta.get_field
    conditions = [f"{quote(field(name).column)} = %s" for name in equal]
    conditions += [f"{quote(field(name).column)} IS NULL" for name in null]
    lock_clause = " FOR UPDATE" if lock and connection.features.has_select_for_update else ""
    sql = f"SELECT * FROM {quote(model._meta.db_table)} WHERE {' AND '.join(conditions)}{lock_clause}"
    return next(iter(model.objects.raw(sql, list(equal.values()))), None)
