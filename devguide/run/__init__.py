"""Running one block in isolation: ``zygote`` (``python -m devguide.run.zygote``, one
process per block) and ``zygote_client`` (the pytest side), with ``sandbox``, ``reaper``,
``ports`` and ``limit`` (what a block may touch, what it leaves, its ports, its time)."""
