"""``python -m bmlab_present``: the same as the ``bmlab-present`` command."""

from .app import main

main()
