"""What the pages say: fences and their marks, the runnable blocks, comments, the two
languages' parity, the nav, source links and ruff on examples. Read by both plugins."""
