"""The PodCliqueScalingGroup controller's PodClique component (ai-dynamo/grove @ fcc3b3bb:
``operator/internal/controller/podcliquescalinggroup/components/podclique``)."""
