"""Objects with ``metadata.generateName`` and no ``metadata.name``: the API server names
them on create, so every create makes a new object.

Upstream (kubernetes, k8s.io/apiserver):

- ``pkg/registry/rest/create.go`` ``BeforeCreate``: when ``generateName`` is set and
  ``name`` is empty, the name becomes ``strategy.GenerateName(generateName)`` before
  validation; a given ``name`` wins over ``generateName``.
- ``pkg/storage/names/generate.go`` ``simpleNameGenerator.GenerateName``: the prefix is
  cut to 58 characters (63 minus the 5 random ones) and 5 random characters from
  ``bcdfghjklmnpqrstvwxz2456789`` are appended.
- k8s.io/apimachinery ``pkg/api/validation/objectmeta.go`` ``ValidateObjectMetaAccessor``:
  ``generateName`` is validated with the kind's name rule in prefix mode (custom
  resources: ``NameIsDNSSubdomain``, where ``maskTrailingDash`` lets the prefix end
  in ``-``); the generated name is then validated as any name.
- kubectl ``apply`` refuses such objects ("cannot use generate name with apply");
  ``kubectl create`` accepts them.
"""

from __future__ import annotations


from .k8s_syntax import is_dns1123_subdomain
from .model import Obj

MAX_PREFIX = 58
RANDOM_LENGTH = 5
#: stands for the 5 random characters in names rolloutctl shows (all are in the generator's alphabet)
PLACEHOLDER = "xxxxx"



def generate_name(obj: Obj) -> str | None:
    """The ``generateName`` the API server will use, or None (no generateName, or a name is set)."""
    gen = obj.metadata.get("generateName")
    if obj.name or not isinstance(gen, str) or not gen:
        return None
    return gen


def generated_name(prefix: str) -> str:
    """The name the API server makes of ``prefix``, with ``PLACEHOLDER`` for its random part."""
    return prefix[:MAX_PREFIX] + PLACEHOLDER


def prefix_problems(prefix: str) -> list[str]:
    """``NameIsDNSSubdomain(prefix, true)``: the messages the API server gives for a bad prefix."""
    masked = prefix[:-1] + "a" if prefix.endswith("-") else prefix
    return is_dns1123_subdomain(masked)


def is_generated(obj: Obj) -> bool:
    """Whether ``obj`` carries a name ``with_generated_name`` gave it."""
    gen = obj.metadata.get("generateName")
    return isinstance(gen, str) and bool(gen) and obj.name == generated_name(gen)


def with_generated_name(obj: Obj) -> Obj:
    """``obj`` as the API server would store it after naming it (placeholder suffix);
    objects without generateName are returned as they are."""
    prefix = generate_name(obj)
    if prefix is None:
        return obj
    raw = dict(obj.raw)
    raw["metadata"] = {**obj.metadata, "name": generated_name(prefix)}
    return Obj(raw, obj.file, obj.line, obj.lines, obj.cols)


def always_new_message(obj: Obj, prefix: str) -> str:
    return (f"metadata.generateName {prefix!r}: the API server names this {obj.kind} on every create "
            f"({generated_name(prefix)}, the last {RANDOM_LENGTH} characters random), so applying it always creates a "
            "new object next to the existing ones; use kubectl create (kubectl apply refuses generateName)")
