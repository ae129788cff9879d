"""Settings are read from the environment, and a bad value stops the process at start-up (docs/deploy.md):
never at the first request, and never as a traceback that does not name the variable."""
import os
import subprocess
import sys

import pytest
from django.conf import settings as django_settings

# Each whole-number setting, and where the settings module keeps what it read.
NUMBERS = {"CONN_MAX_AGE": "DATABASES['default']['CONN_MAX_AGE']", "SECURE_HSTS_SECONDS": "SECURE_HSTS_SECONDS",
           "PARLEY_WRITES_PER_MINUTE": "PARLEY_LIMITS['writes_per_minute']"}


def settings_read(variable, value, shown="None"):
    environment = {**os.environ, "DEBUG": "1", variable: value}
    return subprocess.run([sys.executable, "-c", f"from parley_site.settings import *; print({shown})"],
                          env=environment, cwd=django_settings.BASE_DIR, capture_output=True, text=True)


@pytest.mark.parametrize("variable", NUMBERS)
@pytest.mark.parametrize("value", ["sixty", "-1", "99999999999"])
def test_a_number_setting_that_is_no_number_of_its_range_stops_the_start_naming_the_variable(variable, value):
    started = settings_read(variable, value)
    assert started.returncode != 0
    assert f"ImproperlyConfigured: {variable} must be a whole number from " in started.stderr


@pytest.mark.parametrize("variable", NUMBERS)
def test_a_number_setting_in_its_range_is_read(variable):
    started = settings_read(variable, "120", NUMBERS[variable])
    assert started.returncode == 0, started.stderr
    assert started.stdout.split() == ["120"]


@pytest.mark.parametrize("variable, value", [("PARLEY_REPUTATION_Z", "wide"), ("PARLEY_REPUTATION_Z", "11"),
                                             ("PARLEY_REPUTATION_ESTABLISHED_SCORE", "1.5")])
def test_a_reputation_number_that_is_no_number_of_its_range_stops_the_start_naming_the_variable(variable, value):
    started = settings_read(variable, value)
    assert started.returncode != 0
    assert f"ImproperlyConfigured: {variable} must be a number from " in started.stderr


def test_the_reputation_parameters_are_read_from_the_environment():
    started = settings_read("PARLEY_REPUTATION_HOLD_DAYS", "3", "PARLEY_REPUTATION['hold_days']")
    assert started.returncode == 0, started.stderr
    assert started.stdout.split() == ["3"]
    started = settings_read("PARLEY_REPUTATION_PROPOSALS", "maybe")
    assert "PARLEY_REPUTATION_PROPOSALS must be true or false" in started.stderr
