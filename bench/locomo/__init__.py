"""LoCoMo retrieval: evidence recall@k of the product's searches on long conversations (`python -m bench locomo`).

dataset.py reads the file and builds memory inputs (pure), metrics.py scores (pure), systems.py
holds the systems and the prepare steps (the one place to add one), harness.py runs them,
cli.py is the command, synthetic.py a tiny file of the same format.
"""
