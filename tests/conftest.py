"""Settings shared by every test under tests/.

Hypothesis draws the same examples in every run (``derandomize``), so CI's verdict is a function of
the code, like every model run is a function of its config and seed: a failure found once is found
again. To search new examples while developing, run ``pytest --hypothesis-profile=explore``.
"""

from __future__ import annotations

from hypothesis import settings

settings.register_profile("repeatable", derandomize=True, deadline=None, print_blob=True)
settings.register_profile("explore", derandomize=False, deadline=None, print_blob=True)
settings.load_profile("repeatable")
