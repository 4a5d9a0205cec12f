"""Arkwright: Water Frame (rulebooks 000-002; spec shared/rules/water-frame.md)."""
