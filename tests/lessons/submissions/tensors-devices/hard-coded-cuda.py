# Writes "cuda" into the code: fails on the grader's CPU machine and on any laptop.
import torch


def pick_device():
    return torch.device("cuda")


def to_device(model, inputs, targets, device):
    return model.to("cuda"), inputs.to("cuda"), targets.to("cuda")
