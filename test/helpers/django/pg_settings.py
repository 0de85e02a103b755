"""The DRF oracle's settings on PostgreSQL, for tests that need a Django-written PostgreSQL
database (test/helpers/django.ts sets the DJANGO_PG_* variables and puts this folder on
PYTHONPATH). Everything else is the oracle's own oracle_site.settings."""
import os

from oracle_site.settings import *  # noqa: F401,F403

DATABASES = {
    'default': {
        'ENGINE': 'django.db.backends.postgresql',
        'NAME': os.environ['DJANGO_PG_NAME'],
        'USER': os.environ.get('DJANGO_PG_USER', 'postgres'),
        'PASSWORD': os.environ.get('DJANGO_PG_PASSWORD', ''),
        'HOST': os.environ.get('DJANGO_PG_HOST', '127.0.0.1'),
        'PORT': os.environ.get('DJANGO_PG_PORT', '5432'),
    }
}
