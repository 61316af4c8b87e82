"""The Go types of the Kubernetes API objects the operators decode (k8s.io/api
v0.36.0 ``core/v1/types.go`` and ``networking/v1/types.go``, k8s.io/apimachinery v0.36.0
``pkg/apis/meta/v1/types.go``), as data: for every struct reachable from ``PodTemplateSpec``
and the operators' own types, each JSON field's Go kind.
``core/go_values.py`` reads it.

A field is one of:

- ``s``: a plain value (``string``, ``bool``, an integer, or a type Go encodes as one:
  ``resource.Quantity``, ``intstr.IntOrString``, ``metav1.Time``);
- ``p:T``: a pointer to ``T``;
- ``l:T``: a slice of ``T``;
- ``m:T``: a map of string to ``T``;
- a struct's name: a plain (non-pointer) struct.

A trailing ``!`` marks a field without ``omitempty``. Inline (embedded) structs are
merged into the struct that embeds them (``Volume`` holds ``VolumeSource``'s fields,
``Probe`` ``ProbeHandler``'s). Fields marked ``json:"-"`` are left out.

KubeRay pins k8s.io/api v0.36.0; Grove pins v0.35.5, whose ``PodSpec`` has ``workloadRef``
and no ``schedulingGroup``. A field the tables do not know is taken as written, and the
CRDs prune the fields their own version does not have, so one table serves both.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

K8S_GO_TYPES: Mapping[str, Mapping[str, str]] = MappingProxyType({
    "corev1.AWSElasticBlockStoreVolumeSource": {"fsType": "s", "partition": "s", "readOnly": "s", "volumeID": "s!"},
    "corev1.Affinity": {
        "nodeAffinity": "p:corev1.NodeAffinity", "podAffinity": "p:corev1.PodAffinity",
        "podAntiAffinity": "p:corev1.PodAntiAffinity",
    },
    "corev1.AppArmorProfile": {"localhostProfile": "p:s", "type": "s!"},
    "corev1.AzureDiskVolumeSource": {
        "cachingMode": "p:s", "diskName": "s!", "diskURI": "s!", "fsType": "p:s", "kind": "p:s", "readOnly": "p:s",
    },
    "corev1.AzureFileVolumeSource": {"readOnly": "s", "secretName": "s!", "shareName": "s!"},
    "corev1.CSIVolumeSource": {
        "driver": "s!", "fsType": "p:s", "nodePublishSecretRef": "p:corev1.LocalObjectReference", "readOnly": "p:s",
        "volumeAttributes": "m:s",
    },
    "corev1.Capabilities": {"add": "l:s", "drop": "l:s"},
    "corev1.CephFSVolumeSource": {
        "monitors": "l:s!", "path": "s", "readOnly": "s", "secretFile": "s",
        "secretRef": "p:corev1.LocalObjectReference", "user": "s",
    },
    "corev1.CinderVolumeSource": {
        "fsType": "s", "readOnly": "s", "secretRef": "p:corev1.LocalObjectReference", "volumeID": "s!",
    },
    "corev1.ClientIPConfig": {"timeoutSeconds": "p:s"},
    "corev1.ClusterTrustBundleProjection": {
        "labelSelector": "p:metav1.LabelSelector", "name": "p:s", "optional": "p:s", "path": "s!",
        "signerName": "p:s",
    },
    "corev1.ConfigMapEnvSource": {"name": "s", "optional": "p:s"},
    "corev1.ConfigMapKeySelector": {"key": "s!", "name": "s", "optional": "p:s"},
    "corev1.ConfigMapProjection": {"items": "l:corev1.KeyToPath", "name": "s", "optional": "p:s"},
    "corev1.ConfigMapVolumeSource": {
        "defaultMode": "p:s", "items": "l:corev1.KeyToPath", "name": "s", "optional": "p:s",
    },
    "corev1.Container": {
        "args": "l:s", "command": "l:s", "env": "l:corev1.EnvVar", "envFrom": "l:corev1.EnvFromSource", "image": "s",
        "imagePullPolicy": "s", "lifecycle": "p:corev1.Lifecycle", "livenessProbe": "p:corev1.Probe", "name": "s!",
        "ports": "l:corev1.ContainerPort", "readinessProbe": "p:corev1.Probe",
        "resizePolicy": "l:corev1.ContainerResizePolicy", "resources": "corev1.ResourceRequirements",
        "restartPolicy": "p:s", "restartPolicyRules": "l:corev1.ContainerRestartRule",
        "securityContext": "p:corev1.SecurityContext", "startupProbe": "p:corev1.Probe", "stdin": "s",
        "stdinOnce": "s", "terminationMessagePath": "s", "terminationMessagePolicy": "s", "tty": "s",
        "volumeDevices": "l:corev1.VolumeDevice", "volumeMounts": "l:corev1.VolumeMount", "workingDir": "s",
    },
    "corev1.ContainerPort": {"containerPort": "s!", "hostIP": "s", "hostPort": "s", "name": "s", "protocol": "s"},
    "corev1.ContainerResizePolicy": {"resourceName": "s!", "restartPolicy": "s!"},
    "corev1.ContainerRestartRule": {"action": "s", "exitCodes": "p:corev1.ContainerRestartRuleOnExitCodes"},
    "corev1.ContainerRestartRuleOnExitCodes": {"operator": "s", "values": "l:s"},
    "corev1.DownwardAPIProjection": {"items": "l:corev1.DownwardAPIVolumeFile"},
    "corev1.DownwardAPIVolumeFile": {
        "fieldRef": "p:corev1.ObjectFieldSelector", "mode": "p:s", "path": "s!",
        "resourceFieldRef": "p:corev1.ResourceFieldSelector",
    },
    "corev1.DownwardAPIVolumeSource": {"defaultMode": "p:s", "items": "l:corev1.DownwardAPIVolumeFile"},
    "corev1.EmptyDirVolumeSource": {"medium": "s", "sizeLimit": "p:s"},
    "corev1.EnvFromSource": {
        "configMapRef": "p:corev1.ConfigMapEnvSource", "prefix": "s", "secretRef": "p:corev1.SecretEnvSource",
    },
    "corev1.EnvVar": {"name": "s!", "value": "s", "valueFrom": "p:corev1.EnvVarSource"},
    "corev1.EnvVarSource": {
        "configMapKeyRef": "p:corev1.ConfigMapKeySelector", "fieldRef": "p:corev1.ObjectFieldSelector",
        "fileKeyRef": "p:corev1.FileKeySelector", "resourceFieldRef": "p:corev1.ResourceFieldSelector",
        "secretKeyRef": "p:corev1.SecretKeySelector",
    },
    "corev1.EphemeralContainer": {
        "args": "l:s", "command": "l:s", "env": "l:corev1.EnvVar", "envFrom": "l:corev1.EnvFromSource", "image": "s",
        "imagePullPolicy": "s", "lifecycle": "p:corev1.Lifecycle", "livenessProbe": "p:corev1.Probe", "name": "s!",
        "ports": "l:corev1.ContainerPort", "readinessProbe": "p:corev1.Probe",
        "resizePolicy": "l:corev1.ContainerResizePolicy", "resources": "corev1.ResourceRequirements",
        "restartPolicy": "p:s", "restartPolicyRules": "l:corev1.ContainerRestartRule",
        "securityContext": "p:corev1.SecurityContext", "startupProbe": "p:corev1.Probe", "stdin": "s",
        "stdinOnce": "s", "targetContainerName": "s", "terminationMessagePath": "s", "terminationMessagePolicy": "s",
        "tty": "s", "volumeDevices": "l:corev1.VolumeDevice", "volumeMounts": "l:corev1.VolumeMount",
        "workingDir": "s",
    },
    "corev1.EphemeralVolumeSource": {"volumeClaimTemplate": "p:corev1.PersistentVolumeClaimTemplate"},
    "corev1.ExecAction": {"command": "l:s"},
    "corev1.FCVolumeSource": {"fsType": "s", "lun": "p:s", "readOnly": "s", "targetWWNs": "l:s", "wwids": "l:s"},
    "corev1.FileKeySelector": {"key": "s!", "optional": "p:s", "path": "s!", "volumeName": "s!"},
    "corev1.FlexVolumeSource": {
        "driver": "s!", "fsType": "s", "options": "m:s", "readOnly": "s",
        "secretRef": "p:corev1.LocalObjectReference",
    },
    "corev1.FlockerVolumeSource": {"datasetName": "s", "datasetUUID": "s"},
    "corev1.GCEPersistentDiskVolumeSource": {"fsType": "s", "partition": "s", "pdName": "s!", "readOnly": "s"},
    "corev1.GRPCAction": {"port": "s!", "service": "p:s!"},
    "corev1.GitRepoVolumeSource": {"directory": "s", "repository": "s!", "revision": "s"},
    "corev1.GlusterfsVolumeSource": {"endpoints": "s!", "path": "s!", "readOnly": "s"},
    "corev1.HTTPGetAction": {
        "host": "s", "httpHeaders": "l:corev1.HTTPHeader", "path": "s", "port": "s!", "scheme": "s",
    },
    "corev1.HTTPHeader": {"name": "s!", "value": "s!"},
    "corev1.HostAlias": {"hostnames": "l:s", "ip": "s!"},
    "corev1.HostPathVolumeSource": {"path": "s!", "type": "p:s"},
    "corev1.ISCSIVolumeSource": {
        "chapAuthDiscovery": "s", "chapAuthSession": "s", "fsType": "s", "initiatorName": "p:s", "iqn": "s!",
        "iscsiInterface": "s", "lun": "s!", "portals": "l:s", "readOnly": "s",
        "secretRef": "p:corev1.LocalObjectReference", "targetPortal": "s!",
    },
    "corev1.ImageVolumeSource": {"pullPolicy": "s", "reference": "s"},
    "corev1.KeyToPath": {"key": "s!", "mode": "p:s", "path": "s!"},
    "corev1.Lifecycle": {
        "postStart": "p:corev1.LifecycleHandler", "preStop": "p:corev1.LifecycleHandler", "stopSignal": "p:s",
    },
    "corev1.LifecycleHandler": {
        "exec": "p:corev1.ExecAction", "httpGet": "p:corev1.HTTPGetAction", "sleep": "p:corev1.SleepAction",
        "tcpSocket": "p:corev1.TCPSocketAction",
    },
    "corev1.LoadBalancerIngress": {"hostname": "s", "ip": "s", "ipMode": "p:s", "ports": "l:corev1.PortStatus"},
    "corev1.LoadBalancerStatus": {"ingress": "l:corev1.LoadBalancerIngress"},
    "corev1.LocalObjectReference": {"name": "s"},
    "corev1.NFSVolumeSource": {"path": "s!", "readOnly": "s", "server": "s!"},
    "corev1.NodeAffinity": {
        "preferredDuringSchedulingIgnoredDuringExecution": "l:corev1.PreferredSchedulingTerm",
        "requiredDuringSchedulingIgnoredDuringExecution": "p:corev1.NodeSelector",
    },
    "corev1.NodeSelector": {"nodeSelectorTerms": "l:corev1.NodeSelectorTerm!"},
    "corev1.NodeSelectorRequirement": {"key": "s!", "operator": "s!", "values": "l:s"},
    "corev1.NodeSelectorTerm": {
        "matchExpressions": "l:corev1.NodeSelectorRequirement", "matchFields": "l:corev1.NodeSelectorRequirement",
    },
    "corev1.ObjectFieldSelector": {"apiVersion": "s", "fieldPath": "s!"},
    "corev1.PersistentVolumeClaimSpec": {
        "accessModes": "l:s", "dataSource": "p:corev1.TypedLocalObjectReference",
        "dataSourceRef": "p:corev1.TypedObjectReference", "resources": "corev1.VolumeResourceRequirements",
        "selector": "p:metav1.LabelSelector", "storageClassName": "p:s", "volumeAttributesClassName": "p:s",
        "volumeMode": "p:s", "volumeName": "s",
    },
    "corev1.PersistentVolumeClaimTemplate": {
        "metadata": "metav1.ObjectMeta", "spec": "corev1.PersistentVolumeClaimSpec!",
    },
    "corev1.PersistentVolumeClaimVolumeSource": {"claimName": "s!", "readOnly": "s"},
    "corev1.PhotonPersistentDiskVolumeSource": {"fsType": "s", "pdID": "s!"},
    "corev1.PodAffinity": {
        "preferredDuringSchedulingIgnoredDuringExecution": "l:corev1.WeightedPodAffinityTerm",
        "requiredDuringSchedulingIgnoredDuringExecution": "l:corev1.PodAffinityTerm",
    },
    "corev1.PodAffinityTerm": {
        "labelSelector": "p:metav1.LabelSelector", "matchLabelKeys": "l:s", "mismatchLabelKeys": "l:s",
        "namespaceSelector": "p:metav1.LabelSelector", "namespaces": "l:s", "topologyKey": "s!",
    },
    "corev1.PodAntiAffinity": {
        "preferredDuringSchedulingIgnoredDuringExecution": "l:corev1.WeightedPodAffinityTerm",
        "requiredDuringSchedulingIgnoredDuringExecution": "l:corev1.PodAffinityTerm",
    },
    "corev1.PodCertificateProjection": {
        "certificateChainPath": "s", "credentialBundlePath": "s", "keyPath": "s", "keyType": "s",
        "maxExpirationSeconds": "p:s", "signerName": "s", "userAnnotations": "m:s",
    },
    "corev1.PodDNSConfig": {"nameservers": "l:s", "options": "l:corev1.PodDNSConfigOption", "searches": "l:s"},
    "corev1.PodDNSConfigOption": {"name": "s", "value": "p:s"},
    "corev1.PodOS": {"name": "s!"},
    "corev1.PodReadinessGate": {"conditionType": "s!"},
    "corev1.PodResourceClaim": {"name": "s!", "resourceClaimName": "p:s", "resourceClaimTemplateName": "p:s"},
    "corev1.PodSchedulingGate": {"name": "s!"},
    "corev1.PodSchedulingGroup": {"podGroupName": "p:s"},
    "corev1.PodSecurityContext": {
        "appArmorProfile": "p:corev1.AppArmorProfile", "fsGroup": "p:s", "fsGroupChangePolicy": "p:s",
        "runAsGroup": "p:s", "runAsNonRoot": "p:s", "runAsUser": "p:s", "seLinuxChangePolicy": "p:s",
        "seLinuxOptions": "p:corev1.SELinuxOptions", "seccompProfile": "p:corev1.SeccompProfile",
        "supplementalGroups": "l:s", "supplementalGroupsPolicy": "p:s", "sysctls": "l:corev1.Sysctl",
        "windowsOptions": "p:corev1.WindowsSecurityContextOptions",
    },
    "corev1.PodSpec": {
        "activeDeadlineSeconds": "p:s", "affinity": "p:corev1.Affinity", "automountServiceAccountToken": "p:s",
        "containers": "l:corev1.Container!", "dnsConfig": "p:corev1.PodDNSConfig", "dnsPolicy": "s",
        "enableServiceLinks": "p:s", "ephemeralContainers": "l:corev1.EphemeralContainer",
        "hostAliases": "l:corev1.HostAlias", "hostIPC": "s", "hostNetwork": "s", "hostPID": "s", "hostUsers": "p:s",
        "hostname": "s", "hostnameOverride": "p:s", "imagePullSecrets": "l:corev1.LocalObjectReference",
        "initContainers": "l:corev1.Container", "nodeName": "s", "nodeSelector": "m:s", "os": "p:corev1.PodOS",
        "overhead": "m:s", "preemptionPolicy": "p:s", "priority": "p:s", "priorityClassName": "s",
        "readinessGates": "l:corev1.PodReadinessGate", "resourceClaims": "l:corev1.PodResourceClaim",
        "resources": "p:corev1.ResourceRequirements", "restartPolicy": "s", "runtimeClassName": "p:s",
        "schedulerName": "s", "schedulingGates": "l:corev1.PodSchedulingGate",
        "schedulingGroup": "p:corev1.PodSchedulingGroup", "securityContext": "p:corev1.PodSecurityContext",
        "serviceAccount": "s", "serviceAccountName": "s", "setHostnameAsFQDN": "p:s", "shareProcessNamespace": "p:s",
        "subdomain": "s", "terminationGracePeriodSeconds": "p:s", "tolerations": "l:corev1.Toleration",
        "topologySpreadConstraints": "l:corev1.TopologySpreadConstraint", "volumes": "l:corev1.Volume",
    },
    "corev1.PodTemplateSpec": {"metadata": "metav1.ObjectMeta", "spec": "corev1.PodSpec"},
    "corev1.PortStatus": {"error": "p:s", "port": "s!", "protocol": "s!"},
    "corev1.PortworxVolumeSource": {"fsType": "s", "readOnly": "s", "volumeID": "s!"},
    "corev1.PreferredSchedulingTerm": {"preference": "corev1.NodeSelectorTerm!", "weight": "s!"},
    "corev1.Probe": {
        "exec": "p:corev1.ExecAction", "failureThreshold": "s", "grpc": "p:corev1.GRPCAction",
        "httpGet": "p:corev1.HTTPGetAction", "initialDelaySeconds": "s", "periodSeconds": "s",
        "successThreshold": "s", "tcpSocket": "p:corev1.TCPSocketAction", "terminationGracePeriodSeconds": "p:s",
        "timeoutSeconds": "s",
    },
    "corev1.ProjectedVolumeSource": {"defaultMode": "p:s", "sources": "l:corev1.VolumeProjection!"},
    "corev1.QuobyteVolumeSource": {
        "group": "s", "readOnly": "s", "registry": "s!", "tenant": "s", "user": "s", "volume": "s!",
    },
    "corev1.RBDVolumeSource": {
        "fsType": "s", "image": "s!", "keyring": "s", "monitors": "l:s!", "pool": "s", "readOnly": "s",
        "secretRef": "p:corev1.LocalObjectReference", "user": "s",
    },
    "corev1.ResourceClaim": {"name": "s!", "request": "s"},
    "corev1.ResourceFieldSelector": {"containerName": "s", "divisor": "s", "resource": "s!"},
    "corev1.ResourceRequirements": {"claims": "l:corev1.ResourceClaim", "limits": "m:s", "requests": "m:s"},
    "corev1.SELinuxOptions": {"level": "s", "role": "s", "type": "s", "user": "s"},
    "corev1.ScaleIOVolumeSource": {
        "fsType": "s", "gateway": "s!", "protectionDomain": "s", "readOnly": "s",
        "secretRef": "p:corev1.LocalObjectReference!", "sslEnabled": "s", "storageMode": "s", "storagePool": "s",
        "system": "s!", "volumeName": "s",
    },
    "corev1.SeccompProfile": {"localhostProfile": "p:s", "type": "s!"},
    "corev1.SecretEnvSource": {"name": "s", "optional": "p:s"},
    "corev1.SecretKeySelector": {"key": "s!", "name": "s", "optional": "p:s"},
    "corev1.SecretProjection": {"items": "l:corev1.KeyToPath", "name": "s", "optional": "p:s"},
    "corev1.SecretVolumeSource": {
        "defaultMode": "p:s", "items": "l:corev1.KeyToPath", "optional": "p:s", "secretName": "s",
    },
    "corev1.SecurityContext": {
        "allowPrivilegeEscalation": "p:s", "appArmorProfile": "p:corev1.AppArmorProfile",
        "capabilities": "p:corev1.Capabilities", "privileged": "p:s", "procMount": "p:s",
        "readOnlyRootFilesystem": "p:s", "runAsGroup": "p:s", "runAsNonRoot": "p:s", "runAsUser": "p:s",
        "seLinuxOptions": "p:corev1.SELinuxOptions", "seccompProfile": "p:corev1.SeccompProfile",
        "windowsOptions": "p:corev1.WindowsSecurityContextOptions",
    },
    "corev1.Service": {
        "apiVersion": "s", "kind": "s", "metadata": "metav1.ObjectMeta", "spec": "corev1.ServiceSpec",
        "status": "corev1.ServiceStatus",
    },
    "corev1.ServiceAccountTokenProjection": {"audience": "s", "expirationSeconds": "p:s", "path": "s!"},
    "corev1.ServicePort": {
        "appProtocol": "p:s", "name": "s", "nodePort": "s", "port": "s!", "protocol": "s", "targetPort": "s",
    },
    "corev1.ServiceSpec": {
        "allocateLoadBalancerNodePorts": "p:s", "clusterIP": "s", "clusterIPs": "l:s", "externalIPs": "l:s",
        "externalName": "s", "externalTrafficPolicy": "s", "healthCheckNodePort": "s",
        "internalTrafficPolicy": "p:s", "ipFamilies": "l:s", "ipFamilyPolicy": "p:s", "loadBalancerClass": "p:s",
        "loadBalancerIP": "s", "loadBalancerSourceRanges": "l:s", "ports": "l:corev1.ServicePort",
        "publishNotReadyAddresses": "s", "selector": "m:s", "sessionAffinity": "s",
        "sessionAffinityConfig": "p:corev1.SessionAffinityConfig", "trafficDistribution": "p:s", "type": "s",
    },
    "corev1.ServiceStatus": {"conditions": "l:metav1.Condition", "loadBalancer": "corev1.LoadBalancerStatus"},
    "corev1.SessionAffinityConfig": {"clientIP": "p:corev1.ClientIPConfig"},
    "corev1.SleepAction": {"seconds": "s!"},
    "corev1.StorageOSVolumeSource": {
        "fsType": "s", "readOnly": "s", "secretRef": "p:corev1.LocalObjectReference", "volumeName": "s",
        "volumeNamespace": "s",
    },
    "corev1.Sysctl": {"name": "s!", "value": "s!"},
    "corev1.TCPSocketAction": {"host": "s", "port": "s!"},
    "corev1.Toleration": {"effect": "s", "key": "s", "operator": "s", "tolerationSeconds": "p:s", "value": "s"},
    "corev1.TopologySpreadConstraint": {
        "labelSelector": "p:metav1.LabelSelector", "matchLabelKeys": "l:s", "maxSkew": "s!", "minDomains": "p:s",
        "nodeAffinityPolicy": "p:s", "nodeTaintsPolicy": "p:s", "topologyKey": "s!", "whenUnsatisfiable": "s!",
    },
    "corev1.TypedLocalObjectReference": {"apiGroup": "p:s!", "kind": "s!", "name": "s!"},
    "corev1.TypedObjectReference": {"apiGroup": "p:s!", "kind": "s!", "name": "s!", "namespace": "p:s"},
    "corev1.Volume": {
        "awsElasticBlockStore": "p:corev1.AWSElasticBlockStoreVolumeSource",
        "azureDisk": "p:corev1.AzureDiskVolumeSource", "azureFile": "p:corev1.AzureFileVolumeSource",
        "cephfs": "p:corev1.CephFSVolumeSource", "cinder": "p:corev1.CinderVolumeSource",
        "configMap": "p:corev1.ConfigMapVolumeSource", "csi": "p:corev1.CSIVolumeSource",
        "downwardAPI": "p:corev1.DownwardAPIVolumeSource", "emptyDir": "p:corev1.EmptyDirVolumeSource",
        "ephemeral": "p:corev1.EphemeralVolumeSource", "fc": "p:corev1.FCVolumeSource",
        "flexVolume": "p:corev1.FlexVolumeSource", "flocker": "p:corev1.FlockerVolumeSource",
        "gcePersistentDisk": "p:corev1.GCEPersistentDiskVolumeSource", "gitRepo": "p:corev1.GitRepoVolumeSource",
        "glusterfs": "p:corev1.GlusterfsVolumeSource", "hostPath": "p:corev1.HostPathVolumeSource",
        "image": "p:corev1.ImageVolumeSource", "iscsi": "p:corev1.ISCSIVolumeSource", "name": "s!",
        "nfs": "p:corev1.NFSVolumeSource", "persistentVolumeClaim": "p:corev1.PersistentVolumeClaimVolumeSource",
        "photonPersistentDisk": "p:corev1.PhotonPersistentDiskVolumeSource",
        "portworxVolume": "p:corev1.PortworxVolumeSource", "projected": "p:corev1.ProjectedVolumeSource",
        "quobyte": "p:corev1.QuobyteVolumeSource", "rbd": "p:corev1.RBDVolumeSource",
        "scaleIO": "p:corev1.ScaleIOVolumeSource", "secret": "p:corev1.SecretVolumeSource",
        "storageos": "p:corev1.StorageOSVolumeSource", "vsphereVolume": "p:corev1.VsphereVirtualDiskVolumeSource",
    },
    "corev1.VolumeDevice": {"devicePath": "s!", "name": "s!"},
    "corev1.VolumeMount": {
        "mountPath": "s!", "mountPropagation": "p:s", "name": "s!", "readOnly": "s", "recursiveReadOnly": "p:s",
        "subPath": "s", "subPathExpr": "s",
    },
    "corev1.VolumeProjection": {
        "clusterTrustBundle": "p:corev1.ClusterTrustBundleProjection", "configMap": "p:corev1.ConfigMapProjection",
        "downwardAPI": "p:corev1.DownwardAPIProjection", "podCertificate": "p:corev1.PodCertificateProjection",
        "secret": "p:corev1.SecretProjection", "serviceAccountToken": "p:corev1.ServiceAccountTokenProjection",
    },
    "corev1.VolumeResourceRequirements": {"limits": "m:s", "requests": "m:s"},
    "corev1.VsphereVirtualDiskVolumeSource": {
        "fsType": "s", "storagePolicyID": "s", "storagePolicyName": "s", "volumePath": "s!",
    },
    "corev1.WeightedPodAffinityTerm": {"podAffinityTerm": "corev1.PodAffinityTerm!", "weight": "s!"},
    "corev1.WindowsSecurityContextOptions": {
        "gmsaCredentialSpec": "p:s", "gmsaCredentialSpecName": "p:s", "hostProcess": "p:s", "runAsUserName": "p:s",
    },
    "metav1.Condition": {
        "lastTransitionTime": "s!", "message": "s!", "observedGeneration": "s", "reason": "s!", "status": "s!",
        "type": "s!",
    },
    "metav1.LabelSelector": {"matchExpressions": "l:metav1.LabelSelectorRequirement", "matchLabels": "m:s"},
    "metav1.LabelSelectorRequirement": {"key": "s!", "operator": "s!", "values": "l:s"},
    "metav1.ManagedFieldsEntry": {
        "apiVersion": "s", "fieldsType": "s", "fieldsV1": "p:s", "manager": "s", "operation": "s",
        "subresource": "s", "time": "p:s",
    },
    "metav1.ObjectMeta": {
        "annotations": "m:s", "creationTimestamp": "s", "deletionGracePeriodSeconds": "p:s",
        "deletionTimestamp": "p:s", "finalizers": "l:s", "generateName": "s", "generation": "s", "labels": "m:s",
        "managedFields": "l:metav1.ManagedFieldsEntry", "name": "s", "namespace": "s",
        "ownerReferences": "l:metav1.OwnerReference", "resourceVersion": "s", "selfLink": "s", "uid": "s",
    },
    "metav1.OwnerReference": {
        "apiVersion": "s!", "blockOwnerDeletion": "p:s", "controller": "p:s", "kind": "s!", "name": "s!",
        "uid": "s!",
    },
    "networkingv1.IPBlock": {"cidr": "s!", "except": "l:s"},
    "networkingv1.IngressTLS": {"hosts": "l:s", "secretName": "s"},
    "networkingv1.NetworkPolicyEgressRule": {
        "ports": "l:networkingv1.NetworkPolicyPort", "to": "l:networkingv1.NetworkPolicyPeer",
    },
    "networkingv1.NetworkPolicyIngressRule": {
        "from": "l:networkingv1.NetworkPolicyPeer", "ports": "l:networkingv1.NetworkPolicyPort",
    },
    "networkingv1.NetworkPolicyPeer": {
        "ipBlock": "p:networkingv1.IPBlock", "namespaceSelector": "p:metav1.LabelSelector",
        "podSelector": "p:metav1.LabelSelector",
    },
    "networkingv1.NetworkPolicyPort": {"endPort": "p:s", "port": "p:s", "protocol": "p:s"},
})
