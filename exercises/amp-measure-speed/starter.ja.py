import statistics
import time

import torch
import torch.nn.functional as F

# 比較する層幅（1〜4 個、それぞれ 8 以上で、CPU の採点では最大 1024）と
# バッチサイズ（CPU の採点では最大 256）。違いが見えるサイズを選ぼう。
WIDTHS = [64]
BATCH_SIZE = 64


def train_step(model, optimizer, inputs, targets, amp_dtype):
    """学習を 1 ステップ行う。amp_dtype が与えられたら順伝播と損失を autocast の中で計算する。"""
    optimizer.zero_grad(set_to_none=True)
    # TODO: amp_dtype が None でないときは、次の 2 行を
    # torch.autocast(device_type=inputs.device.type, dtype=amp_dtype) の中で実行する。
    outputs = model(inputs)
    loss = F.cross_entropy(outputs, targets)
    loss.backward()
    optimizer.step()


def time_steps(model, optimizer, inputs, targets, amp_dtype=None, steps=5, warmup=2):
    """1 ステップあたりの秒数の中央値と、CUDA メモリのピーク（MiB、CPU では None）。"""
    # TODO: まず `warmup` ステップを計測せずに実行し、次に `steps` ステップを 1 つずつ
    # time.perf_counter() で計測する。CUDA では計測の開始前と停止前に torch.cuda.synchronize() を呼び、
    # メモリは torch.cuda.reset_peak_memory_stats() と
    # torch.cuda.max_memory_allocated() で測る。
    start = time.perf_counter()
    train_step(model, optimizer, inputs, targets, amp_dtype)
    seconds = time.perf_counter() - start
    return {"seconds": statistics.median([seconds]), "peak_mb": None}
