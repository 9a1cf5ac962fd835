"""Tests of the model providers, and the fake model servers other tests run them against."""
