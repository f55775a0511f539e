"""Activation modules: ReLU, LeakyReLU, ELU, GELU, SiLU, Sigmoid, Tanh, Softmax, LogSoftmax, Softplus, Hardtanh, Mish."""

__all__: list[str] = []
