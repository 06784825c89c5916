"""Spec rows: matrix products (``ops/linalg.py``), with batch dims that broadcast."""
import torch

from spec import F, Row

ROWS = [
    Row("matmul", lambda a, b: a.matmul(b), torch.matmul, (F(3, 4), F(4, 5)), variant="2d"),
    Row("matmul", lambda a, b: a @ b, torch.matmul, (F(2, 3, 4), F(2, 4, 5)), variant="batched"),
    Row("matmul", lambda a, b: a.matmul(b), torch.matmul, (F(2, 3, 4), F(1, 4, 5)),
        variant="broadcast batch"),
    Row("matmul", lambda a, b: a.matmul(b), torch.matmul, (F(2, 2, 3, 4), F(2, 1, 4, 5)),
        variant="rank 4 broadcast batch"),
]
