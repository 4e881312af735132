from ditto.utils import deterministic  # noqa: F401
from ditto.utils import data  # noqa: F401,E402
