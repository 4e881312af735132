from ditto.backends import cudnn  # noqa: F401
