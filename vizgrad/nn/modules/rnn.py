"""Recurrent modules: RNN, LSTM, GRU and their cells."""

__all__: list[str] = []
