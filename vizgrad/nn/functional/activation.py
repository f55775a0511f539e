"""Activation functions: relu, leaky_relu, elu, gelu, silu, sigmoid, tanh, softmax, log_softmax, softplus, hardtanh, mish."""

__all__: list[str] = []
