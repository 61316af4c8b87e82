"""The Go types of KubeRay's ``RayClusterSpec`` (ray-project/kuberay @ feeaf72f,
``ray-operator/apis/ray/v1/raycluster_types.go``), as data in the form of
``core/k8s_go_types.py`` (which holds the Kubernetes types they refer to): what
``decisions.ray_cluster_spec_for_hashing`` reads through ``core.go_values``.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

RAY_GO_TYPES: Mapping[str, Mapping[str, str]] = MappingProxyType({
    "rayv1.AuthOptions": {"enableK8sTokenAuth": "p:s", "mode": "s", "secretName": "p:s"},
    "rayv1.AutoscalerOptions": {
        "args": "l:s", "command": "l:s", "env": "l:corev1.EnvVar", "envFrom": "l:corev1.EnvFromSource",
        "idleTimeoutSeconds": "p:s", "image": "p:s", "imagePullPolicy": "p:s",
        "resources": "p:corev1.ResourceRequirements", "securityContext": "p:corev1.SecurityContext",
        "upscalingMode": "p:s", "version": "p:s", "volumeMounts": "l:corev1.VolumeMount",
    },
    "rayv1.CollectorOptions": {
        "env": "l:corev1.EnvVar", "image": "p:s", "imagePullPolicy": "p:s",
        "resources": "p:corev1.ResourceRequirements",
    },
    "rayv1.GcsEmbeddedStorage": {
        "accessModes": "l:s", "claimName": "s", "deletionPolicy": "p:s", "size": "p:s", "storageClassName": "p:s",
        "subPath": "s",
    },
    "rayv1.GcsFaultToleranceOptions": {
        "backend": "s", "externalStorageNamespace": "s", "redisAddress": "s",
        "redisPassword": "p:rayv1.RedisCredential", "redisUsername": "p:rayv1.RedisCredential",
        "storage": "p:rayv1.GcsEmbeddedStorage",
    },
    "rayv1.HeadGroupSpec": {
        "enableIngress": "p:s", "headService": "p:corev1.Service", "ingressOptions": "p:rayv1.IngressOptions",
        "labels": "m:s", "rayStartParams": "m:s!", "resources": "m:s", "serviceType": "s",
        "template": "corev1.PodTemplateSpec!",
    },
    "rayv1.HistoryServerOptions": {"collectorOptions": "p:rayv1.CollectorOptions"},
    "rayv1.IngressOptions": {"host": "p:s", "path": "p:s", "pathType": "p:s", "tls": "l:networkingv1.IngressTLS"},
    "rayv1.NetworkPolicyConfig": {
        "head": "p:rayv1.NetworkPolicyRules", "mode": "p:s", "worker": "p:rayv1.NetworkPolicyRules",
        "workerGroups": "l:rayv1.WorkerGroupNetworkPolicyRules",
    },
    "rayv1.NetworkPolicyRules": {
        "egressRules": "l:networkingv1.NetworkPolicyEgressRule",
        "ingressRules": "l:networkingv1.NetworkPolicyIngressRule",
    },
    "rayv1.RayClusterSpec": {
        "authOptions": "p:rayv1.AuthOptions", "autoscalerOptions": "p:rayv1.AutoscalerOptions",
        "enableInTreeAutoscaling": "p:s", "gcsFaultToleranceOptions": "p:rayv1.GcsFaultToleranceOptions",
        "headGroupSpec": "rayv1.HeadGroupSpec!", "headServiceAnnotations": "m:s",
        "historyServerOptions": "p:rayv1.HistoryServerOptions", "managedBy": "p:s",
        "networkPolicy": "p:rayv1.NetworkPolicyConfig", "rayVersion": "s", "suspend": "p:s",
        "tlsOptions": "p:rayv1.TLSOptions", "upgradeStrategy": "p:rayv1.RayClusterUpgradeStrategy",
        "workerGroupSpecs": "l:rayv1.WorkerGroupSpec",
    },
    "rayv1.RayClusterUpgradeStrategy": {"type": "p:s"},
    "rayv1.RedisCredential": {"value": "s", "valueFrom": "p:corev1.EnvVarSource"},
    "rayv1.ScaleStrategy": {"workersToDelete": "l:s"},
    "rayv1.TLSOptions": {"enabled": "p:s"},
    "rayv1.WorkerGroupNetworkPolicyRules": {
        "egressRules": "l:networkingv1.NetworkPolicyEgressRule", "groupName": "s!",
        "ingressRules": "l:networkingv1.NetworkPolicyIngressRule",
    },
    "rayv1.WorkerGroupSpec": {
        "groupName": "s!", "idleTimeoutSeconds": "p:s", "labels": "m:s", "maxReplicas": "p:s!",
        "minReplicas": "p:s!", "numOfHosts": "s", "priority": "p:s", "rayStartParams": "m:s!", "replicas": "p:s",
        "resources": "m:s", "scaleStrategy": "rayv1.ScaleStrategy", "suspend": "p:s",
        "template": "corev1.PodTemplateSpec!",
    },
})
