"""Prints the query parameters DRF 3.14's own OpenAPI generator gives the oracle's routes.

Run in the oracle's directory (shared/oracle-drf) with its settings; reads the paths to
describe as arguments and writes {"paths": {path: [parameter, ...]}, "labels": {...}} as JSON:
DRF's `rest_framework.schemas.openapi.SchemaGenerator` over the oracle's URL conf (its
paginators' and filter backends' `get_schema_operation_parameters`, django-filter 23.1's
included), and the label and help text django-filter's form gives each filter of the
oracle's `ArticleFilterSet` (what its browsable API shows).
"""
import json
import os
import sys
import tempfile
import warnings

sys.path.insert(0, os.getcwd())
os.environ.setdefault('DJANGO_SETTINGS_MODULE', 'oracle_site.settings')
# The generator reads no row; the settings only need a database path.
os.environ.setdefault('ORACLE_DB', os.path.join(tempfile.gettempdir(), 'drf-schema-unused.sqlite3'))

import django  # noqa: E402

django.setup()

from rest_framework.schemas.openapi import SchemaGenerator  # noqa: E402

with warnings.catch_warnings():
    # The oracle's views read the request in get_queryset (none here) and share operationIds.
    warnings.simplefilter('ignore')
    schema = SchemaGenerator(title='oracle').get_schema(request=None, public=True)

from articles.views import ArticleFilterSet  # noqa: E402

labels = {name: [str(f.label), None if f.extra.get('help_text') is None else str(f.extra['help_text'])] for name, f in ArticleFilterSet().filters.items()}
paths = {path: schema['paths'][path]['get'].get('parameters', []) for path in sys.argv[1:]}
json.dump({'paths': paths, 'labels': labels}, sys.stdout, default=str)
