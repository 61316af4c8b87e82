"""The PodClique controller's Pod component (ai-dynamo/grove @ fcc3b3bb:
``operator/internal/controller/podclique/components/pod``)."""
