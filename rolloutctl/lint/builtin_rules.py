"""The rules of rolloutctl itself, as data: the input, schema, pod, configuration and
suppression rules (IN, SC, CF, SP), each ``(id, name, severity, scope, doc)`` with its
documentation in ``lint.registry``'s sections (summary, description, Upstream, Bad, Good,
Remediation). ``lint.registry`` builds the ``Rule``s from this table and the kinds' rules;
the checks themselves live where the input is read (``load``, ``admit``, ``lint.pods``,
``lint.engine``)."""

from __future__ import annotations

BUILTIN: list[tuple[str, str, str, str, str]] = [
    ("IN001", "input-unreadable", "error", "input", """A file cannot be read or a document cannot be parsed.

    The file is not valid YAML or JSON, is not UTF-8, has duplicate keys, or a
    document is not a Kubernetes object (no apiVersion, kind or metadata.name).
    ``lint`` reports it and exits 2, after checking every other document.

    Upstream: rolloutctl (the API server rejects such a request before any validation)

    Bad:
        metadata:
          name: svc
          name: svc2

    Good:
        metadata:
          name: svc

    Remediation: Fix the YAML syntax or the object at the reported line.
    """),
    ("IN002", "kind-not-modelled", "error", "input", """The object is of a kind rolloutctl does not check.

    Reported only with ``--strict``; without it, such objects are counted and skipped.
    rolloutctl checks ``ray.io/v1`` RayService and ``grove.io/v1alpha1`` PodCliqueSet.

    Upstream: rolloutctl

    Bad:
        apiVersion: v1
        kind: ConfigMap

    Good:
        apiVersion: ray.io/v1
        kind: RayService

    Remediation: Leave such files out of the lint run, or run without --strict.
    """),
    ("SC001", "unknown-field", "error", "schema", """The object has a field the schema does not define.

    The API server rejects unknown fields (strict field validation) or drops them
    silently; either way the setting has no effect. A close known name is suggested.
    A manifest of an older served version is decoded with that version's schema:
    a field only a newer version has (``upgradeStrategy`` in a ``ray.io/v1alpha1``
    RayService) is unknown there, and the message names the version that has it.

    Upstream: CRD openAPIV3Schema (ray.io_rayservices.yaml, grove.io_podcliquesets.yaml); apiserver strict field validation

    Bad:
        spec:
          rayClusterConfig:
            workerGroupSpec: []

    Good:
        spec:
          rayClusterConfig:
            workerGroupSpecs: []

    Remediation: Fix the spelling (see the suggestion) or remove the field.
    """),
    ("SC002", "required-field", "error", "schema", """A field the schema requires is missing.

    Upstream: CRD openAPIV3Schema (required lists)

    Bad:
        cliques:
        - name: frontend
          spec: {roleName: frontend, replicas: 1, podSpec: {}}

    Good:
        cliques:
        - name: frontend
          spec: {roleName: frontend, replicas: 1, podSpec: {containers: [{name: f, image: nginx}]}}

    Remediation: Add the missing field.
    """),
    ("SC003", "wrong-type", "error", "schema", """A field has the wrong type.

    Upstream: CRD openAPIV3Schema (type, x-kubernetes-int-or-string)

    Bad:
        spec:
          replicas: "3"

    Good:
        spec:
          replicas: 3

    Remediation: Use the type the schema expects (quote strings, not numbers).
    """),
    ("SC004", "bad-value", "error", "schema", """A field's value is outside what the schema allows.

    Enumerations, minimums, lengths and patterns of the CRD.

    Upstream: CRD openAPIV3Schema (enum, minimum, maxLength, pattern; CEL rules of managedBy)

    Bad:
        spec:
          template:
            cliqueStartupType: InOrder

    Good:
        spec:
          template:
            cliqueStartupType: CliqueStartupTypeInOrder

    Remediation: Use one of the allowed values.
    """),
    ("SC005", "unserved-version", "error", "schema", """The object names a kind rolloutctl checks under an API version its CRD does not serve.

    Upstream: CRD spec.versions (RayService: ray.io/v1, and ray.io/v1alpha1 deprecated; PodCliqueSet: grove.io/v1alpha1)

    Bad:
        apiVersion: ray.io/v2
        kind: RayService

    Good:
        apiVersion: ray.io/v1
        kind: RayService

    Remediation: Convert the object to the checked version.
    """),
    ("SC006", "pod-resources", "error", "schema", """A pod template asks for resources Kubernetes refuses.

    The CRDs accept any quantity, so the manifest is stored; the pods the operator
    creates from it are refused, and the rollout never starts. Negative quantities,
    fractional or limit-less extended resources (``nvidia.com/gpu``), an extended
    resource whose request differs from its limit, and requests above limits.

    Upstream: k8s.io/kubernetes pkg/apis/core/validation/validation.go#ValidateResourceRequirements

    Bad:
        resources:
          requests: {nvidia.com/gpu: "0.5"}

    Good:
        resources:
          requests: {nvidia.com/gpu: "1"}
          limits: {nvidia.com/gpu: "1"}

    Remediation: Request whole GPUs with equal requests and limits, and non-negative quantities.
    """),
    ("SC015", "container-image", "error", "schema", """A container of a pod template has no image, or one Kubernetes refuses.

    The CRDs accept a container without an image, so the manifest is stored; the API
    server requires an image in every container of a Pod (and one without leading or
    trailing whitespace), so the pods the operator creates are refused and the rollout
    never starts. A Helm value left unset (``image: {{ .Values.image }}`` rendered empty)
    is the usual cause.

    Upstream: k8s.io/kubernetes pkg/apis/core/validation/validation.go#validateContainerCommon, #validateContainersOnlyForPod

    Bad:
        containers:
          - name: ray-head
            image: ""

    Good:
        containers:
          - name: ray-head
            image: rayproject/ray:2.52.0

    Remediation: Set the image (check the values the template renders with).
    """),
    ("SC016", "containers-required", "error", "schema", """A pod template has no containers.

    The CRDs (and Grove's webhook) accept ``containers: []``, so the manifest is stored;
    the API server requires at least one container in a Pod, so the pods the operator
    creates are refused and the rollout never starts. KubeRay refuses a group without
    containers itself first (RS005, RS008), so a RayService reports that instead.

    Upstream: k8s.io/kubernetes pkg/apis/core/validation/validation.go#validateContainers

    Bad:
        podSpec:
          containers: []

    Good:
        podSpec:
          containers:
            - name: main
              image: nginx:1.27

    Remediation: Give the template a container (check the values the template renders with).
    """),
    ("SC017", "container-name", "error", "schema", """A container's name is not a DNS-1123 label.

    The CRDs and the operators' webhooks accept any container name, so the manifest is
    stored; the API server requires every container and init container of a Pod to be
    named with a DNS-1123 label (lower-case alphanumerics and '-', starting and ending
    with an alphanumeric, at most 63 characters), so the pods the operator creates are
    refused and the rollout never starts.

    Upstream: k8s.io/kubernetes pkg/apis/core/validation/validation.go#validateContainerCommon

    Bad:
        containers:
          - name: Model_Leader

    Good:
        containers:
          - name: model-leader

    Remediation: Rename the container: lower case, '-' instead of '_'.
    """),
    ("SC018", "duplicate-container-name", "error", "schema", """Two containers of a pod template share a name.

    The CRDs and the operators' webhooks accept it, so the manifest is stored; the API
    server requires container names to be unique across a Pod's containers and init
    containers, so the pods the operator creates are refused and the rollout never
    starts.

    Upstream: k8s.io/kubernetes pkg/apis/core/validation/validation.go#validateContainers, #validateInitContainers

    Bad:
        initContainers:
          - name: main
        containers:
          - name: main

    Good:
        initContainers:
          - name: setup
        containers:
          - name: main

    The containers the operator adds count too: Grove adds the init container
    ``grove-initc`` to the Pods of a clique that starts after others (startsAfter,
    CliqueStartupTypeInOrder), KubeRay the ``autoscaler`` sidecar to the head Pod with
    enableInTreeAutoscaling, the ``wait-gcs-ready`` init container to every worker Pod
    (unless the operator runs with ENABLE_INIT_CONTAINER_INJECTION=false: ``--kuberay-env``),
    and with their feature gates the ``wait-for-tls-ip-san`` init container (RayClusterMTLS,
    tlsOptions.enabled) and the ``ray-history-collector`` container (RayClusterHistoryServer,
    historyServerOptions.collectorOptions) to every Pod.

    Remediation: Give each container and init container its own name.
    """),
    ("SC019", "duplicate-volume-name", "error", "schema", """A volume of a pod template has the name of a volume the operator adds to its Pods.

    The CRDs and the operators' webhooks accept it, so the manifest is stored; the API
    server requires a Pod's volume names to be unique, so the pods the operator creates
    are refused and the rollout never starts. Grove adds the volumes
    ``sa-token-secret-vol`` and ``pod-info-vol`` (for its ``grove-initc`` init container)
    to the Pods of a clique that starts after others (startsAfter,
    CliqueStartupTypeInOrder). (Two of the template's own volumes with one name are
    refused with the manifest: SC014.)

    Upstream: k8s.io/kubernetes pkg/apis/core/validation/validation.go#ValidateVolumes; grove operator/internal/controller/podclique/components/pod/initcontainer.go#configurePodInitContainer

    Bad:
        cliqueStartupType: CliqueStartupTypeInOrder
        cliques: [{name: leader, ...}, {name: worker, spec: {podSpec: {volumes: [{name: pod-info-vol, emptyDir: {}}]}}}]

    Good:
        cliqueStartupType: CliqueStartupTypeInOrder
        cliques: [{name: leader, ...}, {name: worker, spec: {podSpec: {volumes: [{name: info, emptyDir: {}}]}}}]

    Remediation: Rename the volume: the operator's names are its own.
    """),
    ("SC007", "generate-name", "error", "schema", """``metadata.generateName`` must be a name prefix the API server accepts.

    An object with ``generateName`` and no ``name`` is named by the API server on
    create: the prefix, cut to 58 characters, plus 5 random characters. The prefix
    is validated as a DNS subdomain that may end in ``-``; the generated name is then
    checked by every other rule (shown with ``xxxxx`` for its random part). Such an
    object is new on every create: ``kubectl apply`` refuses it, ``kubectl create``
    takes it, and ``diff``/``plan`` always treat it as a new object.

    Upstream: kubernetes k8s.io/apimachinery pkg/api/validation/objectmeta.go#ValidateObjectMetaAccessor; k8s.io/apiserver pkg/registry/rest/create.go#BeforeCreate, pkg/storage/names/generate.go#GenerateName

    Bad:
        metadata:
          generateName: Canary_

    Good:
        metadata:
          generateName: canary-

    Remediation: Use lower-case letters, digits, '-' and '.', starting with a letter or digit.
    """),
    ("CF001", "ignore-expired", "warning", "config", """An ``ignore:`` entry of ``.rolloutctl.yaml`` has passed its ``expires:`` date.

    The entry no longer applies: what it silenced is reported again, and this
    warning points at the entry so that it is renewed (with a new reason) or removed.

    Upstream: rolloutctl

    Bad:
        ignore:
          - {rule: GV201, reason: until the operator ships RollingUpdate, expires: 2020-01-31}

    Good:
        ignore:
          - {rule: GV201, reason: until the operator ships RollingUpdate, expires: 2027-01-31}

    Remediation: Fix what the entry silenced, or renew the entry with a new date and reason.
    """),
    ("SC008", "deprecated-version", "warning", "schema", """The object uses a served but deprecated API version.

    The API server accepts it with the CRD's ``deprecationWarning`` and stores it in
    the storage version (the CRDs convert with ``strategy: None``: only
    ``apiVersion`` changes), so the models read it as that version. A version may
    stop being served in a later release.

    Upstream: CRD spec.versions[].deprecated / deprecationWarning (ray.io_rayservices.yaml: v1alpha1); k8s.io/apiextensions-apiserver pkg/apiserver/customresource_handler.go (deprecation warning)

    Bad:
        apiVersion: ray.io/v1alpha1
        kind: RayService

    Good:
        apiVersion: ray.io/v1
        kind: RayService

    Remediation: Change apiVersion to the storage version.
    """),
    ("SC009", "duplicate-object", "error", "input", """The input holds two copies of one object.

    Two documents with the same API group, kind, namespace (after defaulting) and
    name: ``kubectl apply`` applies both, the second overwrites the first, and which
    one the operator acts on depends on the order. ``plan`` and ``diff`` refuse the
    input (exit 2) with the same message.

    Upstream: kubectl apply (one object per group, kind, namespace and name)

    Bad:
        metadata: {name: svc}
        ---
        metadata: {name: svc, namespace: default}

    Good:
        metadata: {name: svc}

    Remediation: Remove one copy, or give them different names or namespaces.
    """),
    ("SC010", "object-meta", "error", "schema", """The object's metadata breaks the API server's ObjectMeta rules.

    The name must be a DNS subdomain (at most 253 characters), the namespace a DNS
    label; label keys are qualified names (an optional DNS-subdomain prefix and
    ``/``, then at most 63 characters), label values at most 63 characters of
    letters, digits, ``-``, ``_`` and ``.``; annotation keys are qualified names
    and all annotations together at most 256 KiB.

    Upstream: k8s.io/apimachinery pkg/api/validation/objectmeta.go#ValidateObjectMetaAccessor, pkg/apis/meta/v1/validation/validation.go#ValidateLabels, pkg/util/validation/validation.go#IsQualifiedName

    Bad:
        metadata:
          labels:
            team: "a value that is far too long for a Kubernetes label value, over 63 characters"

    Good:
        metadata:
          labels:
            team: inference

    Remediation: Shorten or fix the key or value; long text belongs in an annotation.
    """),
    ("SC011", "cel-rule", "error", "schema", """A CEL validation rule of the CRD (``x-kubernetes-validations``) is false.

    The API server evaluates every CEL rule a CRD schema carries, with ``self``
    bound to the field that carries it (transition rules, which name ``oldSelf``,
    only on update), and refuses the object with the rule's message.

    Upstream: k8s.io/apiextensions-apiserver pkg/apiserver/schema/cel/validation.go#Validate

    Bad:
        # grove.io PodCliqueSet: has(self.pack) || has(self.packDomain)
        topologyConstraint: {topologyName: racks}

    Good:
        topologyConstraint: {topologyName: racks, pack: {required: rack}}

    Remediation: Change the field so that the rule holds; the message says what it requires.
    """),
    ("SC012", "cel-rule-not-evaluated", "warning", "schema", """A CEL validation rule of the CRD could not be evaluated here.

    The rule uses a Kubernetes CEL extension (quantity, regex, URL or optional
    functions) the evaluator does not implement. It is reported, never passed
    silently: the API server may still refuse the object.

    Upstream: k8s.io/apiserver pkg/cel/library

    Bad:
        # a rule such as quantity(self.memory).isGreaterThan(quantity('1Gi'))

    Good:
        # rules in standard CEL are evaluated

    Remediation: Check the object against a cluster (``kubectl apply --dry-run=server``).
    """),
    ("SC013", "duplicate-across-files", "warning", "input", """Two files define the same object.

    Two documents in different files with the same API group, kind, namespace (after
    defaulting) and name. A repository often keeps variants of one object (samples,
    per-environment files) that are never applied together, so ``lint`` warns; given
    together to ``plan`` or ``diff`` they are one input and are refused (exit 2) as
    ``SC009``. In one file they are always ``SC009``.

    Upstream: kubectl apply (one object per group, kind, namespace and name)

    Bad:
        # a.yaml
        metadata: {name: svc}
        # b.yaml
        metadata: {name: svc, namespace: default}

    Good:
        # b.yaml
        metadata: {name: svc-canary}

    Remediation: Give the variants different names or namespaces, or lint them in separate runs.
    """),
    ("SC014", "duplicate-list-item", "error", "schema", """Two items of a keyed list share their key.

    The CRD declares the list ``x-kubernetes-list-type: map`` (items keyed by
    ``x-kubernetes-list-map-keys``) or ``set``: env vars by name, container ports by
    containerPort and protocol, volumes, containers, Grove's cliques. The API server
    refuses an object with two items of one key (``Duplicate value``). Pods accept
    repeated env names; the CRD does not. On an update it checks this only when the
    stored object has no such repeat itself.

    Upstream: k8s.io/apiextensions-apiserver pkg/apiserver/schema/listtype/validation.go#ValidateListSetsAndMaps

    Bad:
        env:
        - {name: LOG_LEVEL, value: info}
        - {name: LOG_LEVEL, value: debug}

    Good:
        env:
        - {name: LOG_LEVEL, value: debug}

    Remediation: Keep one item per key (the last one is what a Pod would have used).
    """),
    ("SP001", "suppression-needs-reason", "error", "suppression", """A ``rolloutctl.dev/ignore`` annotation entry has no reason.

    Each entry reads ``ID: reason`` (several IDs may share a reason: ``ID1,ID2: reason``;
    entries are separated by ``;`` or new lines). Without a reason the entry is
    refused and suppresses nothing.

    Upstream: rolloutctl

    Bad:
        metadata:
          annotations:
            rolloutctl.dev/ignore: "GV301"

    Good:
        metadata:
          annotations:
            rolloutctl.dev/ignore: "GV301: worker template reuse is intended"

    Remediation: Add a reason after the rule ID.
    """),
    ("SP002", "suppression-unknown-rule", "warning", "suppression", """A ``rolloutctl.dev/ignore`` annotation names a rule that does not exist.

    Upstream: rolloutctl

    Bad:
        rolloutctl.dev/ignore: "GV999: typo"

    Good:
        rolloutctl.dev/ignore: "GV301: intended"

    Remediation: Use an ID from `rolloutctl rules`.
    """),
]

#: who refuses what a built-in rule finds, where the scope does not say it
BUILTIN_ENFORCER = {"SC006": "pods", "SC015": "pods", "SC016": "pods", "SC017": "pods", "SC018": "pods", "SC019": "pods", "SC009": "rolloutctl", "SC013": "rolloutctl", "CF001": "rolloutctl", "SP001": "rolloutctl", "SP002": "rolloutctl"}
