"""Reducing a gradient back to the shape and dtype of the input it flows to."""


def fit(g, parent):
    """Returns ``g`` summed over broadcast dimensions and cast to ``parent``'s shape and dtype."""
    if g.shape != parent.shape:
        g = g.sum_to_size(parent.shape)
    if g.dtype is not parent.dtype:
        g = g.to(parent.dtype)
    return g
