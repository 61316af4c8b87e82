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

import os
import re
import subprocess
import tempfile
import time
from typing import Any, Callable, Iterable, Sequence

from ..core.go_time import parse_duration_seconds
from ..core.kind import LiveRead
from ..core.model import Obj, Warning
from ..core.records import field, record
from .documents import parse_documents
from .limits import Limits

ALLOWED_VERBS = frozenset({"get"})
#: a klog line's header (severity, MMDD, time, thread, file:line]): kubectl's log lines, which
#: come before the one line it means for a person
_KLOG = re.compile(r"^[IWEF]\d{4}\s")
#: terminal colour and cursor codes (kubectl colours some errors)
_ESCAPE = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def timeout_seconds(text: str) -> float:
    """A kubectl timeout as given: seconds (``30``, ``2.5``) or a Go duration with a unit,
    as kubectl's own ``--request-timeout`` takes it (``30s``, ``2m``, ``1m30s``); at least
    one second. ValueError (a message naming the value) otherwise."""
    text = text.strip()
    try:
        seconds = float(text)
    except ValueError:
        got = parse_duration_seconds(text) if text[-1:].isalpha() else None
        if got is None:
            raise ValueError(f"{text!r} is neither seconds (e.g. 30) nor a duration (e.g. 30s, 2m, 1m30s)") from None
        seconds = got
    if seconds != seconds or seconds in (float("inf"), float("-inf")):
        raise ValueError(f"{text!r} is not a number of seconds")
    if seconds < 1:
        raise ValueError(f"{text!r} is less than 1 second")
    return seconds


def failure_line(stderr: str, returncode: int) -> str:
    """The line of a failed kubectl's standard error to show: its last line that is not a
    klog line (kubectl ends with the sentence meant for a person, e.g. "The connection to
    the server ... was refused"), else the first klog line's message; colour codes dropped."""
    lines = [ln.strip() for ln in _ESCAPE.sub("", stderr).splitlines() if ln.strip()]
    plain = [ln for ln in lines if not _KLOG.match(ln)]
    if plain:
        return plain[-1]
    if lines:
        first = lines[0]
        i = first.find("] ")
        return first[i + 2:] if i >= 0 else first
    return f"exit code {returncode}"


#: what a name and a namespace may be (DNS-1123 subdomain / label). Anything else is
#: refused before kubectl runs: a manifest named "--server=https://elsewhere" must
#: never become a kubectl option (it would send the user's credentials elsewhere).
_NAME = re.compile(r"^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$")
_NAMESPACE = re.compile(r"^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$")
DEFAULT_TIMEOUT = 60.0


class KubectlError(Exception):
    """kubectl could not give us the live state."""


#: what a command can do without kubectl, unless it says otherwise (``KubectlMissing.instead``)
LIVE_STATE_INSTEAD = "give the live state with --live FILE (kubectl get ... -o yaml > live.yaml)"


class KubectlMissing(KubectlError):
    """kubectl is not on PATH; the message says what to do instead."""

    def __init__(self, kubectl: str, instead: str = LIVE_STATE_INSTEAD) -> None:
        self.kubectl = kubectl
        super().__init__(f"{kubectl} not found on PATH: install kubectl, or {instead}")

    def instead(self, what: str) -> "KubectlMissing":
        """The same error with another remedy (a read the user can replace otherwise)."""
        return KubectlMissing(self.kubectl, what)


class Forbidden(KubectlError):
    """The cluster's RBAC refused the read."""


@record(frozen=True)
class Target:
    group: str
    kind: str
    namespace: str
    name: str
    #: the fully qualified resource name kubectl is asked for (a kind's ``KIND.resource``);
    #: "" derives it from the kind (``resource_for``)
    resource: str = ""


def resource_for(group: str, kind: str) -> str:
    """The lower-case plural of ``kind`` in ``group``, as the CRDs of the modelled kinds
    name it (``rayservices.ray.io``)."""
    plural = kind.lower() + ("es" if kind.lower().endswith("s") else "s")
    return f"{plural}.{group}" if group else plural


def commands(targets: Iterable[Target], *, prune: bool = False, context: str | None = None,
             kubectl: str = "kubectl", managed_fields: bool = False, kubeconfig: str | None = None) -> list[list[str]]:
    """The ``kubectl get`` argument lists that read ``targets`` (sorted, deterministic).
    ``managed_fields``: keep ``metadata.managedFields`` (``diff --server-side`` reads them;
    kubectl leaves them out of ``-o yaml`` unless asked)."""
    groups: dict[tuple[str, str], set[str]] = {}
    _check_options(context, kubeconfig)
    for t in targets:
        if not _NAME.fullmatch(t.name) or not _NAMESPACE.fullmatch(t.namespace):
            raise KubectlError(f"refusing to pass {t.kind} {t.namespace!r}/{t.name!r} to kubectl: not a valid "
                               "Kubernetes namespace and name")
        groups.setdefault((t.resource or resource_for(t.group, t.kind), t.namespace), set()).add(t.name)
    out = []
    for (resource, ns), names in sorted(groups.items()):
        args = [kubectl, "get", resource]
        if not prune:
            args += sorted(names)
        args += ["-n", ns, "-o", "yaml", "--ignore-not-found"]
        if managed_fields:
            args.append("--show-managed-fields")
        out.append(args + _connection(context, kubeconfig))
    return out


Runner = Callable[..., "subprocess.CompletedProcess[str]"]


def _streamed(args: list[str], *, timeout: float, max_bytes: int | None, **_: Any) -> "subprocess.CompletedProcess[str]":
    """``subprocess.run`` for kubectl, reading its standard output as it comes and stopping
    it as soon as the output passes ``max_bytes``: a 600 MB answer is refused after
    ``max_bytes``, not held in memory first. Standard error goes to a temporary file
    (so a chatty kubectl cannot block on a full pipe)."""
    import selectors

    deadline = time.monotonic() + timeout
    with tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=err, shell=False)
        chunks: list[bytes] = []
        size = 0
        try:
            assert proc.stdout is not None
            fd = proc.stdout.fileno()
            with selectors.DefaultSelector() as sel:
                sel.register(fd, selectors.EVENT_READ)
                while True:
                    left = deadline - time.monotonic()
                    if left <= 0:
                        raise subprocess.TimeoutExpired(args, timeout)
                    if not sel.select(left):
                        continue
                    chunk = os.read(fd, 1 << 16)
                    if not chunk:
                        break
                    size += len(chunk)
                    if max_bytes is not None and size > max_bytes:
                        raise _TooLarge()
                    chunks.append(chunk)
            code = proc.wait(timeout=max(0.01, deadline - time.monotonic()))
        except BaseException:
            proc.kill()
            proc.wait()
            raise
        finally:
            proc.stdout.close()  # type: ignore[union-attr]
        err.seek(0)
        stderr = err.read(64 * 1024).decode("utf-8", "replace")
    out = b"".join(chunks)
    del chunks
    return subprocess.CompletedProcess(args, code, stdout=out.decode("utf-8"), stderr=stderr)


class _TooLarge(Exception):
    pass


def run_get(args: Sequence[str], *, timeout: float = DEFAULT_TIMEOUT, run: Runner | None = None,
            max_bytes: int | None = None) -> str:
    """Run one ``kubectl get`` and return its standard output (refused once it passes
    ``max_bytes``)."""
    args = list(args)
    if len(args) < 2 or args[1] not in ALLOWED_VERBS:  # defence in depth: never anything but get
        raise KubectlError(f"refusing to run kubectl {args[1:2]}: only 'get' is allowed")
    shown = " ".join(args)
    try:
        if run is None:
            proc = _streamed(args, timeout=timeout, max_bytes=max_bytes)
        else:
            proc = run(args, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL,
                       shell=False, check=False)
    except FileNotFoundError:
        raise KubectlMissing(args[0]) from None
    except PermissionError as exc:
        raise KubectlError(f"cannot run {args[0]}: {exc}") from None
    except UnicodeDecodeError:
        raise KubectlError(f"the output of '{shown}' is not UTF-8 text") from None
    except subprocess.TimeoutExpired:
        raise KubectlError(f"'{shown}' did not finish within {timeout:g} second{'' if timeout == 1 else 's'} "
                           "(is the cluster reachable? raise --kubectl-timeout)") from None
    except _TooLarge:
        raise KubectlError(f"the output of '{shown}' is larger than {max_bytes} bytes "
                           "(raise --max-input-bytes if this is intended)") from None
    except OSError as exc:
        raise KubectlError(f"cannot run {args[0]}: {exc}") from None
    if proc.returncode != 0:
        err = (proc.stderr or "").strip()
        first = failure_line(err, proc.returncode)
        if "forbidden" in err.lower():
            raise Forbidden(f"'{shown}' was refused by the cluster's RBAC: {first} "
                            f"(check with: kubectl auth can-i get {args[2]} -n <namespace>)")
        if _NO_RESOURCE_TYPE in err:
            raise NoSuchResource(f"'{shown}': {first}")
        raise KubectlError(f"'{shown}' failed (exit code {proc.returncode}): {first}")
    return proc.stdout or ""


#: what kubectl says when the cluster does not serve a resource (its CRD is not installed)
_NO_RESOURCE_TYPE = "the server doesn't have a resource type"


class NoSuchResource(KubectlError):
    """The cluster does not serve this resource (the CRD is not installed)."""


def fetch(targets: Sequence[Target], *, prune: bool = False, context: str | None = None,
          timeout: float = DEFAULT_TIMEOUT, kubectl: str = "kubectl", limits: Limits = Limits(),
          run: Runner | None = None, managed_fields: bool = False, kubeconfig: str | None = None) -> list[Obj]:
    """The live objects for ``targets`` (absent ones are simply not returned)."""
    objs: list[Obj] = []
    for args in commands(targets, prune=prune, context=context, kubectl=kubectl, managed_fields=managed_fields,
                         kubeconfig=kubeconfig):
        objs.extend(_parse(args, run_get(args, timeout=timeout, run=run, max_bytes=limits.max_bytes), limits))
    return objs


def _parse(args: Sequence[str], out: str, limits: Limits) -> list[Obj]:
    if len(out) > limits.max_bytes:
        raise KubectlError(f"the output of '{' '.join(args)}' is larger than {limits.max_bytes} bytes "
                           "(raise --max-input-bytes if this is intended)")
    if not out.strip():
        return []
    name = "kubectl " + " ".join(args[1:])
    found, errors, _ = parse_documents(out, name, limits)
    if errors:
        e = errors[0]
        raise KubectlError(f"could not read the output of '{' '.join(args)}': line {e.line}: {e.message}")
    return found


# ----------------------------------------------------------------------------- plan --from-cluster


def _check_options(context: str | None, kubeconfig: str | None) -> None:
    if context is not None and (not context or context.startswith("-")):
        raise KubectlError(f"refusing to pass the context {context!r} to kubectl")
    if kubeconfig is not None and not kubeconfig:
        raise KubectlError("refusing to pass an empty --kubeconfig to kubectl")


def _connection(context: str | None, kubeconfig: str | None) -> list[str]:
    """``--context NAME`` and ``--kubeconfig=PATH`` (one argument: a path that starts with
    ``-`` can never be read as another option)."""
    return (["--context", context] if context else []) + ([f"--kubeconfig={kubeconfig}"] if kubeconfig else [])


_SELECTOR = re.compile(r"^[A-Za-z0-9./_-]+(=[A-Za-z0-9._-]*| in \([A-Za-z0-9._, -]*\))"
                       r"(,[A-Za-z0-9./_-]+(=[A-Za-z0-9._-]*| in \([A-Za-z0-9._, -]*\)))*$")


def live_command(read: LiveRead, namespace: str, *, selector: str | None = None, context: str | None = None,
                 kubeconfig: str | None = None, kubectl: str = "kubectl") -> list[str]:
    """The ``kubectl get`` argument list of one ``LiveRead`` in ``namespace``."""
    _check_options(context, kubeconfig)
    if not _NAMESPACE.fullmatch(namespace) or any(not _NAME.fullmatch(n) for n in read.names):
        raise KubectlError(f"refusing to pass {read.kind} {namespace!r}/{list(read.names)!r} to kubectl: not a valid "
                           "Kubernetes namespace and name")
    sel = read.selector if selector is None else selector
    if sel and not _SELECTOR.fullmatch(sel):
        raise KubectlError(f"refusing to pass the label selector {sel!r} to kubectl")
    args = [kubectl, "get", read.resource, *read.names]
    if read.namespaced:
        args += ["-n", namespace]
    if sel:
        args += ["-l", sel]
    args += ["-o", "yaml"]
    if read.names:
        args.append("--ignore-not-found")
    return args + _connection(context, kubeconfig)


@record
class LiveState:
    """What ``read_live`` found: the objects, and a warning per kind it could not read."""

    objects: list[Obj] = field(default_factory=list)
    warnings: list[Warning] = field(default_factory=list)
    commands: list[list[str]] = field(default_factory=list)


def read_live(reads: Sequence[LiveRead], namespace: str, *, context: str | None = None, kubeconfig: str | None = None,
              timeout: float = DEFAULT_TIMEOUT, kubectl: str = "kubectl", limits: Limits = Limits(),
              run: Runner | None = None) -> LiveState:
    """Run one ``kubectl get`` per read, in order. A kind the cluster does not serve (its
    CRD is not installed) has no objects. A read RBAC refuses fails when it is
    ``required``; otherwise it is a warning naming the kind, and the read's ``assumed``
    objects stand in for it when the target itself exists."""
    state = LiveState()
    forbidden: list[LiveRead] = []
    for read in reads:
        selector = None
        if read.after is not None:
            kind, key = read.after
            owners = sorted({o.name for o in state.objects if o.kind == kind and _NAME.fullmatch(o.name)})
            if not owners:
                continue
            selector = ",".join(filter(None, (read.selector, f"{key} in ({','.join(owners)})")))
        args = live_command(read, namespace, selector=selector, context=context, kubeconfig=kubeconfig,
                            kubectl=kubectl)
        state.commands.append(args)
        try:
            out = run_get(args, timeout=timeout, run=run, max_bytes=limits.max_bytes)
        except NoSuchResource:
            continue
        except Forbidden as exc:
            if read.required:
                raise KubectlError(f"{exc}; rolloutctl needs to read {read.kind} objects to plan this") from None
            forbidden.append(read)
            continue
        state.objects.extend(o for o in _parse(args, out, limits) if o.kind == read.kind)
    target_found = bool(reads) and any(o.kind == reads[0].kind for o in state.objects)
    for read in forbidden:
        where = f"in namespace {namespace}" if read.namespaced else "cluster-wide"
        if read.assumed and target_found:
            state.objects.extend(Obj(dict(raw), f"(assumed: {read.kind} cannot be read)") for raw in read.assumed)
            what = "assumed to be as the operator keeps them"
        else:
            what = "planned without them (give them with --observed FILE)"
        state.warnings.append(Warning("LiveReadForbidden", f"kubectl may not read {read.resource} {where} "
                                      f"(RBAC): {read.kind} objects {what}", read.kind))
    return state
