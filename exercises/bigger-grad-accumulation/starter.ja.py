import torch


def train_accumulated(model, micro_batches, optimizer, criterion, accum_steps: int) -> None:
    """マイクロバッチで学習し、`accum_steps` 個ごとに 1 回ステップする。"""
    model.train()
    optimizer.zero_grad()
    for i, (inputs, targets) in enumerate(micro_batches):
        loss = criterion(model(inputs), targets)
        # TODO: 蓄積した勾配が大きなバッチの平均勾配になるように損失をスケールする。
        loss.backward()
        # TODO: step と勾配のクリアは accum_steps 個目のマイクロバッチのあとだけに行う。
        optimizer.step()
        optimizer.zero_grad()
