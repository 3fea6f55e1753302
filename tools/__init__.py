"""Repository tooling for bmlab: not part of the package, not shipped in the wheel.

Run from the repository root as ``python -m tools <command>`` (the Makefile does):

- ``execute``: re-run notebooks in place with clean, reproducible outputs (:mod:`tools.notebooks`);
- ``sync``: rewrite jupytext pairs exactly as jupytext writes them (:mod:`tools.notebooks`);
- ``present``: serve the Voila dashboards of ``make present``;
- ``site``: build the offline static site of ``make site`` (:mod:`tools.site`);
- ``env-yml``: print environment.yml from requirements.lock (:mod:`tools.lock`);
- ``answer-hash``: print the stored hash of an exercise's answer (``bmlab/exercises.json``).

Voila and nbconvert wait for kernel messages through
:class:`bmlab_present.kernel_client.SlicedKernelClient` (``present`` is ``bmlab-present`` on
the checkout's ``dashboards/``).
"""
