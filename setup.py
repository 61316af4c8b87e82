"""Which packages the wheel ships; everything else is in pyproject.toml.

Every package under ``rolloutctl/`` is found automatically (a new subpackage cannot be
forgotten), and the repository's ``schemas/`` and ``samples/`` directories ship inside the
package as ``rolloutctl.schemas`` and ``rolloutctl.samples`` (``package-dir`` in
pyproject.toml). tests/test_packaging.py checks the built wheel holds all of them.
"""

from setuptools import find_packages, setup

setup(packages=[*find_packages(include=["rolloutctl", "rolloutctl.*"]), "rolloutctl.schemas", "rolloutctl.samples"])
