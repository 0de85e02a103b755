# simplejwt 5.2.2 on the DRF oracle (issue 25): appended to a temporary copy of
# oracle_site/settings.py by test/oracle/simplejwt/simplejwt-oracle.ts, never to ../shared/oracle-drf.
# The signing key is the reference API's GATEHOUSE_JWT_SIGNING_KEY; everything else keeps
# simplejwt's defaults (HS256, 5 min / 1 day, no rotation, BLACKLIST_AFTER_ROTATION off)
# unless ORACLE_JWT_ROTATION=1.
INSTALLED_APPS = INSTALLED_APPS + ['rest_framework_simplejwt.token_blacklist']  # noqa: F821
ROOT_URLCONF = 'oracle_site.jwt_urls'
SIMPLE_JWT = {'SIGNING_KEY': os.environ['GATEHOUSE_JWT_SIGNING_KEY']}  # noqa: F821
# The rotation variant: ROTATE_REFRESH_TOKENS and BLACKLIST_AFTER_ROTATION (which also makes
# 5.2.2's verify view refuse blacklisted tokens). simplejwt reads them at import: one server each.
if os.environ.get('ORACLE_JWT_ROTATION') == '1':  # noqa: F821
    SIMPLE_JWT.update(ROTATE_REFRESH_TOKENS=True, BLACKLIST_AFTER_ROTATION=True)

# One simplejwt oracle per database of the comparison: PostgreSQL when the helper names one
# (a fresh database it created), else run.sh's fresh SQLite file.
if os.environ.get('ORACLE_DATABASE_URL'):  # noqa: F821
    from urllib.parse import unquote, urlsplit

    _url = urlsplit(os.environ['ORACLE_DATABASE_URL'])  # noqa: F821
    DATABASES = {
        'default': {
            'ENGINE': 'django.db.backends.postgresql',
            'NAME': _url.path.lstrip('/'),
            'USER': unquote(_url.username or ''),
            'PASSWORD': unquote(_url.password or ''),
            'HOST': _url.hostname or '',
            'PORT': str(_url.port or ''),
        }
    }
