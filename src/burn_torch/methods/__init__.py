"""The public Tensor's methods, one mixin per op family (see ``base.py``)."""
