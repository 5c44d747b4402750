"""The Python family: functions read from source, normalised, censused and shaped."""
