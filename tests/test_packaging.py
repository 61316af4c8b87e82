"""The package users install is the package we test.

The wheel must hold every module under ``rolloutctl/`` (a subpackage missing from the
wheel fails every ``lint`` with ``No module named …``), the bundled schemas and samples,
both console scripts, and as run-time dependencies exactly the distributions the code
imports. Under .ci/run the suite runs against that wheel, installed (not editable) in a
fresh venv: ``rolloutctl`` must then come from site-packages, not from the checkout.
"""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from email.parser import Parser
from pathlib import Path

import pytest

from tests.conftest import INSTALLED, REPO, rolloutctl_argv, rolloutctl_env

PKG = REPO / "rolloutctl"

#: distribution name -> the top-level module it provides, where they differ
_IMPORT_NAME = {"pyyaml": "yaml", "cel-python": "celpy"}


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> zipfile.ZipFile:
    """The wheel .ci/run built (``ROLLOUTCTL_TEST_WHEEL``), or one built here from a copy of
    the checkout (so no stale ``build/`` directory can add or hide a module)."""
    given = os.environ.get("ROLLOUTCTL_TEST_WHEEL")
    if given:
        return zipfile.ZipFile(given)
    if not (REPO / "pyproject.toml").is_file():
        pytest.skip("not run from a checkout")
    tmp = tmp_path_factory.mktemp("wheel")
    src = tmp / "src"
    shutil.copytree(REPO, src, ignore=shutil.ignore_patterns(
        ".git", ".venv", ".ci-venv", "build", "dist", "*.egg-info", "__pycache__", ".pytest_cache", ".hypothesis",
        "tests", "bench"))
    p = subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--wheel-dir", str(tmp / "dist"),
                        str(src)], capture_output=True, text=True, timeout=600)
    if p.returncode != 0:
        if INSTALLED:
            pytest.fail(f"pip wheel failed: {p.stderr[-2000:]}")
        pytest.skip(f"cannot build a wheel here (offline without setuptools?): {p.stderr.strip()[-300:]}")
    (built,) = (tmp / "dist").glob("rolloutctl-*.whl")
    return zipfile.ZipFile(built)


def _dist_info(wheel: zipfile.ZipFile, name: str) -> str:
    (path,) = [n for n in wheel.namelist() if n.endswith(f".dist-info/{name}")]
    return wheel.read(path).decode()


def test_wheel_holds_every_module_under_rolloutctl(wheel):
    names = set(wheel.namelist())
    modules = sorted(str(p.relative_to(REPO)) for p in PKG.rglob("*.py") if "__pycache__" not in p.parts)
    assert "rolloutctl/kinds/kueue/model.py" in modules  # the subpackage a hand-written list once missed
    missing = [m for m in modules if m not in names]
    assert missing == [], f"modules of the checkout missing from the wheel: {missing}"
    # and nothing that is not in the checkout (a stale build/ directory)
    shipped = sorted(n for n in names if n.startswith("rolloutctl/") and n.endswith(".py")
                     and not n.startswith(("rolloutctl/schemas/", "rolloutctl/samples/")))
    assert [n for n in shipped if n not in modules] == []


def test_wheel_holds_the_schemas_and_samples(wheel):
    names = set(wheel.namelist())
    schemas = sorted(p.name for p in (REPO / "schemas").glob("*.json"))
    samples = sorted(p.name for p in (REPO / "samples").glob("*.yaml"))
    assert "plan.schema.json" in schemas and "disaggregated-inference.yaml" in samples
    assert [s for s in schemas if f"rolloutctl/schemas/{s}" not in names] == []
    assert [s for s in samples if f"rolloutctl/samples/{s}" not in names] == []


def test_wheel_has_both_console_scripts(wheel):
    entry_points = _dist_info(wheel, "entry_points.txt")
    assert "rolloutctl = rolloutctl.launch:main" in entry_points
    assert "kubectl-rolloutctl = rolloutctl.launch:kubectl_plugin_main" in entry_points


def _third_party_imports() -> dict[str, str]:
    """Top-level modules imported by the package that are neither stdlib nor rolloutctl,
    with one file importing each."""
    found: dict[str, str] = {}
    for path in sorted(PKG.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                mods = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
                mods = [node.module]
            else:
                continue
            for m in mods:
                top = m.split(".")[0]
                if top != "rolloutctl" and top not in sys.stdlib_module_names and top != "__future__":
                    found.setdefault(top, str(path.relative_to(REPO)))
    return found


def test_runtime_dependencies_are_exactly_what_the_package_imports(wheel):
    metadata = Parser().parsestr(_dist_info(wheel, "METADATA"))
    runtime = set()
    for req in metadata.get_all("Requires-Dist") or []:
        if "extra ==" in req:
            continue
        name = req.split(";")[0].strip()
        for sep in "<>=!~[ (":
            name = name.split(sep)[0]
        runtime.add(name.lower())
    imported = _third_party_imports()
    provided = {_IMPORT_NAME.get(d, d.replace("-", "_")): d for d in runtime}
    assert sorted(m for m in imported if m not in provided) == [], f"imported but not a dependency: {imported}"
    unused = sorted(d for m, d in provided.items() if m not in imported)
    assert unused == [], f"run-time dependencies nothing imports (move them to the test extra): {unused}"
    assert "jsonschema" not in runtime  # tests use it to cross-check lint/validator.py; the tool does not


@pytest.mark.skipif(not INSTALLED, reason="only under .ci/run (ROLLOUTCTL_TEST_INSTALLED=1): development uses an "
                    "editable install of the checkout")
def test_rolloutctl_is_imported_from_site_packages():
    import importlib.metadata as md
    import json

    import rolloutctl
    from rolloutctl.schemas_access import schema_text

    where = Path(rolloutctl.__file__).resolve()
    purelib = Path(sysconfig.get_paths()["purelib"]).resolve()
    assert purelib in where.parents, f"rolloutctl imported from {where}, not from {purelib}"
    assert REPO not in where.parents
    direct_url = md.distribution("rolloutctl").read_text("direct_url.json")
    assert not (direct_url and json.loads(direct_url).get("dir_info", {}).get("editable")), "an editable install"
    assert schema_text("plan") is not None
    from importlib import resources

    assert resources.files("rolloutctl.samples").joinpath("disaggregated-inference.yaml").is_file()
    # the console scripts users run are installed next to this interpreter
    scripts = Path(sysconfig.get_paths()["scripts"])
    assert (scripts / "rolloutctl").is_file() and (scripts / "kubectl-rolloutctl").is_file()


def test_kubectl_plugin_names_itself_as_kubectl_does():
    """``kubectl rolloutctl plan --help`` (kubectl runs ``kubectl-rolloutctl plan --help``) shows
    the command users typed."""
    code = "from rolloutctl.cli import kubectl_plugin_main; kubectl_plugin_main()"
    argv = rolloutctl_argv()[:-2]  # python [-P]
    p = subprocess.run([*argv, "-c", code, "plan", "--help"], capture_output=True, text=True, env=rolloutctl_env(),
                       cwd=REPO, timeout=120)
    assert p.returncode == 0, p.stderr
    assert "Usage: kubectl rolloutctl plan" in p.stdout
