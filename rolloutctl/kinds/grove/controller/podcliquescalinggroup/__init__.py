"""The PodCliqueScalingGroup controller (ai-dynamo/grove @ fcc3b3bb:
``operator/internal/controller/podcliquescalinggroup``)."""
