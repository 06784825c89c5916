class _Identity:
    def __init__(self, *args, **kwargs):
        pass

    def __call__(self, x):
        return x


ToTensor = Normalize = Pad = RandomHorizontalFlip = RandomCrop = Compose = _Identity
