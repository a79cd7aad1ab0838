"""Contributors' tools, not loaded by either plugin's hooks: the benchmarks, the built
site's checks, Chromium, axe-core, the npm files fetched without npm, the notebook kernel's
configuration."""
