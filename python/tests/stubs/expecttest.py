"""A stand-in for the expecttest package, which Debian does not package and which
torch.testing._internal imports (for its OpInfo database, used by test_opinfo_sweep.py). Only
what the import needs: ACCEPT and a TestCase with assertExpectedInline."""
import unittest

ACCEPT = False


class TestCase(unittest.TestCase):
    def assertExpectedInline(self, actual, expect, skip=0):  # noqa: N802 (expecttest's name)
        self.assertEqual(actual, expect)
