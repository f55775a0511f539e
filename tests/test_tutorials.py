"""PyTorch's beginner tutorials run unchanged with vizgrad in torch's place.

Each snippet below is the code of a tutorial (Build the Neural Network, Automatic
Differentiation with torch.autograd, Optimizing Model Parameters), with only its data
replaced where it downloads (FashionMNIST becomes small local tensors). It runs twice:
once with ``import torch`` giving PyTorch, once giving vizgrad (the mapping lives in this
test's ``__import__``, nothing is patched process-wide), and the two printouts must be
the same text with the same numbers up to float rounding. Where a tutorial prints values
of randomly initialised weights, whose streams differ between the libraries, the
numbers are masked and only their count and the text around them are compared.
"""

from __future__ import annotations

import numpy as np
import pytest
from printout_oracle import assert_same_printout, run_as

import vizgrad as vg

BUILD_THE_NEURAL_NETWORK = """
import os
import torch
from torch import nn
from torch.utils.data import DataLoader

device = torch.accelerator.current_accelerator().type if torch.accelerator.is_available() else "cpu"
print(f"Using {device} device")

class NeuralNetwork(nn.Module):
    def __init__(self):
        super().__init__()
        self.flatten = nn.Flatten()
        self.linear_relu_stack = nn.Sequential(
            nn.Linear(28*28, 512),
            nn.ReLU(),
            nn.Linear(512, 512),
            nn.ReLU(),
            nn.Linear(512, 10),
        )

    def forward(self, x):
        x = self.flatten(x)
        logits = self.linear_relu_stack(x)
        return logits

model = NeuralNetwork().to(device)
print(model)

X = torch.rand(1, 28, 28, device=device)
logits = model(X)
pred_probab = nn.Softmax(dim=1)(logits)
y_pred = pred_probab.argmax(1)
print(f"Predicted class: {y_pred.shape} {y_pred.dtype}")

input_image = torch.rand(3,28,28)
print(input_image.size())

flatten = nn.Flatten()
flat_image = flatten(input_image)
print(flat_image.size())

layer1 = nn.Linear(in_features=28*28, out_features=20)
hidden1 = layer1(flat_image)
print(hidden1.size())

print(f"Before ReLU: {hidden1}\\n\\n")
hidden1 = nn.ReLU()(hidden1)
print(f"After ReLU: {hidden1}")

seq_modules = nn.Sequential(
    flatten,
    layer1,
    nn.ReLU(),
    nn.Linear(20, 10)
)
input_image = torch.rand(3,28,28)
logits = seq_modules(input_image)

softmax = nn.Softmax(dim=1)
pred_probab = softmax(logits)
print(pred_probab.sum(1))

print(f"Model structure: {model}\\n\\n")

for name, param in model.named_parameters():
    print(f"Layer: {name} | Size: {param.size()} | Values : {param[:2]} \\n")
"""


def test_build_the_neural_network():
    printed = assert_same_printout(BUILD_THE_NEURAL_NETWORK, random_values=True)
    assert "grad_fn=<ReluBackward0>" in printed and "Parameter containing" not in printed


AUTOGRAD = """
import torch

x = torch.ones(5)  # input tensor
y = torch.zeros(3)  # expected output
w = torch.tensor(W, requires_grad=True)
b = torch.tensor(B, requires_grad=True)
z = torch.matmul(x, w)+b
loss = torch.nn.functional.binary_cross_entropy_with_logits(z, y)

print(f"Gradient function for z = {z.grad_fn}")
print(f"Gradient function for loss = {loss.grad_fn}")

loss.backward()
print(w.grad)
print(b.grad)

z = torch.matmul(x, w)+b
print(z.requires_grad)

with torch.no_grad():
    z = torch.matmul(x, w)+b
print(z.requires_grad)

z = torch.matmul(x, w)+b
z_det = z.detach()
print(z_det.requires_grad)

inp = torch.eye(4, 5, requires_grad=True)
out = (inp+1).pow(2).t()
out.backward(torch.ones_like(out), retain_graph=True)
print(f"First call\\n{inp.grad}")
out.backward(torch.ones_like(out), retain_graph=True)
print(f"\\nSecond call\\n{inp.grad}")
inp.grad.zero_()
out.backward(torch.ones_like(out), retain_graph=True)
print(f"\\nCall after zeroing gradients\\n{inp.grad}")
"""


def test_automatic_differentiation():
    # torch.randn(5, 3) and torch.randn(3) in the tutorial: the same values in both runs.
    rng = np.random.default_rng(0)
    values = {"W": rng.standard_normal((5, 3)).tolist(), "B": rng.standard_normal(3).tolist()}
    printed = assert_same_printout(AUTOGRAD, env={"torch": values, "vizgrad": values})
    assert "<AddBackward0 object at" in printed


OPTIMIZATION = """
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

# FashionMNIST, replaced by small local tensors (the tutorial downloads it).
training_data = TensorDataset(torch.tensor(TRAIN_X), torch.tensor(TRAIN_Y))
test_data = TensorDataset(torch.tensor(TEST_X), torch.tensor(TEST_Y))

train_dataloader = DataLoader(training_data, batch_size=64)
test_dataloader = DataLoader(test_data, batch_size=64)

class NeuralNetwork(nn.Module):
    def __init__(self):
        super().__init__()
        self.flatten = nn.Flatten()
        self.linear_relu_stack = nn.Sequential(
            nn.Linear(28*28, 512),
            nn.ReLU(),
            nn.Linear(512, 512),
            nn.ReLU(),
            nn.Linear(512, 10),
        )

    def forward(self, x):
        x = self.flatten(x)
        logits = self.linear_relu_stack(x)
        return logits

model = NeuralNetwork()
# The same initial weights in both runs (the random streams differ).
model.load_state_dict({k: torch.tensor(v) for k, v in WEIGHTS.items()})

learning_rate = 1e-3
batch_size = 64
epochs = 5

loss_fn = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=learning_rate)

def train_loop(dataloader, model, loss_fn, optimizer):
    size = len(dataloader.dataset)
    # Set the model to training mode - important for batch normalization and dropout layers
    # Unnecessary in this situation but added for best practices
    model.train()
    for batch, (X, y) in enumerate(dataloader):
        # Compute prediction and loss
        pred = model(X)
        loss = loss_fn(pred, y)

        # Backpropagation
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()

        if batch % 2 == 0:
            loss, current = loss.item(), batch * batch_size + len(X)
            print(f"loss: {loss:>7f}  [{current:>5d}/{size:>5d}]")


def test_loop(dataloader, model, loss_fn):
    # Set the model to evaluation mode - important for batch normalization and dropout layers
    # Unnecessary in this situation but added for best practices
    model.eval()
    size = len(dataloader.dataset)
    num_batches = len(dataloader)
    test_loss, correct = 0, 0

    # Evaluating the model with torch.no_grad() ensures that no gradients are computed during test mode
    # also serves to reduce unnecessary gradient computation for tensors with requires_grad=True
    with torch.no_grad():
        for X, y in test_dataloader:
            pred = model(X)
            test_loss += loss_fn(pred, y).item()
            correct += (pred.argmax(1) == y).type(torch.float).sum().item()

    test_loss /= num_batches
    correct /= size
    print(f"Test Error: \\n Accuracy: {(100*correct):>0.1f}%, Avg loss: {test_loss:>8f} \\n")

loss_fn = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=learning_rate)

epochs = 10
for t in range(epochs):
    print(f"Epoch {t+1}\\n-------------------------------")
    train_loop(train_dataloader, model, loss_fn, optimizer)
    test_loop(test_dataloader, model, loss_fn)
print("Done!")
"""


def test_optimizing_model_parameters():
    rng = np.random.default_rng(1)
    shapes = {
        "linear_relu_stack.0.weight": (512, 784),
        "linear_relu_stack.0.bias": (512,),
        "linear_relu_stack.2.weight": (512, 512),
        "linear_relu_stack.2.bias": (512,),
        "linear_relu_stack.4.weight": (10, 512),
        "linear_relu_stack.4.bias": (10,),
    }
    weights = {
        key: (rng.uniform(-1, 1, shape) / np.sqrt(shape[-1])).astype(np.float32)
        for key, shape in shapes.items()
    }
    images = rng.random((320, 28, 28), dtype=np.float32)
    labels = (images[:, 10:18, 10:18].mean((1, 2)) * 10).astype(np.int64) % 10
    data = {"TRAIN_X": images[:256], "TRAIN_Y": labels[:256], "TEST_X": images[256:],
            "TEST_Y": labels[256:], "WEIGHTS": weights}  # fmt: skip
    printed = assert_same_printout(OPTIMIZATION, env={"torch": data, "vizgrad": data})
    assert printed.count("Test Error") == 10 and printed.endswith("Done!\n")


# The calls of the "Tensors" tutorial (Learn the Basics), in a program of our own: making
# tensors from data, arrays and other tensors, their attributes, the guarded move to a GPU
# (which builds ``torch.device('cuda')`` on any machine), indexing, joining, products with
# and without ``out=``, ``item()``, an in-place op, and the NumPy bridge both ways.
TENSOR_BASICS = """
import numpy as np
import torch

rows = [[1, 2], [3, 4]]
from_data = torch.tensor(rows)
from_array = torch.from_numpy(np.array(rows))
print(f"Ones like it:\\n{torch.ones_like(from_data)}")
print(torch.rand_like(from_data, dtype=torch.float).dtype, torch.zeros((2, 3,)), torch.ones((2, 3,)))

grid = torch.rand(3, 4)
print(f"Shape: {grid.shape}; dtype: {grid.dtype}; device: {grid.device}")
if torch.cuda.is_available() & (torch.device('cuda').index is not None):
    grid = grid.to('cuda')
print(torch.device('cuda'), torch.device('cuda').index, torch.cuda.is_available())

square = torch.ones(4, 4)
print('Row 0:', square[0], 'Column 0:', square[:, 0], 'Last column:', square[..., -1])
square[:, 1] = 0
print(torch.cat([square, square, square], dim=1))

first = square @ square.T
second = square.matmul(square.T)
third = torch.rand_like(square)
torch.matmul(square, square.T, out=third)
print(first, torch.equal(first, second), torch.equal(first, third))
product = torch.rand_like(square)
torch.mul(square, square, out=product)
print(torch.equal(product, square * square), torch.equal(product, square.mul(square)))

total = square.sum()
print(total.item(), type(total.item()))
square.add_(5)
print(square)

ones = torch.ones(5)
shared = ones.numpy()
ones.add_(1)
print(f"tensor: {ones}, array: {shared}")
array = np.ones(5)
bridged = torch.from_numpy(array)
np.add(array, 1, out=array)
print(f"tensor: {bridged}, array: {array}")
"""


def test_tensor_basics():
    printed = assert_same_printout(TENSOR_BASICS, random_values=True)
    assert "device: cpu" in printed and "tensor: tensor([2., 2., 2., 2., 2.])" in printed


@pytest.mark.parametrize(
    "name", ["torch.nn", "torch.nn.functional", "torch.optim", "torch.utils.data"]
)
def test_the_tutorials_imports_resolve(name):
    run_as(vg, f"import {name}\nfrom {name} import *\n", {})
