"""The PodCliqueScalingGroup controller's components (ai-dynamo/grove @ fcc3b3bb:
``operator/internal/controller/podcliquescalinggroup/components``)."""
