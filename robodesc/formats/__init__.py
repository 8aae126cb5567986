"""The built-in formats, one subpackage each, plus the XML helpers they share (`xml.py`).

Each subpackage is a plugin registered through the `robodesc` entry points in pyproject.toml,
exactly as a third party's format would be; nothing here is imported by name elsewhere.
"""
