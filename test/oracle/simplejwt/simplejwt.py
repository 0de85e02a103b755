"""Mints and checks tokens with the real simplejwt 5.2.2 (Debian's package), for the cross-test.

Reads one JSON object on stdin: {"key": ..., "settings": {...SIMPLE_JWT overrides},
"jobs": [{"op": "mint", "user_id": 7} | {"op": "mint_sliding", "user_id": 7}
| {"op": "check", "token": ..., "class": "access"|"refresh"|"sliding"|"untyped"}
| {"op": "refresh_sliding", "token": ...} | {"op": "authenticate", "token": ...}]}
and writes one JSON list of answers on stdout: minted {"refresh", "access"} or {"token"},
checked {"payload": {...}} / {"error": "<simplejwt's message>"}, refreshed {"token"} /
{"error"} (TokenRefreshSlidingSerializer), authenticated {"payload"} / {"invalid": InvalidToken's
detail} (JWTAuthentication.get_validated_token under AUTH_TOKEN_CLASSES).
"""
import json
import sys
from datetime import timedelta

import django
from django.conf import settings

request = json.load(sys.stdin)
# Lifetimes come as seconds; SIMPLE_JWT wants timedeltas.
simple_jwt = {name: timedelta(seconds=value) if name.endswith("_LIFETIME") else value for name, value in request.get("settings", {}).items()}
settings.configure(
    SECRET_KEY=request["key"],
    INSTALLED_APPS=["django.contrib.contenttypes", "django.contrib.auth", "rest_framework"],
    DATABASES={},
    USE_TZ=True,
    SIMPLE_JWT=simple_jwt,
)
django.setup()

from rest_framework_simplejwt.authentication import JWTAuthentication  # noqa: E402
from rest_framework_simplejwt.exceptions import InvalidToken, TokenError  # noqa: E402
from rest_framework_simplejwt.serializers import TokenRefreshSlidingSerializer  # noqa: E402
from rest_framework_simplejwt.tokens import AccessToken, RefreshToken, SlidingToken, UntypedToken  # noqa: E402


class User:
    def __init__(self, pk):
        self.id = pk
        self.pk = pk


CLASSES = {"access": AccessToken, "refresh": RefreshToken, "sliding": SlidingToken, "untyped": UntypedToken}
answers = []
for job in request["jobs"]:
    if job["op"] == "mint":
        refresh = RefreshToken.for_user(User(job["user_id"]))
        answers.append({"refresh": str(refresh), "access": str(refresh.access_token)})
    elif job["op"] == "mint_sliding":
        answers.append({"token": str(SlidingToken.for_user(User(job["user_id"])))})
    elif job["op"] == "refresh_sliding":
        try:
            answers.append(TokenRefreshSlidingSerializer().validate({"token": job["token"]}))
        except TokenError as error:
            answers.append({"error": str(error.args[0])})
        except Exception as error:
            answers.append({"crash": type(error).__name__})
    elif job["op"] == "authenticate":
        try:
            answers.append({"payload": JWTAuthentication().get_validated_token(job["token"]).payload})
        except InvalidToken as error:
            answers.append({"invalid": json.loads(json.dumps(error.detail))})
        except Exception as error:
            answers.append({"crash": type(error).__name__})
    else:
        try:
            token = CLASSES[job["class"]](job["token"])
            answers.append({"payload": token.payload})
        except TokenError as error:
            answers.append({"error": str(error.args[0])})
        except Exception as error:  # simplejwt's own 500s
            answers.append({"crash": type(error).__name__})
json.dump(answers, sys.stdout)
