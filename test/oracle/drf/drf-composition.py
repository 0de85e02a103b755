"""Evaluates permission expressions with DRF 3.14's own composition (rest_framework.permissions).

Reads JSON from stdin: {"leaves": [[has_permission, has_object_permission or null], ...],
"expressions": [expr, ...]} where expr is ["leaf", i] | ["and", a, b] | ["or", a, b] | ["not", a],
built with DRF's `&`, `|` and `~` on the classes. A leaf whose object answer is null defines no
has_object_permission (BasePermission's default). Writes, per expression, DRF's
has_permission, has_object_permission and the `message` check_permissions would use.
"""
import json
import sys

import django
from django.conf import settings

settings.configure(INSTALLED_APPS=['rest_framework'], USE_TZ=True)
django.setup()

from rest_framework.permissions import BasePermission  # noqa: E402


def leaf_class(index, has, has_object):
    attrs = {'has_permission': lambda self, request, view: has, 'message': f'leaf {index}'}
    if has_object is not None:
        attrs['has_object_permission'] = lambda self, request, view, obj: has_object
    return type(f'Leaf{index}', (BasePermission,), attrs)


def build(expr, leaves):
    kind = expr[0]
    if kind == 'leaf':
        return leaves[expr[1]]
    if kind == 'not':
        return ~build(expr[1], leaves)
    a, b = build(expr[1], leaves), build(expr[2], leaves)
    return a & b if kind == 'and' else a | b


def main():
    spec = json.load(sys.stdin)
    leaves = [leaf_class(i, has, obj) for i, (has, obj) in enumerate(spec['leaves'])]
    out = []
    for expr in spec['expressions']:
        permission = build(expr, leaves)()
        out.append({
            'has': bool(permission.has_permission(None, None)),
            'object': bool(permission.has_object_permission(None, None, object())),
            'message': getattr(permission, 'message', None),
        })
    json.dump(out, sys.stdout)


main()
