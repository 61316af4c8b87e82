"""Reading manifests: files, directories, standard input (with the ``--max-input-bytes``
limit and the text encodings YAML allows); each text is split into objects by
``documents.parse_documents``. Problems are returned as ``InputError`` values, never raised.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import BinaryIO, Iterable

from ..core.model import Obj
from ..core.records import field, record
from ..core.goyaml import DocumentError
from ..core.text import UTF8_BOM, one_line  # noqa: F401 - one_line is used by every caller of the loader
from .documents import parse_documents
from .errors import InputError
from .limits import Limits
from .positions import HelmSources, helm_sources

STDIN = "-"
STDIN_NAME = "<stdin>"
SUFFIXES = (".yaml", ".yml", ".json")


@record
class Loaded:
    objects: list[Obj] = field(default_factory=list)
    errors: list[InputError] = field(default_factory=list)
    files: int = 0
    #: the non-empty documents read (a document that is only a comment or null is not counted)
    documents: int = 0
    #: standard input was named and held no document at all
    empty_stdin: bool = False
    #: ``helm template`` output: file -> its ``# Source:`` comments (``helm_sources``)
    sources: dict[str, "HelmSources"] = field(default_factory=dict)


def expand_paths(paths: Iterable[str]) -> tuple[list[str], list[InputError]]:
    """Files named directly, plus ``*.yaml``/``*.yml``/``*.json`` below directories
    (sorted; hidden files and directories skipped; symbolic links to directories
    are not followed, so a link cycle cannot make the walk endless); a file reached twice
    is listed once."""
    out: list[str] = []
    errors: list[InputError] = []
    for p in paths:
        if p == STDIN:
            out.append(p)
            continue
        if os.path.isdir(p):
            found: list[str] = []
            walk_errors: list[OSError] = []
            for root, dirs, files in os.walk(p, onerror=walk_errors.append):
                dirs[:] = [d for d in dirs if not d.startswith(".")]
                for f in files:
                    if f.startswith(".") or not f.lower().endswith(SUFFIXES):
                        continue
                    full = os.path.join(root, f)
                    if os.path.isfile(full):
                        found.append(full)
            for exc in walk_errors:
                errors.append(InputError(exc.filename or p, 0, f"cannot read directory: {exc.strerror or exc}"))
            out.extend(sorted(found, key=lambda s: Path(s).parts))
        elif os.path.exists(p):
            out.append(p)
        elif any(c in p for c in "*?["):
            # a pattern the shell did not expand (quoted in a CI file, or matching nothing);
            # ``glob`` is imported here, on the one path that needs it
            import glob

            hits = sorted(h for h in glob.glob(p, recursive=True)
                          if os.path.isfile(h) and h.lower().endswith(SUFFIXES))
            if hits:
                out.extend(hits)
            else:
                errors.append(InputError(p, 0, "no file matches this pattern"))
        else:
            errors.append(InputError(p, 0, "no such file or directory"))
    # a file named twice (a path and its directory, overlapping patterns) is read once
    seen: set[str] = set()
    unique: list[str] = []
    for f in out:
        key = f if f == STDIN else os.path.realpath(f)
        if key not in seen or f == STDIN:
            seen.add(key)
            unique.append(f)
    return unique, errors


def _read(path: str, limits: Limits, stdin: BinaryIO | None) -> bytes:
    if path == STDIN:
        stream = stdin if stdin is not None else sys.stdin.buffer
        data = stream.read(limits.max_bytes + 1)
    else:
        if os.path.isdir(path):
            raise DocumentError(0, "is a directory")
        with open(path, "rb") as fh:
            data = fh.read(limits.max_bytes + 1)
    if len(data) > limits.max_bytes:
        raise DocumentError(1, f"input is larger than {limits.max_bytes} bytes; raise --max-input-bytes if this is intended")
    return data


_BOMS = ((b"\x00\x00\xfe\xff", "utf-32-be"), (b"\xff\xfe\x00\x00", "utf-32-le"),
         (b"\xfe\xff", "utf-16-be"), (b"\xff\xfe", "utf-16-le"))


def _decode(data: bytes) -> str:
    """UTF-8 (with or without a BOM); UTF-16/32 when they carry a BOM, as YAML allows
    (Windows PowerShell 5 writes ``kubectl get -o yaml > f`` as UTF-16)."""
    for bom, codec in _BOMS:
        if data.startswith(bom):
            try:
                return data[len(bom):].decode(codec)
            except UnicodeDecodeError as exc:
                raise DocumentError(1, f"not valid {codec.upper()} text (at byte {exc.start + len(bom)})") from None
    bom = len(UTF8_BOM) if data.startswith(UTF8_BOM) else 0
    try:
        return data[bom:].decode("utf-8")  # (not the utf-8-sig codec: its module is an import of its own)
    except UnicodeDecodeError as exc:
        at = exc.start + bom
        line = data[:at].count(b"\n") + 1
        raise DocumentError(line, f"not UTF-8 text (byte 0x{data[at]:02x} at offset {at})") from None


def load_paths(paths: Iterable[str], limits: Limits = Limits(), stdin: BinaryIO | None = None, *,
               skip_non_objects: bool = False) -> Loaded:
    """Load every object from ``paths``. Errors are collected, not raised.
    ``skip_non_objects``: see ``parse_documents`` (``lint`` of whatever files a
    repository holds)."""
    result = Loaded()
    files, errs = expand_paths(paths)
    result.errors.extend(errs)
    stdin_used = False
    for f in files:
        name = STDIN_NAME if f == STDIN else f
        if f == STDIN:
            if stdin_used:
                continue
            stdin_used = True
        result.files += 1
        try:
            text = _decode(_read(f, limits, stdin))
        except DocumentError as fail:
            result.errors.append(InputError(name, fail.line, fail.message))
            continue
        except OSError as exc:
            result.errors.append(InputError(name, 0, f"cannot read: {exc.strerror or exc}"))
            continue
        objs, errors, ndocs = parse_documents(text, name, limits, skip_non_objects=skip_non_objects)
        if f == STDIN and ndocs == 0 and not errors:
            result.empty_stdin = True
        src = helm_sources(text)
        if src is not None:
            result.sources[name] = src
        result.objects.extend(objs)
        result.errors.extend(errors)
        result.documents += ndocs
    return result
