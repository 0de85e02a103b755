"""Mints and checks tokens with the real simplejwt 5.2.2 (Debian's package), for the cross-test.

Reads one JSON object on stdin: {"key": ..., "settings": {...SIMPLE_JWT overrides},
"jobs": [{"op": "mint", "user_id": 7} | {"op": "check", "token": ..., "class": "access"|"refresh"|"untyped"}]}
and writes one JSON list of answers on stdout: minted {"refresh", "access"}, or checked
{"payload": {...}} / {"error": "<simplejwt's message>"}.
"""
import json
import sys

import django
from django.conf import settings

request = json.load(sys.stdin)
settings.configure(
    SECRET_KEY=request["key"],
    INSTALLED_APPS=["django.contrib.contenttypes", "django.contrib.auth", "rest_framework"],
    DATABASES={},
    USE_TZ=True,
    SIMPLE_JWT=request.get("settings", {}),
)
django.setup()

from rest_framework_simplejwt.exceptions import TokenError  # noqa: E402
from rest_framework_simplejwt.tokens import AccessToken, RefreshToken, UntypedToken  # noqa: E402


class User:
    def __init__(self, pk):
        self.id = pk
        self.pk = pk


CLASSES = {"access": AccessToken, "refresh": RefreshToken, "untyped": UntypedToken}
answers = []
for job in request["jobs"]:
    if job["op"] == "mint":
        refresh = RefreshToken.for_user(User(job["user_id"]))
        answers.append({"refresh": str(refresh), "access": str(refresh.access_token)})
    else:
        try:
            token = CLASSES[job["class"]](job["token"])
            answers.append({"payload": token.payload})
        except TokenError as error:
            answers.append({"error": str(error.args[0])})
        except Exception as error:  # simplejwt's own 500s
            answers.append({"crash": type(error).__name__})
json.dump(answers, sys.stdout)
