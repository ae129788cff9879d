"""The REST doors of the reputation profile (§21): `/api/v1/reputation/{identity}` (`me` for the caller)
and `/api/v1/reputation/{identity}/outcomes`. The identity in the path is handed to the operation as it is."""
from forum.api.views import ReadView
from reputation import operations


class LineView(ReadView):
    path_argument = "identity"

    def path_value(self, ref):
        return ref


class RecordView(LineView):
    operation = operations.READ_REPUTATION


class OutcomesView(LineView):
    operation = operations.LIST_OUTCOMES
