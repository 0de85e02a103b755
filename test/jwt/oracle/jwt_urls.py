"""The oracle's routes plus simplejwt's views at reference-api.md's JWT paths (issue 25)."""
from django.urls import path
from rest_framework.permissions import IsAuthenticated
from rest_framework_simplejwt.authentication import JWTAuthentication
from rest_framework_simplejwt.views import (
    TokenBlacklistView,
    TokenObtainPairView,
    TokenRefreshView,
    TokenVerifyView,
)

from articles.views import WhoAmIView
from oracle_site.urls import urlpatterns as oracle_urlpatterns


class JWTSchemeView(WhoAmIView):
    """Who am I with simplejwt's JWTAuthentication only, as /api/schemes/token/ is with Token."""

    authentication_classes = [JWTAuthentication]
    permission_classes = [IsAuthenticated]


urlpatterns = oracle_urlpatterns + [
    path('api/jwt/', TokenObtainPairView.as_view()),
    path('api/jwt/refresh/', TokenRefreshView.as_view()),
    path('api/jwt/verify/', TokenVerifyView.as_view()),
    path('api/jwt/blacklist/', TokenBlacklistView.as_view()),
    path('api/schemes/jwt/', JWTSchemeView.as_view()),
]
