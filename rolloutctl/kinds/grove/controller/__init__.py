"""The Grove controllers, one module per upstream Go file or package (ai-dynamo/grove @ fcc3b3bb:
``operator/internal/controller``)."""
