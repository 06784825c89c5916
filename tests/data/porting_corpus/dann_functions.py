# Source: https://github.com/fungtion/DANN — models/functions.py at commit 476147f70bb818a63bb3461a6ecc12f97f7ab15e (MIT).
# Labelled test data for the porting checker (tests/test_porting_checker_corpus.py); never run.
from torch.autograd import Function


class ReverseLayerF(Function):

    @staticmethod
    def forward(ctx, x, alpha):
        ctx.alpha = alpha

        return x.view_as(x)

    @staticmethod
    def backward(ctx, grad_output):
        output = grad_output.neg() * ctx.alpha

        return output, None


