"""``torch.nn.init``: filling weights in place, and each layer's default initialisation."""
