"""``acl.prof``: pyACL's profiling API -- not provided by aiocann (see _unsupported).

Every public name is a stand-in whose call raises NotImplementedError.
"""

from ._unsupported import module_getattr

__getattr__, __dir__ = module_getattr(
    "acl.prof", None, "profiling is CANN's tool chain; aiocann records timelines with aiocann.trace() instead"
)
