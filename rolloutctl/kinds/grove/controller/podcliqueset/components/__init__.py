"""The PodCliqueSet controller's components (ai-dynamo/grove @ fcc3b3bb:
``operator/internal/controller/podcliqueset/components``)."""
