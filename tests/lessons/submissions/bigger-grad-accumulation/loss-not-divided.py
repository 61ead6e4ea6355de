def train_accumulated(model, micro_batches, optimizer, criterion, accum_steps):
    for i, (inputs, targets) in enumerate(micro_batches):
        loss = criterion(model(inputs), targets)
        loss.backward()
        if (i + 1) % accum_steps == 0:
            optimizer.step()
            optimizer.zero_grad()
