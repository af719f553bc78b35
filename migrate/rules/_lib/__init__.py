"""Helpers shared by several rules (rules never import each other; they import from here)."""
