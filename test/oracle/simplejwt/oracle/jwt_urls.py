"""The oracle's routes plus simplejwt's views at reference-api.md's JWT paths (issue 25)."""
from django.urls import path
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework_simplejwt.authentication import JWTAuthentication
from rest_framework_simplejwt.views import (
    TokenBlacklistView,
    TokenObtainPairView,
    TokenRefreshView,
    TokenVerifyView,
)

from articles.views import WhoAmIView, identity
from oracle_site.urls import urlpatterns as oracle_urlpatterns


class JWTSchemeView(WhoAmIView):
    """Who am I with simplejwt's JWTAuthentication only, as /api/schemes/token/ is with Token."""

    authentication_classes = [JWTAuthentication]
    permission_classes = [IsAuthenticated]

    def get(self, request):
        # reference-api.md: `auth` is the raw access token (the bytes JWTAuthentication read;
        # str(request.auth) re-signs the same claims, the same text for well-formed tokens).
        return Response({**identity(request), 'auth': request.auth.token.decode('latin-1')})


urlpatterns = oracle_urlpatterns + [
    path('api/jwt/', TokenObtainPairView.as_view()),
    path('api/jwt/refresh/', TokenRefreshView.as_view()),
    path('api/jwt/verify/', TokenVerifyView.as_view()),
    path('api/jwt/blacklist/', TokenBlacklistView.as_view()),
    path('api/schemes/jwt/', JWTSchemeView.as_view()),
]
