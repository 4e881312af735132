from ditto.utils import deterministic  # noqa: F401
