"""`/.well-known/parley-keys.json` (Parley v1 §18): this realm's JWKS, for anyone, without a token. A DRF
view, so a wrong method or an unreachable database answers §13's JSON like every other machine path."""
from rest_framework.response import Response
from rest_framework.views import APIView

from evidence.keys import jwks

# Short: a rotation or a retirement should reach the realms that check our signatures within minutes.
JWKS_MAX_AGE = 300


class JwksView(APIView):
    authentication_classes = ()
    permission_classes = ()
    schema = None  # not an operation of §12: OpenAPI describes the operations

    def get(self, request):
        return Response(jwks(), headers={"Cache-Control": f"public, max-age={JWKS_MAX_AGE}"})
