def train_accumulated(model, micro_batches, optimizer, criterion, accum_steps):
    for i, (inputs, targets) in enumerate(micro_batches):
        optimizer.zero_grad()
        loss = criterion(model(inputs), targets) / accum_steps
        loss.backward()
        if (i + 1) % accum_steps == 0:
            optimizer.step()
