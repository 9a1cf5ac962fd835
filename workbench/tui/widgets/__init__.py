"""Widgets of the session screens: the transcript, the timing panel."""
