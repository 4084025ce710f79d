"""The learned evaluation's arithmetic: a small multilayer perceptron over plain Python lists.

``Net`` holds the layers of a trained model (``bots.value_model`` reads them from the model file,
with the inputs' standardisation folded into the first layer) and evaluates a feature vector:
ReLU hidden layers, a linear output layer. No numpy and no training library: the core install
stays light, and compiled with mypyc (``_native.MODULES``) one evaluation of the shipped model
costs a few microseconds (``benchmarks/value.py`` measures it in both builds).

The weights are stored unit-major (for unit j, its weight from every input) and each unit is
summed in a local float: compiled, that is native arithmetic with one float object made per unit
(an accumulator kept in the list would allocate one per multiply-add: 4x slower, measured). The
inputs that are 0 (many are: a 2-player game's "others" block, Credits without Finesse) are left
out of the sums.
"""

from __future__ import annotations


class Net:
    """A ReLU multilayer perceptron: ``sizes`` = inputs, hidden units..., outputs."""

    def __init__(
        self, sizes: list[int], weights: list[list[float]], biases: list[list[float]]
    ) -> None:
        # weights[k]: layer k's matrix, unit-major (index j * sizes[k] + i)
        self.sizes = sizes
        self.weights = weights
        self.biases = biases
        self.n_inputs = sizes[0]

    def evaluate(self, x: list[float]) -> list[float]:
        """Return the outputs for the input vector ``x``."""
        sizes = self.sizes
        last = len(sizes) - 2
        act = x
        for k in range(len(sizes) - 1):
            n_in = sizes[k]
            n_out = sizes[k + 1]
            w = self.weights[k]
            bias = self.biases[k]
            live: list[int] = []
            vals: list[float] = []
            for i in range(n_in):
                xi = act[i]
                if xi != 0.0:
                    live.append(i)
                    vals.append(xi)
            m = len(live)
            out: list[float] = []
            for j in range(n_out):
                acc: float = bias[j]
                base = j * n_in
                for t in range(m):
                    acc += w[base + live[t]] * vals[t]
                if k < last and acc < 0.0:
                    acc = 0.0
                out.append(acc)
            act = out
        return act


__all__ = ["Net"]
