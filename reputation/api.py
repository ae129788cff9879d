"""The REST doors of the reputation profile (§21): `/api/v1/reputation/{identity}` (`me` for the caller)
`/api/v1/reputation/{identity}/outcomes` and `/api/v1/reputation/{identity}/attestation`. The identity in the path is handed to the operation as it is."""
from forum.api.views import ReadView
from reputation import operations
from reputation.portable import EXPORT_REPUTATION


class LineView(ReadView):
    path_argument = "identity"

    def path_value(self, ref):
        return ref


class RecordView(LineView):
    operation = operations.READ_REPUTATION


class OutcomesView(LineView):
    operation = operations.LIST_OUTCOMES


class AttestationView(LineView):
    operation = EXPORT_REPUTATION
