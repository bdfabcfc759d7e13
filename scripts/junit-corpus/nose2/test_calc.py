import unittest


class CalcTest(unittest.TestCase):
    def test_adds(self):
        self.assertEqual(1 + 1, 2)

    @unittest.expectedFailure
    def test_rounding_bug_fixed_upstream(self):
        # Marked as a known bug, but the bug is gone: the test now passes.
        self.assertEqual(round(2.675, 2), round(2.675, 2))

    @unittest.expectedFailure
    def test_known_rounding_bug(self):
        self.assertEqual(round(2.675, 2), 2.68)

    @unittest.skip("needs a network")
    def test_download(self):
        pass

    def test_divides(self):
        self.assertEqual(1 / 1, 2)

    def test_broken(self):
        raise RuntimeError("fixture missing")
