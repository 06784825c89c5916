"""A typical PyTorch training script (porting-checker sample; never run)."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 8)
        self.fc2 = nn.Linear(8, 3)
        self.scale = nn.Parameter(torch.ones(3))

    def forward(self, x):
        return self.fc2(F.relu(self.fc1(x))) * self.scale


def train(loader: DataLoader, device: str = "cpu"):
    torch.manual_seed(0)
    model = Net().to(device)
    model.load_state_dict(torch.load("init.pt"))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    for epoch in range(3):
        model.train()
        for x, y in loader:
            optimizer.zero_grad()
            loss = F.cross_entropy(model(x), y)
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
        model.eval()
        correct = 0
        with torch.no_grad():
            for x, y in loader:
                pred = model(x).argmax(dim=1)
                correct += (pred == y).sum().item()
        print(epoch, correct)
