"""The PodCliqueSet controller's PodCliqueSet-replica component (ai-dynamo/grove @ fcc3b3bb:
``operator/internal/controller/podcliqueset/components/podcliquesetreplica``)."""
