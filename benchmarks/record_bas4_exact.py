"""The exact-gradient reference run on 4x4 bars and stripes (see record_bas4_cd.py).

Same machine, rate, initialisation and number of updates as the CD runs; each update
enumerates the 2**16 hidden states (about 12 minutes on a shared 2-core machine).
Writes ``bmlab/recorded/bas4_exact.json``.
"""

from __future__ import annotations

from record_bas4_cd import main

if __name__ == "__main__":
    main("exact")
