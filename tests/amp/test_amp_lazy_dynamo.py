"""The deferred torch._dynamo import: training never loads the compiler, compiling still works."""

from __future__ import annotations

import subprocess
import sys

# A fresh interpreter: the test process may have loaded torch._dynamo already.
PROGRAM = r'''
import sys
import torch
from grader.amp.lazy_dynamo import defer_dynamo_import, is_deferred

assert defer_dynamo_import()
model = torch.nn.Linear(2, 2)
optimizer = torch.optim.SGD(model.parameters(), 0.1, momentum=0.9)
model(torch.randn(1, 2)).sum().backward()
optimizer.step()
optimizer.zero_grad()
optimizer.load_state_dict(optimizer.state_dict())
print("deferred after training:", is_deferred())
double = torch.compile(lambda x: x * 2 + 1, backend="eager")
print("compiled:", double(torch.ones(2)).tolist())
import torch._dynamo.config
print("real module:", type(sys.modules["torch._dynamo"]) is type(sys), not is_deferred())
'''


def test_training_defers_the_compiler_and_compiling_loads_it():
    done = subprocess.run([sys.executable, "-c", PROGRAM], capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.splitlines() == ["deferred after training: True",
                                        "compiled: [3.0, 3.0]", "real module: True True"]


def test_nothing_is_deferred_once_the_compiler_is_loaded():
    import torch._dynamo  # noqa: F401

    from grader.amp.lazy_dynamo import defer_dynamo_import

    assert defer_dynamo_import() is False
