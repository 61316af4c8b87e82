"""The PodClique controller's components (ai-dynamo/grove @ fcc3b3bb:
``operator/internal/controller/podclique/components``)."""
