"""The sliced kernel client lives in :mod:`bmlab_present.kernel_client` (installed with the
dashboards); this name stays for the repository's tools and tests."""

from bmlab_present.kernel_client import CLIENT, SlicedKernelClient

__all__ = ["CLIENT", "SlicedKernelClient"]
