"""Live objects read with the user's ``kubectl`` (``rolloutctl diff --from-cluster``).

Read-only by construction: the only verb ever run is ``get``, always as an argument
list (never through a shell). The objects to read are decided from the desired
manifests: one ``kubectl get`` per (resource, namespace), naming the objects
(``kubectl get rayservices.ray.io svc-a svc-b -n prod -o yaml --ignore-not-found``);
with ``--prune`` the names are left out so that every object of that kind in the
namespace is read. ``--context`` and ``KUBECONFIG`` are honoured as kubectl honours
them. Any failure (kubectl missing, a non-zero exit, RBAC refusing the read, a
timeout, output that is not YAML) is a ``KubectlError``: the CLI exits 3.
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass
from typing import Callable, Iterable, Sequence

from ..core.model import Obj
from .files import Limits, parse_documents

#: (api group, kind) -> the fully qualified resource name kubectl is asked for
RESOURCES = {
    ("ray.io", "RayService"): "rayservices.ray.io",
    ("grove.io", "PodCliqueSet"): "podcliquesets.grove.io",
}

ALLOWED_VERBS = frozenset({"get"})
#: what a name and a namespace may be (DNS-1123 subdomain / label). Anything else is
#: refused before kubectl runs: a manifest named "--server=https://elsewhere" must
#: never become a kubectl option (it would send the user's credentials elsewhere).
_NAME = re.compile(r"^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$")
_NAMESPACE = re.compile(r"^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$")
DEFAULT_TIMEOUT = 60.0


class KubectlError(Exception):
    """kubectl could not give us the live state."""


@dataclass(frozen=True)
class Target:
    group: str
    kind: str
    namespace: str
    name: str


def resource_for(group: str, kind: str) -> str:
    r = RESOURCES.get((group, kind))
    if r is not None:
        return r
    plural = kind.lower() + ("es" if kind.lower().endswith("s") else "s")
    return f"{plural}.{group}" if group else plural


def commands(targets: Iterable[Target], *, prune: bool = False, context: str | None = None,
             kubectl: str = "kubectl", managed_fields: bool = False) -> list[list[str]]:
    """The ``kubectl get`` argument lists that read ``targets`` (sorted, deterministic).
    ``managed_fields``: keep ``metadata.managedFields`` (``diff --server-side`` reads them;
    kubectl leaves them out of ``-o yaml`` unless asked)."""
    groups: dict[tuple[str, str], set[str]] = {}
    if context is not None and (not context or context.startswith("-")):
        raise KubectlError(f"refusing to pass the context {context!r} to kubectl")
    for t in targets:
        if not _NAME.match(t.name) or not _NAMESPACE.match(t.namespace):
            raise KubectlError(f"refusing to pass {t.kind} {t.namespace!r}/{t.name!r} to kubectl: not a valid "
                               "Kubernetes namespace and name")
        groups.setdefault((resource_for(t.group, t.kind), t.namespace), set()).add(t.name)
    out = []
    for (resource, ns), names in sorted(groups.items()):
        args = [kubectl, "get", resource]
        if not prune:
            args += sorted(names)
        args += ["-n", ns, "-o", "yaml", "--ignore-not-found"]
        if managed_fields:
            args.append("--show-managed-fields")
        if context:
            args += ["--context", context]
        out.append(args)
    return out


Runner = Callable[..., "subprocess.CompletedProcess[str]"]


def run_get(args: Sequence[str], *, timeout: float = DEFAULT_TIMEOUT, run: Runner | None = None) -> str:
    """Run one ``kubectl get`` and return its standard output."""
    args = list(args)
    if len(args) < 2 or args[1] not in ALLOWED_VERBS:  # defence in depth: never anything but get
        raise KubectlError(f"refusing to run kubectl {args[1:2]}: only 'get' is allowed")
    runner = run or subprocess.run
    shown = " ".join(args)
    try:
        proc = runner(args, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL,
                      shell=False, check=False)
    except FileNotFoundError:
        raise KubectlError(f"{args[0]} not found on PATH: install kubectl, or give the live state with --live FILE "
                           "(kubectl get ... -o yaml > live.yaml)") from None
    except PermissionError as exc:
        raise KubectlError(f"cannot run {args[0]}: {exc}") from None
    except UnicodeDecodeError:
        raise KubectlError(f"the output of '{shown}' is not UTF-8 text") from None
    except subprocess.TimeoutExpired:
        raise KubectlError(f"'{shown}' did not finish within {timeout:g} seconds "
                           "(is the cluster reachable? raise --kubectl-timeout)") from None
    except OSError as exc:
        raise KubectlError(f"cannot run {args[0]}: {exc}") from None
    if proc.returncode != 0:
        err = (proc.stderr or "").strip()
        first = err.splitlines()[0] if err else f"exit code {proc.returncode}"
        if "forbidden" in err.lower():
            raise KubectlError(f"'{shown}' was refused by the cluster's RBAC: {first} "
                               f"(check with: kubectl auth can-i get {args[2]} -n <namespace>)")
        raise KubectlError(f"'{shown}' failed (exit code {proc.returncode}): {first}")
    return proc.stdout or ""


def fetch(targets: Sequence[Target], *, prune: bool = False, context: str | None = None,
          timeout: float = DEFAULT_TIMEOUT, kubectl: str = "kubectl", limits: Limits = Limits(),
          run: Runner | None = None, managed_fields: bool = False) -> list[Obj]:
    """The live objects for ``targets`` (absent ones are simply not returned)."""
    objs: list[Obj] = []
    for args in commands(targets, prune=prune, context=context, kubectl=kubectl, managed_fields=managed_fields):
        out = run_get(args, timeout=timeout, run=run)
        if len(out) > limits.max_bytes:
            raise KubectlError(f"the output of '{' '.join(args)}' is larger than {limits.max_bytes} bytes "
                               "(raise --max-input-bytes if this is intended)")
        if not out.strip():
            continue
        name = "kubectl " + " ".join(args[1:])
        found, errors, _ = parse_documents(out, name, limits)
        if errors:
            e = errors[0]
            raise KubectlError(f"could not read the output of '{' '.join(args)}': line {e.line}: {e.message}")
        objs.extend(found)
    return objs
