"""The repository configuration, ``.rolloutctl.yaml``: read once per run, found upward
from the working directory up to the repository root (as yamllint finds ``.yamllint``)
or named with ``--config FILE``. It holds what a team decides once for the repository:

.. code-block:: yaml

    namespace: serving                 # default of -n
    operators:
      kuberay: v1.4.2                  # default of --kuberay-version
      kueue: nested                    # default of --kueue
      featureGates:                    # KubeRay feature gates, before --feature-gate
        RayClusterMTLS: true
      kuberayEnv:                      # KubeRay operator environment, before --kuberay-env
        ENABLE_ZERO_DOWNTIME: "false"
      groveConfig:                     # Grove operator configuration, before --grove-config
        autoMNNVLEnabled: true
    diff:
      failOn: [rollout, recreate, teardown, rejected]   # default of diff --fail-on
    ignore:
      - rule: GV201                    # a rule ID or a glob (GV2*); without it: every rule and diff changes
        kind: PodCliqueSet             # globs; each one left out matches everything
        namespace: "*"
        name: "llm-*"
        file: "charts/**"
        path: spec.updateStrategy      # a keyed field path (glob); covers everything below it
        reason: we run the proposed Grove build     # required
        expires: 2027-03-31            # optional; after it the entry no longer applies (a warning)

A bad file is one ``PATH:LINE: message`` and exit code 2, like any bad input.
Pure data and parsing; the use cases apply it.
"""

from __future__ import annotations

import datetime as _dt
import fnmatch
import functools
import re
import os
from ..core.effects import EFFECTS
from ..core.records import field, record
from ..core.text import UTF8_BOM
from pathlib import Path
from typing import Any, Iterable

NAMES = (".rolloutctl.yaml", ".rolloutctl.yml")
KUEUE_MODELS = ("top-level", "nested", "legacy")

_TOP_KEYS = ("namespace", "operators", "diff", "ignore")
_IGNORE_KEYS = ("rule", "kind", "namespace", "name", "file", "path", "reason", "expires")


class ConfigError(Exception):
    """A problem in the configuration file, at a line."""

    def __init__(self, file: str, line: int, message: str) -> None:
        super().__init__(f"{file}:{line}: {message}")
        self.file, self.line, self.message = file, line, message


@record(frozen=True)
class Ignore:
    """One ``ignore:`` entry. Every selector is a glob (``fnmatch``); ``None`` matches all."""

    reason: str
    rule: str | None = None
    kind: str | None = None
    namespace: str | None = None
    name: str | None = None
    file: str | None = None
    path: str | None = None
    expires: _dt.date | None = None
    #: where the entry is written (for the warning when it has expired)
    source: str = ""
    line: int = 0

    def expired(self, today: _dt.date) -> bool:
        return self.expires is not None and today > self.expires

    def matches(self, *, rule: str | None, kind: str, namespace: str, name: str, file: str, path: str) -> bool:
        """``rule`` is None for a diff change: only entries without ``rule`` ignore those."""
        if self.rule is not None:
            if rule is None or not fnmatch.fnmatchcase(rule, self.rule.upper()):
                return False
        for pattern, value in ((self.kind, kind), (self.namespace, namespace), (self.name, name)):
            if pattern is not None and not fnmatch.fnmatchcase(value, pattern):
                return False
        if self.file is not None and not _file_matches(self.file, file):
            return False
        if self.path is not None and not path_matches(self.path, path):
            return False
        return True

    def describe(self) -> str:
        parts = [f"{k}={v}" for k, v in (("rule", self.rule), ("kind", self.kind), ("namespace", self.namespace),
                                         ("name", self.name), ("file", self.file), ("path", self.path)) if v]
        return " ".join(parts) or "(everything)"


@functools.lru_cache(maxsize=256)
def _path_regex(pattern: str) -> "re.Pattern[str]":
    """A field-path pattern as a regex: ``*`` and ``?`` are the wildcards; brackets are
    literal (``cliques[name=x]`` is a keyed path, not a character class)."""
    out = "".join(".*" if c == "*" else "." if c == "?" else re.escape(c) for c in pattern)
    # the path itself, or the path followed by anything below it
    return re.compile(f"(?:{out})(?:[.\\[].*)?", re.S)


def path_matches(pattern: str, path: str) -> bool:
    """A field-path pattern matches the path itself and everything below it:
    ``spec.template`` covers ``spec.template.cliques[name=a].spec.replicas``."""
    return _path_regex(pattern).fullmatch(path) is not None


def _file_matches(pattern: str, file: str) -> bool:
    f = file.replace("\\", "/")
    f = f[2:] if f.startswith("./") else f
    p = pattern.replace("\\", "/")
    if fnmatch.fnmatchcase(f, p):
        return True
    # "dir/**" and "**/x.yaml" in the usual sense: fnmatch's * already crosses "/"
    return "**/" in p and fnmatch.fnmatchcase(f, p.replace("**/", ""))


@record(frozen=True)
class Config:
    """The settings; an empty ``Config()`` is what a repository without a file gets."""

    path: str = ""
    namespace: str | None = None
    kuberay_version: str | None = None
    kueue: str | None = None
    #: ``operators.featureGates`` / ``kuberayEnv`` / ``groveConfig``: ("NAME=VALUE", line)
    #: items, given to the models before the command line's (which win)
    feature_gates: tuple[tuple[str, int], ...] = ()
    kuberay_env: tuple[tuple[str, int], ...] = ()
    grove_config: tuple[tuple[str, int], ...] = ()
    fail_on: tuple[str, ...] | None = None
    ignores: tuple[Ignore, ...] = field(default_factory=tuple)

    def active_ignores(self, today: _dt.date | None = None) -> tuple[Ignore, ...]:
        today = today or _today()
        return tuple(i for i in self.ignores if not i.expired(today))

    def expired_ignores(self, today: _dt.date | None = None) -> tuple[Ignore, ...]:
        today = today or _today()
        return tuple(i for i in self.ignores if i.expired(today))


def _today() -> _dt.date:
    """Today (UTC), or ``ROLLOUTCTL_TODAY`` (YYYY-MM-DD) for reproducible runs."""
    fixed = os.environ.get("ROLLOUTCTL_TODAY")
    if fixed:
        try:
            return _dt.date.fromisoformat(fixed)
        except ValueError:
            pass
    return _dt.datetime.now(_dt.timezone.utc).date()


def find(start: str | os.PathLike[str] | None = None) -> str | None:
    """The nearest ``.rolloutctl.yaml`` in ``start`` (default: the working directory)
    or one of its parents, up to the repository's root (the directory holding ``.git``)
    or the home directory: a file outside the repository is not its configuration."""
    here = Path(start or os.getcwd()).resolve()
    home = Path.home().resolve() if os.environ.get("HOME") else None
    for d in (here, *here.parents):
        for n in NAMES:
            p = d / n
            if p.is_file():
                return str(p)
        if (d / ".git").exists() or d == home:
            break
    return None


def load(explicit: str | None = None, start: str | None = None) -> Config:
    """``--config FILE`` when given (it must exist), else the file found upward, else
    the empty configuration. Raises ``ConfigError``."""
    path = explicit if explicit else find(start)
    if path is None:
        return Config()
    shown = _shown(path)
    try:
        with open(path, "rb") as fh:
            data = fh.read(1024 * 1024 + 1)
    except FileNotFoundError:
        raise ConfigError(shown, 0, "no such configuration file") from None
    except IsADirectoryError:
        raise ConfigError(shown, 0, "is a directory, not a configuration file") from None
    except OSError as exc:
        raise ConfigError(shown, 0, f"cannot read: {exc.strerror or exc}") from None
    if len(data) > 1024 * 1024:
        raise ConfigError(shown, 1, "configuration file is larger than 1 MiB")
    bom = len(UTF8_BOM) if data.startswith(UTF8_BOM) else 0
    try:
        text = data[bom:].decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(shown, data[: exc.start + bom].count(b"\n") + 1, "not UTF-8 text") from None
    return parse(text, shown)


def _shown(path: str) -> str:
    """The configuration's path as messages show it: relative to the working directory when below it."""
    try:
        rel = os.path.relpath(path)
    except ValueError:
        return path
    return rel if not rel.startswith("..") else path


def parse(text: str, name: str = NAMES[0]) -> Config:
    import yaml

    loader_cls = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        nodes = list(yaml.compose_all(text, Loader=loader_cls))
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        raise ConfigError(name, mark.line + 1 if mark else 1, f"YAML syntax error: {exc.problem or exc.context}") from None
    except yaml.YAMLError as exc:
        raise ConfigError(name, 1, f"YAML error: {exc}") from None
    nodes = [n for n in nodes if n is not None]
    if not nodes:
        return Config(path=name)
    if len(nodes) > 1:
        raise ConfigError(name, nodes[1].start_mark.line + 1, "the configuration is one YAML document")
    return _Parser(name).config(nodes[0])


class _Parser:
    def __init__(self, name: str) -> None:
        self.name = name

    def fail(self, node: Any, message: str) -> ConfigError:
        return ConfigError(self.name, node.start_mark.line + 1, message)

    def mapping(self, node: Any, what: str, keys: Iterable[str]) -> dict[str, tuple[Any, Any]]:
        import yaml

        if not isinstance(node, yaml.MappingNode):
            raise self.fail(node, f"{what}: expected a mapping")
        known = tuple(keys)
        out: dict[str, tuple[Any, Any]] = {}
        for k, v in node.value:
            key = k.value if isinstance(k, yaml.ScalarNode) else None
            if key not in known:
                raise self.fail(k, f"{what}: unknown key {key!r} (known: {', '.join(known)})")
            if key in out:
                raise self.fail(k, f"{what}: duplicate key {key!r}")
            out[key] = (k, v)
        return out

    def string(self, node: Any, what: str) -> str:
        import yaml

        if not isinstance(node, yaml.ScalarNode) or node.tag.endswith((":null", ":bool")) or not node.value.strip():
            raise self.fail(node, f"{what}: expected a non-empty string")
        return node.value.strip()

    def config(self, root: Any) -> Config:
        import yaml

        top = self.mapping(root, "configuration", _TOP_KEYS)
        namespace = kuberay = kueue = None
        settings: dict[str, tuple[tuple[str, int], ...]] = {}
        fail_on: tuple[str, ...] | None = None
        ignores: list[Ignore] = []
        if "namespace" in top:
            node = top["namespace"][1]
            namespace = self.string(node, "namespace")
            if not re.fullmatch(r"^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$", namespace):
                raise self.fail(node, f"namespace: {namespace!r} is not a valid Kubernetes namespace")
        if "operators" in top:
            ops = self.mapping(top["operators"][1], "operators",
                               ("kuberay", "kueue", "featureGates", "kuberayEnv", "groveConfig"))
            settings = {key: self.settings(ops[key][1], f"operators.{key}")
                        for key in ("featureGates", "kuberayEnv", "groveConfig") if key in ops}
            if "kuberay" in ops:
                kuberay = self.string(ops["kuberay"][1], "operators.kuberay")
            if "kueue" in ops:
                kueue = self.string(ops["kueue"][1], "operators.kueue")
                if kueue not in KUEUE_MODELS:
                    raise self.fail(ops["kueue"][1], f"operators.kueue: {kueue!r}: choose one of {', '.join(KUEUE_MODELS)}")
        if "diff" in top:
            d = self.mapping(top["diff"][1], "diff", ("failOn",))
            if "failOn" in d:
                node = d["failOn"][1]
                if isinstance(node, yaml.SequenceNode):
                    items = [self.string(n, "diff.failOn[]") for n in node.value]
                else:
                    items = [s.strip() for s in self.string(node, "diff.failOn").split(",") if s.strip()]
                bad = [e for e in items if e not in EFFECTS]
                if bad or not items:
                    raise self.fail(node, f"diff.failOn: unknown effect {', '.join(bad) or '(none given)'}; "
                                          f"choose from {', '.join(EFFECTS)}")
                fail_on = tuple(items)
        if "ignore" in top:
            node = top["ignore"][1]
            if not isinstance(node, yaml.SequenceNode):
                raise self.fail(node, "ignore: expected a list of entries")
            for i, entry in enumerate(node.value):
                ignores.append(self.ignore(entry, f"ignore[{i}]"))
        return Config(self.name, namespace, kuberay, kueue, settings.get("featureGates", ()),
                      settings.get("kuberayEnv", ()), settings.get("groveConfig", ()), fail_on, tuple(ignores))

    def settings(self, node: Any, what: str) -> tuple[tuple[str, int], ...]:
        """A mapping of operator settings (NAME: value) as ("NAME=value", line) items;
        the kinds check the names and values (``cli_common.operator_options``)."""
        import yaml

        if not isinstance(node, yaml.MappingNode):
            raise self.fail(node, f"{what}: expected a mapping of NAME: value")
        out: list[tuple[str, int]] = []
        seen: set[str] = set()
        for k, v in node.value:
            name = self.string(k, f"{what} key")
            if name in seen:
                raise self.fail(k, f"{what}: duplicate key {name!r}")
            seen.add(name)
            if not isinstance(v, yaml.ScalarNode) or v.tag.endswith(":null"):
                raise self.fail(v, f"{what}.{name}: expected a value (true, false or a string)")
            out.append((f"{name}={v.value.strip()}", k.start_mark.line + 1))
        return tuple(out)

    def ignore(self, node: Any, what: str) -> Ignore:
        m = self.mapping(node, what, _IGNORE_KEYS)
        if "reason" not in m:
            raise self.fail(node, f"{what}: every ignore needs a reason (reason: why this is accepted)")
        values: dict[str, Any] = {}
        for key in ("rule", "kind", "namespace", "name", "file", "path", "reason"):
            if key in m:
                values[key] = self.string(m[key][1], f"{what}.{key}")
        if "rule" in values:
            if not re.fullmatch(r"^[A-Za-z0-9*?\[\]]+$", values["rule"]):
                raise self.fail(m["rule"][1], f"{what}.rule: {values['rule']!r} is not a rule ID or a glob of IDs")
        if "expires" in m:
            values["expires"] = self.date(m["expires"][1], f"{what}.expires")
        return Ignore(source=self.name, line=node.start_mark.line + 1, **values)

    def date(self, node: Any, what: str) -> _dt.date:
        import yaml

        if isinstance(node, yaml.ScalarNode):
            try:
                return _dt.date.fromisoformat(node.value.strip())
            except ValueError:
                pass
        raise self.fail(node, f"{what}: expected a date YYYY-MM-DD")


def applies(ignores: Iterable[Ignore], **what: Any) -> Ignore | None:
    """The first entry that matches (see ``Ignore.matches``), or None."""
    for i in ignores:
        if i.matches(**what):
            return i
    return None


def describe_expired(i: Ignore) -> str:
    return (f"ignore entry {i.describe()} expired on {i.expires.isoformat() if i.expires else '?'} "
            f"and no longer applies (reason given: {i.reason})")


