"""``acl.blas``: pyACL's CBLAS API -- not provided by aiocann (see _unsupported).

Every public name is a stand-in whose call raises NotImplementedError.
"""

from ._unsupported import module_getattr

__getattr__, __dir__ = module_getattr(
    "acl.blas", None, "the CBLAS operators need CANN's operator library, which the simulator does not have"
)
