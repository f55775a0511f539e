"""``torch.nn.utils``: gradient clipping and flattening parameters into one vector."""
